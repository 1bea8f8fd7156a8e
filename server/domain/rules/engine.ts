import type { RuleAction } from '../../../contract/rules.ts';
import type { RuleRow } from '../../infra/db/queries/rules.ts';
import {
  compileConditions,
  matches,
  traceConditions,
  type ConditionSubject,
  type StoredCondition,
} from './conditions.ts';

/**
 * How a form's rules run on one submission: in position order, each enabled rule of the event whose
 * conditions hold fires, until one with `stop`; a `fallback` rule fires only when no other rule did.
 */

export type RuleEvent = 'submission.created' | 'submission.spam';
export type RunnableRule = Pick<
  RuleRow,
  'id' | 'name' | 'enabled' | 'on_event' | 'when' | 'actions' | 'stop' | 'fallback'
>;
type Skipped = 'disabled' | 'other_event' | 'stopped' | 'fallback';

export type RuleTrace = {
  rule_id: string;
  conditions: ReturnType<typeof traceConditions>;
  holds: boolean;
  fired: boolean;
  skipped: Skipped | null;
};

export type RulesOutcome = { fired: RunnableRule[]; trace: RuleTrace[] };

/** Whether the rule's conditions hold; with `trace`, each condition's value and verdict (a dry run's). */
function evaluate(rule: RunnableRule, subject: ConditionSubject, trace: boolean): Omit<RuleTrace, 'fired' | 'skipped'> {
  const when = rule.when as { all?: StoredCondition[]; any?: StoredCondition[] };
  const mode = when.any ? 'any' : 'all';
  const compiled = compileConditions(when.any ?? when.all ?? []);
  if (!trace) return { rule_id: rule.id, conditions: [], holds: matches(compiled, subject, mode) };
  const conditions = traceConditions(compiled, subject);
  const holds =
    conditions.length === 0 || (mode === 'any' ? conditions.some((c) => c.holds) : conditions.every((c) => c.holds));
  return { rule_id: rule.id, conditions, holds };
}

export function runRules(
  rules: readonly RunnableRule[],
  event: RuleEvent,
  subject: ConditionSubject,
  opts: { trace?: boolean } = {},
): RulesOutcome {
  const trace = rules.map((rule) => ({
    ...evaluate(rule, subject, opts.trace ?? false),
    fired: false,
    skipped: null as Skipped | null,
  }));
  const fired: RunnableRule[] = [];
  let stopped = false;
  const fire = (i: number) => {
    trace[i]!.fired = true;
    fired.push(rules[i]!);
    if (rules[i]!.stop) stopped = true;
  };
  const fallbacks: number[] = [];
  rules.forEach((rule, i) => {
    const t = trace[i]!;
    if (!rule.enabled) t.skipped = 'disabled';
    else if (rule.on_event !== event) t.skipped = 'other_event';
    else if (stopped) t.skipped = 'stopped';
    else if (rule.fallback) fallbacks.push(i);
    else if (t.holds) fire(i);
  });
  const othersFired = fired.length > 0;
  for (const i of fallbacks) {
    if (othersFired) trace[i]!.skipped = 'fallback';
    else if (stopped) trace[i]!.skipped = 'stopped';
    else if (trace[i]!.holds) fire(i);
  }
  return { fired, trace };
}

/** What the fired rules do, gathered: every action of each, in order. */
export function actionsOf(fired: readonly RunnableRule[]): Array<{ rule_id: string; action: RuleAction }> {
  return fired.flatMap((rule) => (rule.actions as RuleAction[]).map((action) => ({ rule_id: rule.id, action })));
}
