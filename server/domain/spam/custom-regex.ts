import { RE2JS } from 're2js';
import { validationFailed, type ErrorDetail } from '../shared/errors.ts';

/**
 * User-written regexes run on every post, so on RE2 (re2js): linear in the text whatever the pattern. RE2 has
 * no backreferences or lookaround; a pattern using them is refused when saved.
 */
export const MAX_REGEX_RULES = 10;

export type CompiledRule = { test(text: string): boolean };

const compiled = new Map<string, CompiledRule | null>();
const CACHE_LIMIT = 5_000;

function compile(pattern: string): CompiledRule {
  const re = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  return { test: (text) => re.matcher(text).find() };
}

/** The rule compiled (cached per pattern), or null when RE2 cannot compile it (it is then not applied). */
export function compileRule(pattern: string): CompiledRule | null {
  let rule = compiled.get(pattern);
  if (rule === undefined) {
    try {
      rule = compile(pattern);
    } catch {
      rule = null;
    }
    if (compiled.size >= CACHE_LIMIT) compiled.clear();
    compiled.set(pattern, rule);
  }
  return rule;
}

/** Why RE2 refuses a pattern (its parser names the construct, e.g. "invalid escape sequence: `\1`"), or null. */
export function regexProblem(pattern: string): string | null {
  try {
    compile(pattern);
    return null;
  } catch (err) {
    return (err as Error).message.replace(/^error parsing regexp: /, '');
  }
}

/** Refuses, at save time, a rule list RE2 cannot run: too many rules, or a pattern it cannot compile. */
export function checkCustomRegex(patterns: string[]): void {
  const details: ErrorDetail[] = [];
  if (patterns.length > MAX_REGEX_RULES) {
    details.push({
      in: 'body',
      path: 'settings.custom_rules.regex',
      message: `At most ${MAX_REGEX_RULES} regular expressions per form.`,
    });
  }
  patterns.forEach((pattern, i) => {
    const problem = regexProblem(pattern);
    if (problem) {
      details.push({
        in: 'body',
        path: `settings.custom_rules.regex.${i}`,
        message: `Not supported by the RE2 engine custom rules run on (${problem}); backreferences and lookaround are not available.`,
      });
    }
  });
  if (details.length) throw validationFailed(details, 'Invalid custom rule regular expression.');
}
