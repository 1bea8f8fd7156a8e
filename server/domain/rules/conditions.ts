import type { RE2JS } from 're2js';
import {
  compilePattern,
  CONDITION_FIELDS,
  CONDITION_VALUE_KINDS,
  toConditionNumber,
  type ConditionOp,
} from '../../../contract/conditions.ts';
import type { SubmissionRow } from '../../infra/db/queries/submissions.ts';

/**
 * Evaluates the condition grammar of rules and webhook filters (contract/conditions.ts) on a submission.
 * Compile once per set of conditions (text values folded, numbers parsed, RE2 compiled and cached per
 * pattern), then evaluate against any number of subjects. A condition that is not valid as stored (an op
 * or value from elsewhere) never holds, negated or not: it matches nothing rather than everything.
 */

/** What conditions read: the payload and the submission's own values (null: absent). */
export type ConditionSubject = {
  payload: Record<string, unknown>;
  category: string | null;
  ai_score: number | null;
  spam_reason: string | null;
  referrer: string | null;
  source: 'form' | 'api' | null;
  /** Only webhook filters' legacy `status` reads it. */
  status: 'processed' | 'spam' | null;
};

/** A condition as stored: validated on the way in, but read back loosely. */
export type StoredCondition = { field: string; op: string; value?: unknown };

type Read = (subject: ConditionSubject) => unknown;
type Test = (raw: unknown) => boolean;
export type CompiledCondition = { condition: StoredCondition; read: Read; test: Test };
export type CompiledConditions = readonly CompiledCondition[];

/** A condition's value as a trace shows it: as written, null when it has none. */
type TracedValue = string | number | string[] | null;
export type ConditionTrace = { field: string; op: string; value: TracedValue; actual: unknown; holds: boolean };

const OWN: Record<(typeof CONDITION_FIELDS)[number], Read> = {
  '@category': (s) => s.category,
  '@ai_score': (s) => s.ai_score,
  '@spam_reason': (s) => s.spam_reason,
  '@referrer': (s) => s.referrer,
  '@source': (s) => s.source,
};
/** A webhook filter's names for the submission's own, from before the `@` names. */
const LEGACY: Record<string, Read> = { category: (s) => s.category, status: (s) => s.status };

const NEGATED: Partial<Record<ConditionOp, ConditionOp>> = {
  not_equals: 'equals',
  not_contains: 'contains',
  not_in: 'in',
  not_exists: 'exists',
};

const fold = (s: string) => s.toLocaleLowerCase('en-US');

/**
 * Compiled patterns of the process, least recently used first; null: RE2 refused it. Compiling one costs
 * about half a millisecond and keeps ~15 KB (with its DFA states): 2,000 cover many forms of 50 rules.
 */
const patterns = new Map<string, RE2JS | null>();
const PATTERN_CACHE_LIMIT = 2_000;

function pattern(source: string): RE2JS | null {
  let re = patterns.get(source);
  if (re !== undefined) {
    patterns.delete(source);
  } else {
    try {
      re = compilePattern(source);
    } catch {
      re = null;
    }
    if (patterns.size >= PATTERN_CACHE_LIMIT) patterns.delete(patterns.keys().next().value!);
  }
  patterns.set(source, re);
  return re;
}

function reader(field: string, legacy: boolean): Read {
  if (Object.hasOwn(OWN, field)) return OWN[field as keyof typeof OWN];
  if (legacy && Object.hasOwn(LEGACY, field)) return LEGACY[field]!;
  return (s) => (Object.hasOwn(s.payload, field) ? s.payload[field] : undefined);
}

/** The value's items: a list's elements, or the value alone; null and absent are none. */
function items(raw: unknown): unknown[] {
  if (raw === null || raw === undefined) return [];
  return Array.isArray(raw) ? raw.filter((v) => v !== null && v !== undefined) : [raw];
}

/** An item as text: an object as its JSON. */
function asText(item: unknown): string {
  return typeof item === 'object' ? JSON.stringify(item) : String(item as string | number | boolean);
}

const anyText =
  (pred: (text: string) => boolean): Test =>
  (raw) =>
    items(raw).some((item) => pred(fold(asText(item))));

const anyNumber =
  (pred: (n: number) => boolean): Test =>
  (raw) =>
    items(raw).some((item) => {
      const n = toConditionNumber(item);
      return n !== null && pred(n);
    });

/** The test of a positive op, or null when its value does not fit it. */
function positive(op: ConditionOp, value: unknown): Test | null {
  const kind = CONDITION_VALUE_KINDS[op];
  if (kind === 'text' && typeof value !== 'string') return null;
  const want = typeof value === 'string' ? fold(value) : '';
  switch (op) {
    case 'exists':
      return (raw) => items(raw).some((item) => asText(item).trim() !== '');
    case 'equals':
      return anyText((v) => v === want);
    case 'contains':
      return anyText((v) => v.includes(want));
    case 'starts_with':
      return anyText((v) => v.startsWith(want));
    case 'ends_with':
      return anyText((v) => v.endsWith(want));
    case 'in': {
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return null;
      const set = new Set(value.map(fold));
      return anyText((v) => set.has(v));
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const bound = toConditionNumber(value);
      if (bound === null) return null;
      if (op === 'gt') return anyNumber((n) => n > bound);
      if (op === 'gte') return anyNumber((n) => n >= bound);
      if (op === 'lt') return anyNumber((n) => n < bound);
      return anyNumber((n) => n <= bound);
    }
    case 'matches': {
      const re = typeof value === 'string' ? pattern(value) : null;
      if (!re) return null;
      // RE2 folds case itself; the text is matched as it is. `test` runs RE2's DFA (no match positions).
      return (raw) => items(raw).some((item) => re.test(asText(item)));
    }
    default:
      return null;
  }
}

const never: Test = () => false;

function compileOne(condition: StoredCondition, legacy: boolean): CompiledCondition {
  const op = condition.op as ConditionOp;
  const known = Object.hasOwn(CONDITION_VALUE_KINDS, op);
  const base = NEGATED[op];
  const test = known ? positive(base ?? op, condition.value) : null;
  return {
    condition,
    read: reader(condition.field, legacy),
    test: test === null ? never : base ? (raw) => !test(raw) : test,
  };
}

/**
 * The conditions ready to evaluate. `legacyFields`: a webhook filter's, where `category` and `status` name
 * the submission's own rather than payload fields.
 */
export function compileConditions(
  conditions: readonly StoredCondition[],
  opts: { legacyFields?: boolean } = {},
): CompiledConditions {
  return conditions.map((c) => compileOne(c, opts.legacyFields ?? false));
}

/** Whether all (`all`) or at least one (`any`) of the conditions hold; no conditions always hold. */
export function matches(compiled: CompiledConditions, subject: ConditionSubject, mode: 'all' | 'any'): boolean {
  if (compiled.length === 0) return true;
  const holds = (c: CompiledCondition) => c.test(c.read(subject));
  return mode === 'all' ? compiled.every(holds) : compiled.some(holds);
}

/** Whether all the conditions hold. */
export function evaluate(compiled: CompiledConditions, subject: ConditionSubject): boolean {
  return matches(compiled, subject, 'all');
}

/** The value as written when the grammar allows it; otherwise (none, or not valid as stored) null. */
function tracedValue(value: unknown): TracedValue {
  if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  return null;
}

/** Every condition with what it read (the field's raw value, null when absent) and whether it held. */
export function traceConditions(compiled: CompiledConditions, subject: ConditionSubject): ConditionTrace[] {
  return compiled.map(({ condition, read, test }) => {
    const actual = read(subject);
    return {
      field: condition.field,
      op: condition.op,
      value: tracedValue(condition.value),
      actual: actual ?? null,
      holds: test(actual),
    };
  });
}

/** A stored submission as conditions read it, in the status it is evaluated for. */
export function conditionSubject(
  row: Pick<SubmissionRow, 'payload' | 'category' | 'ai_moderation' | 'spam_reason' | 'metadata' | 'api_token_id'>,
  status: 'processed' | 'spam',
): ConditionSubject {
  return {
    payload: row.payload,
    category: row.category,
    ai_score: row.ai_moderation?.score ?? null,
    spam_reason: row.spam_reason,
    referrer: row.metadata.referrer ?? null,
    source: row.api_token_id ? 'api' : 'form',
    status,
  };
}
