import { Migration } from '@mikro-orm/migrations';
import { RE2JS } from 're2js';

/** Why RE2 refuses a pattern, or null: a copy of the domain's check, so this migration never changes with it. */
function regexProblem(pattern: string): string | null {
  try {
    RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
    return null;
  } catch (err) {
    return (err as Error).message.replace(/^error parsing regexp: /, '');
  }
}

/**
 * Custom regex rules run on RE2. A stored pattern RE2 cannot compile (a backreference, lookaround) moves from
 * `custom_rules.regex` to `settings.disabled_rules` with the reason, so the form reports it.
 */
export class Migration0005Re2Rules extends Migration {
  override name = '0005-re2-rules';

  override async up(): Promise<void> {
    const forms = (await this.execute(
      `select id, settings from forms where jsonb_array_length(coalesce(settings #> '{custom_rules,regex}', '[]')) > 0`,
    )) as Array<{ id: string; settings: { custom_rules: { regex: string[] }; disabled_rules?: unknown[] } }>;
    for (const form of forms) {
      const kept: string[] = [];
      const disabled: Array<{ kind: 'regex'; pattern: string; reason: string }> = [];
      for (const pattern of form.settings.custom_rules.regex) {
        const problem = regexProblem(pattern);
        if (problem) disabled.push({ kind: 'regex', pattern, reason: `RE2 cannot run it: ${problem}` });
        else kept.push(pattern);
      }
      if (!disabled.length) continue;
      const settings = {
        ...form.settings,
        custom_rules: { ...form.settings.custom_rules, regex: kept },
        disabled_rules: [...(form.settings.disabled_rules ?? []), ...disabled],
      };
      await this.execute('update forms set settings = ?::jsonb where id = ?', [JSON.stringify(settings), form.id]);
    }
  }
}
