import { MAX_TAGS, type Stage } from '../../../contract/triage.ts';
import type { AppContext } from '../../context.ts';
import type { Sql, Tx } from '../../infra/db/database.ts';
import { findMember } from '../../infra/db/queries/accounts.ts';
import type { ProcessingRow } from '../../infra/db/queries/processing.ts';
import {
  insertTriageEvents,
  type Member,
  type TriageEvent,
  type TriageSet,
} from '../../infra/db/queries/submissions.ts';
import { assignmentEmail } from '../../infra/queue/definitions.ts';
import { newId } from '../shared/ids.ts';
import { normalizeTags } from '../submissions/triage-rules.ts';
import { planTriage, type TriagePlan } from '../submissions/triage.ts';
import type { ConditionSubject } from './conditions.ts';
import { effectsOf, type RuleEffects } from './effects.ts';
import { runRules, type RuleEvent } from './engine.ts';

/** The form's rules run on a submission in processing: what they do, and the triage they set on it. */

export type RulesRun = {
  effects: RuleEffects;
  /** The triage the rules set, and its activity (the rules themselves included). */
  triage: Omit<TriageSet, 'id'>;
  events: TriageEvent[];
  assigned: TriagePlan['assigned'];
};

/** Runs the rules for `event`; null when the form has none for it (nothing is recorded then). */
export async function runFormRules(
  sql: Sql,
  row: ProcessingRow,
  event: RuleEvent,
  subject: ConditionSubject,
  stages: readonly Stage[],
): Promise<RulesRun | null> {
  if (!row.rules.some((r) => r.on_event === event)) return null;
  const effects = effectsOf(runRules(row.rules, event, subject).fired);
  const run: RulesRun = { effects, triage: {}, events: [], assigned: null };
  if (effects.applied.length)
    run.events.push({ submissionId: row.id, field: 'rules', from: null, to: effects.applied.map((a) => a.name) });
  // A stage removed or a member gone since the rule was saved is left out, not an error: the rest still applies.
  const stage = effects.stage !== null && stages.some((s) => s.key === effects.stage) ? effects.stage : undefined;
  const assignee = effects.assigneeId === null ? undefined : await findMember(sql, row.team_id, effects.assigneeId);
  const current = {
    id: row.id,
    tags: row.tags,
    stage: row.stage,
    assignee: await assigneeBefore(sql, row, assignee),
  };
  const addTags = normalizeTags([...row.tags, ...effects.addTags]).slice(0, MAX_TAGS);
  const plan = planTriage(
    current,
    { ...(effects.addTags.length ? { tags: addTags } : {}), ...(stage ? { stage } : {}) },
    stages,
    assignee,
  );
  if (plan) {
    const { id: _id, ...set } = plan.set;
    run.triage = set;
    run.events.push(...plan.events);
    run.assigned = plan.assigned;
  }
  return run;
}

/** The submission's assignee as the activity's `from`: read only when a rule assigns someone else. */
async function assigneeBefore(sql: Sql, row: ProcessingRow, next: Member | undefined): Promise<Member | null> {
  if (!next || !row.assignee_id) return null;
  if (row.assignee_id === next.id) return next;
  return (await findMember(sql, row.team_id, row.assignee_id)) ?? null;
}

/** The rules' activity on the submission (no actor: the form's rules made it), and a mail to a new assignee. */
export async function recordRuleActivity(ctx: AppContext, tx: Tx, row: ProcessingRow, rules: RulesRun): Promise<void> {
  await insertTriageEvents(
    tx,
    { teamId: row.team_id, userId: null, tokenId: null },
    rules.events.map((e) => ({ ...e, id: newId('evt') })),
  );
  if (rules.assigned)
    await ctx.queue.send(
      assignmentEmail,
      {
        submissionId: row.id,
        assigneeId: rules.assigned.id,
        byUserId: null,
        teamId: row.team_id,
        at: new Date().toISOString(),
      },
      { tx },
    );
}
