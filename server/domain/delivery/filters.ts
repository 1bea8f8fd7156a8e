import type { FilterCondition } from '../../infra/db/queries/webhooks.ts';
import { compileConditions, evaluate, type ConditionSubject } from '../rules/conditions.ts';

/**
 * A webhook's filter over a submission event: every condition must hold, in the condition grammar of rules
 * (domain/rules/conditions.ts). `category` and `status` name the submission's own (its category, and
 * `processed` or `spam`), as `@category` does; any other name without `@` is a payload field. The
 * submission's other own values (`@ai_score`, `@spam_reason`, `@referrer`, `@source`) are absent unless the
 * subject carries them (conditionSubject builds the whole one from a stored submission).
 */
export type FilterSubject = Pick<ConditionSubject, 'payload' | 'category' | 'status'> & Partial<ConditionSubject>;

export function matchesFilter(filter: FilterCondition[], subject: FilterSubject): boolean {
  if (filter.length === 0) return true;
  return evaluate(compileConditions(filter, { legacyFields: true }), {
    ai_score: null,
    spam_reason: null,
    referrer: null,
    source: null,
    ...subject,
  });
}
