import type { FilterCondition } from '../../infra/db/queries/webhooks.ts';

/**
 * A webhook's filter over a submission event: every condition must hold. `category` and `status` name the
 * submission's own (its category, and `processed` or `spam`); any other field is looked up in the payload.
 * Values are compared as text, case-insensitive, so `"Sales"` matches a category `sales` and a field `42`
 * matches the number 42; a list field matches when any of its items does.
 */
export type FilterSubject = { payload: Record<string, unknown>; category: string | null; status: 'processed' | 'spam' };

function valuesOf(subject: FilterSubject, field: string): string[] {
  if (field === 'category') return subject.category === null ? [] : [subject.category];
  if (field === 'status') return [subject.status];
  if (!Object.hasOwn(subject.payload, field)) return [];
  const v = subject.payload[field];
  const items = Array.isArray(v) ? v : [v];
  return items.flatMap((item) =>
    item === null || item === undefined
      ? []
      : [typeof item === 'object' ? JSON.stringify(item) : String(item as string | number | boolean)],
  );
}

const fold = (s: string) => s.toLocaleLowerCase('en-US');

function holds(subject: FilterSubject, c: FilterCondition): boolean {
  const values = valuesOf(subject, c.field).map(fold);
  const wanted = fold(c.value ?? '');
  switch (c.op) {
    case 'exists':
      return values.some((v) => v.trim() !== '');
    case 'equals':
      return values.includes(wanted);
    case 'not_equals':
      return !values.includes(wanted);
    case 'contains':
      return values.some((v) => v.includes(wanted));
    default:
      // Stored filters passed the contract's list; an op from a later version matches nothing rather than everything.
      return false;
  }
}

export function matchesFilter(filter: FilterCondition[], subject: FilterSubject): boolean {
  return filter.every((c) => holds(subject, c));
}
