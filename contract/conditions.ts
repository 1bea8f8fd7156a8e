import { RE2JS } from 're2js';
import { z } from 'zod';
import { text } from './common.ts';

/**
 * The one condition grammar of per-form rules and webhook filters: `{ field, op, value }`. The domain
 * evaluates it (server/domain/rules/conditions.ts); this module says what is accepted.
 */

export const CONDITION_OPS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'in',
  'not_in',
  'gt',
  'gte',
  'lt',
  'lte',
  'exists',
  'not_exists',
  'matches',
] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];

/** What each op takes as `value`: text, a list of texts, a number, an RE2 pattern, or nothing. */
export const CONDITION_VALUE_KINDS = {
  equals: 'text',
  not_equals: 'text',
  contains: 'text',
  not_contains: 'text',
  starts_with: 'text',
  ends_with: 'text',
  in: 'list',
  not_in: 'list',
  gt: 'number',
  gte: 'number',
  lt: 'number',
  lte: 'number',
  exists: 'none',
  not_exists: 'none',
  matches: 'pattern',
} as const satisfies Record<ConditionOp, 'text' | 'list' | 'number' | 'pattern' | 'none'>;

/** The submission's own values a condition can name, beside payload fields. */
export const CONDITION_FIELDS = ['@category', '@ai_score', '@spam_reason', '@referrer', '@source'] as const;
export type ConditionField = (typeof CONDITION_FIELDS)[number];

/** A rule's `when` and a webhook's filter hold at most this many conditions. */
export const MAX_CONDITIONS = 10;

export const CONDITION_LIMITS = {
  /** Characters of a field name. */
  field: 200,
  /** Characters of a text value, and of each item of an `in` / `not_in` list. */
  value: 1000,
  /** Items of an `in` / `not_in` list. */
  list: 50,
  /** Characters of a `matches` pattern. */
  pattern: 200,
  /**
   * Instructions of a compiled `matches` pattern. RE2 runs in time linear in the text, times the program's
   * size: `[a-z]{1000}` repeated fills 200 characters with a program that takes seconds on a long message.
   */
  patternProgram: 500,
} as const;

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;

/** A number, or a string that is a decimal number once trimmed (`" 42 "`, `-1.5`, `2e3`); otherwise null. */
export function toConditionNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  if (!DECIMAL.test(trimmed)) return null;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : null;
}

/** RE2 as conditions run it: case-insensitive, matching anywhere in the text. Throws when it does not compile. */
export function compilePattern(pattern: string): RE2JS {
  return RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
}

/** Why a `matches` pattern is refused (RE2's parser names the construct), or null. */
export function patternProblem(pattern: string): string | null {
  let re: RE2JS;
  try {
    re = compilePattern(pattern);
  } catch (err) {
    const why = (err as Error).message.replace(/^error parsing regexp: /, '');
    return `Not an RE2 pattern (${why}); backreferences and lookaround are not available.`;
  }
  const size = re.programSize();
  if (size > CONDITION_LIMITS.patternProgram)
    return `The pattern is too large once compiled (${size} instructions, at most ${CONDITION_LIMITS.patternProgram}): use smaller repeat counts.`;
  return null;
}

const TextValue = text(z.string().max(CONDITION_LIMITS.value));

const Value = z
  .union([
    TextValue,
    z.number(),
    z.array(text(z.string().max(CONDITION_LIMITS.value, `At most ${CONDITION_LIMITS.value} characters an item.`))),
  ])
  .optional()
  .describe(
    `By op: a string (at most ${CONDITION_LIMITS.value} characters) for equals, not_equals, contains, not_contains, ` +
      `starts_with, ends_with; a list of 1–${CONDITION_LIMITS.list} strings for in, not_in; a number (or a numeric string) ` +
      `for gt, gte, lt, lte; an RE2 pattern of at most ${CONDITION_LIMITS.pattern} characters for matches (no backreferences ` +
      `nor lookaround; at most ${CONDITION_LIMITS.patternProgram} instructions once compiled, so no large repeat counts); none for ` +
      'exists, not_exists.',
  );

function checkField(field: string): boolean {
  return !field.startsWith('@') || (CONDITION_FIELDS as readonly string[]).includes(field);
}

type Shape = { op: ConditionOp; value?: string | number | string[] | undefined };

/** The value `op` takes, or why not: the issue goes on `value`. */
function valueProblem({ op, value }: Shape): string | null {
  const kind = CONDITION_VALUE_KINDS[op];
  if (kind === 'none') return value === undefined ? null : `\`${op}\` takes no value.`;
  if (value === undefined) return `A value is required with \`${op}\`.`;
  switch (kind) {
    case 'text':
      return typeof value === 'string' ? null : `\`${op}\` compares text: the value must be a string.`;
    case 'list':
      return Array.isArray(value) && value.length >= 1 && value.length <= CONDITION_LIMITS.list
        ? null
        : `\`${op}\` takes a list of 1 to ${CONDITION_LIMITS.list} strings.`;
    case 'number':
      return toConditionNumber(value) !== null
        ? null
        : `\`${op}\` compares numbers: the value must be a finite number.`;
    case 'pattern':
      if (typeof value !== 'string') return '`matches` takes an RE2 pattern as a string.';
      if (value.length > CONDITION_LIMITS.pattern)
        return `A pattern has at most ${CONDITION_LIMITS.pattern} characters.`;
      return patternProblem(value);
  }
}

/** What every condition schema's description says of the ops. */
export const CONDITION_SEMANTICS =
  'Text compares case-insensitively: equals, contains, starts_with, ends_with as their names say; in: equals one of ' +
  'the list. On a list field, a positive op holds when any item does; not_equals, ' +
  'not_contains and not_in hold when the positive op does not (no item equals, contains or is in the list), so they ' +
  'hold on a missing field too. gt, gte, lt, lte compare numbers: the field must be a number or a string that is one ' +
  'once trimmed, otherwise the condition does not hold. exists: the field is present and not empty or blank; ' +
  'not_exists: the opposite. matches: the RE2 pattern is found anywhere in the text, case-insensitive.';

/** The `@` names, described. */
export const CONDITION_FIELDS_DESCRIPTION =
  '`@category` (the AI category), `@ai_score` (the AI spam score, 0 to 1), `@spam_reason`, `@referrer` (the ' +
  "page's URL), `@source` (`form` or `api`): the submission's own";

/**
 * A condition schema, `field` described for where it is used (a webhook filter also reads its legacy names).
 * Strict; the value is checked against the op, and a `matches` pattern is compiled, so every route refuses one
 * RE2 cannot run.
 */
export function conditionSchema(fieldDescription: string) {
  return z
    .object({
      field: text(z.string().min(1).max(CONDITION_LIMITS.field))
        .refine(checkField, (field) => ({
          message: `Unknown field \`${field}\`: a name starting with @ is one of ${CONDITION_FIELDS.join(', ')}.`,
        }))
        .describe(fieldDescription),
      op: z.enum(CONDITION_OPS),
      value: Value,
    })
    .strict()
    .superRefine((c, ctx) => {
      const problem = valueProblem(c);
      if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['value'], message: problem });
    });
}

export const Condition = conditionSchema(`A payload field name, or one of ${CONDITION_FIELDS_DESCRIPTION}.`).describe(
  `One condition on a submission. ${CONDITION_SEMANTICS}`,
);
export type Condition = z.infer<typeof Condition>;
