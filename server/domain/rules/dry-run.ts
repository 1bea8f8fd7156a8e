import type { z } from 'zod';
import type { TestRulesBody } from '../../../contract/rules.ts';
import type { Stage } from '../../../contract/triage.ts';
import type { AppContext } from '../../context.ts';
import * as queries from '../../infra/db/queries/rules.ts';
import { findSubmission } from '../../infra/db/queries/submissions.ts';
import { requireAbility, type Caller } from '../accounts/caller.ts';
import { requireFormSettings } from '../forms/live-form.ts';
import { notFound } from '../shared/errors.ts';
import { isId } from '../shared/ids.ts';
import { conditionSubject, type ConditionSubject } from './conditions.ts';
import { actionsOf, runRules, type RuleEvent, type RunnableRule } from './engine.ts';
import { checkActions } from './rules.ts';

/** `POST …/rules/test`: the rules run on a submission or a payload with a trace; nothing is sent, stored or changed. */

type Input = z.infer<typeof TestRulesBody>;

async function subjectOf(
  ctx: AppContext,
  caller: Caller,
  formId: string,
  input: Input,
): Promise<{ event: RuleEvent; subject: ConditionSubject }> {
  if (input.submission_id === undefined) {
    const subject = {
      payload: input.payload ?? {},
      category: null,
      ai_score: null,
      spam_reason: null,
      referrer: null,
      source: 'form' as const,
      status: 'processed' as const,
    };
    return { event: 'submission.created', subject };
  }
  // The trace shows the submission's values: reading them needs what reading the submission needs.
  requireAbility(caller, 'submissions:read');
  const id = input.submission_id;
  const row = isId('subm', id) ? await findSubmission(ctx.db, caller.teamId, formId, id) : undefined;
  if (!row) throw notFound('Submission');
  const spam = row.status === 'spam';
  return {
    event: spam ? 'submission.spam' : 'submission.created',
    subject: conditionSubject(row, spam ? 'spam' : 'processed'),
  };
}

async function rulesOf(
  ctx: AppContext,
  caller: Caller,
  form: { id: string; stages: readonly Stage[] },
  input: Input,
): Promise<RunnableRule[]> {
  if (!input.rules) return queries.listRules(ctx.db, caller.teamId, form.id);
  for (const [i, r] of input.rules.entries()) await checkActions(ctx.db, caller, form, r.actions, `rules.${i}.actions`);
  return input.rules.map((r, i) => ({
    id: r.id ?? `draft_${i + 1}`,
    name: r.name,
    enabled: r.enabled,
    on_event: r.on,
    when: r.when,
    actions: r.actions,
    stop: r.stop,
    fallback: r.fallback,
  }));
}

export async function testRules(ctx: AppContext, caller: Caller, formId: string, input: Input) {
  const { stages } = await requireFormSettings(ctx, caller, formId);
  const { event, subject } = await subjectOf(ctx, caller, formId, input);
  const rules = await rulesOf(ctx, caller, { id: formId, stages }, input);
  const { fired, trace } = runRules(rules, event, subject, { trace: true });
  return { event, fired: fired.map((r) => r.id), actions: actionsOf(fired), trace };
}
