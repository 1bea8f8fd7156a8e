import { Migration } from '@mikro-orm/migrations';
import { regexProblem } from '../../domain/custom-regex.ts';

/**
 * Custom regex rules now run on RE2. A stored pattern RE2 cannot compile (a backreference, lookaround) is
 * moved out of `custom_rules.regex` into `settings.disabled_rules` with the reason, so it is reported on the
 * form (`disabled_rules`) instead of silently never matching.
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
