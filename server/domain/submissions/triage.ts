import type { z } from 'zod';
import type { Stage, TriageUpdate } from '../../../contract/triage.ts';
import { MAX_TAG_COUNTS } from '../../../contract/triage.ts';
import type { SubmissionListQuery } from '../../../contract/submissions.ts';
import type { AppContext } from '../../context.ts';
import type { Sql, Tx } from '../../infra/db/database.ts';
import { findMember } from '../../infra/db/queries/accounts.ts';
import { findActor } from '../../infra/db/queries/submission-notes.ts';
import * as queries from '../../infra/db/queries/submissions.ts';
import type { Member, Selection, TriageSet } from '../../infra/db/queries/submissions.ts';
import type { Actor, TriageChanges } from '../../infra/outbound/providers.ts';
import { assignmentEmail } from '../../infra/queue/definitions.ts';
import type { Caller } from '../accounts/caller.ts';
import { inTeamScan } from '../accounts/team-scans.ts';
import { createUpdateDeliveries } from '../delivery/fan-out.ts';
import { requireFormSettings } from '../forms/live-form.ts';
import { validationFailed, type ErrorDetail } from '../shared/errors.ts';
import { isId, newId } from '../shared/ids.ts';
import { assertStage, changeTags, normalizeTags } from './triage-rules.ts';

/** Tags, stage and assignee: changing them on one submission or many, finding by them, counting them. */

export type TriageInput = z.infer<typeof TriageUpdate>;

/** A submission's triage as it is before a change. */
export type TriageState = { id: string; tags: string[]; stage: string; assignee: Member | null };

/** One submission's change: what to set, what changed (the event's `changes`), and the activity it records. */
export type TriagePlan = {
  set: TriageSet;
  changes: TriageChanges;
  events: queries.TriageEvent[];
  /** The new assignee, when the change gave it one. */
  assigned: Member | null;
};

/** Whether the input names any triage field. */
export const touchesTriage = (input: TriageInput): boolean =>
  input.tags !== undefined ||
  input.add_tags !== undefined ||
  input.remove_tags !== undefined ||
  input.stage !== undefined ||
  input.assignee_id !== undefined;

/** A member of the caller's team by id (null unassigns); anything else is a 400 naming `path`. */
export async function resolveAssignee(
  sql: Sql,
  caller: Caller,
  id: string | null,
  where: ErrorDetail['in'],
  path: string,
): Promise<Member | null> {
  if (id === null) return null;
  const member = isId('usr', id) ? await findMember(sql, caller.teamId, id) : undefined;
  if (!member) throw validationFailed([{ in: where, path, message: `"${id}" is not a member of this team.` }]);
  return member;
}

/**
 * What an input changes on one submission, or null when it changes nothing. `assignee` is the resolved
 * `assignee_id` (undefined when the input has none).
 */
export function planTriage(
  current: TriageState,
  input: TriageInput,
  stages: readonly Stage[],
  assignee: Member | null | undefined,
): TriagePlan | null {
  const plan: TriagePlan = { set: { id: current.id }, changes: {}, events: [], assigned: null };
  const record = (field: string, from: unknown, to: unknown) =>
    plan.events.push({ submissionId: current.id, field, from, to });
  const tags = changeTags(current.tags, input);
  if (tags && (tags.added.length || tags.removed.length || tags.tags.join() !== current.tags.join())) {
    plan.set.tags = tags.tags;
    if (tags.added.length || tags.removed.length) plan.changes.tags = { added: tags.added, removed: tags.removed };
    record('tags', current.tags, tags.tags);
  }
  if (input.stage !== undefined) {
    assertStage(stages, input.stage, 'body', 'stage');
    if (input.stage !== current.stage) {
      plan.set.stage = input.stage;
      plan.changes.stage = { from: current.stage, to: input.stage };
      record('stage', current.stage, input.stage);
    }
  }
  if (assignee !== undefined && (assignee?.id ?? null) !== (current.assignee?.id ?? null)) {
    plan.set.assigneeId = assignee?.id ?? null;
    plan.changes.assignee = { from: current.assignee, to: assignee };
    plan.assigned = assignee;
    record('assignee', current.assignee, assignee);
  }
  return plan.events.length ? plan : null;
}

/** The caller as the actor of a change. */
async function actorOf(sql: Sql, caller: Caller): Promise<Actor> {
  return findActor(sql, caller.teamId, caller.userId, caller.tokenId);
}

/**
 * Applies the plans in the caller's transaction: the fields, one activity event per change, a
 * `submission.updated` event to the form's webhooks subscribed to it, and an e-mail to each new assignee
 * other than the caller.
 */
export async function commitTriage(
  ctx: AppContext,
  tx: Tx,
  caller: Caller,
  formId: string,
  plans: TriagePlan[],
): Promise<void> {
  if (!plans.length) return;
  await queries.setTriage(
    tx,
    caller.teamId,
    plans.map((p) => p.set),
  );
  await queries.insertTriageEvents(
    tx,
    { teamId: caller.teamId, userId: caller.userId, tokenId: caller.tokenId },
    plans.flatMap((p) => p.events.map((e) => ({ ...e, id: newId('evt') }))),
  );
  const updates = plans.filter((p) => Object.keys(p.changes).length);
  if (updates.length) {
    const actor = await actorOf(tx, caller);
    await createUpdateDeliveries(
      ctx,
      tx,
      { teamId: caller.teamId, id: formId },
      updates.map((p) => ({ submissionId: p.set.id, changes: p.changes })),
      actor,
    );
  }
  for (const p of plans) {
    if (p.assigned && p.assigned.id !== caller.userId) {
      await ctx.queue.send(
        assignmentEmail,
        {
          submissionId: p.set.id,
          assigneeId: p.assigned.id,
          byUserId: caller.userId,
          teamId: caller.teamId,
          at: new Date().toISOString(),
        },
        { tx },
      );
    }
  }
}

type ListQuery = z.infer<typeof SubmissionListQuery>;

/** A list's triage filters resolved: tags as stored, the stage checked against the form's, `me` and `none`. */
export async function triageSelection(
  ctx: AppContext,
  caller: Caller,
  formId: string,
  q: Pick<ListQuery, 'tag' | 'stage' | 'assignee'>,
): Promise<Pick<Selection, 'tags' | 'stage' | 'assigneeId'>> {
  const selection: Pick<Selection, 'tags' | 'stage' | 'assigneeId'> = {};
  if (q.tag !== undefined) selection.tags = normalizeTags([q.tag].flat());
  if (q.stage !== undefined) {
    assertStage((await requireFormSettings(ctx, caller, formId)).stages, q.stage, 'query', 'stage');
    selection.stage = q.stage;
  }
  if (q.assignee !== undefined) {
    if (q.assignee === 'none') selection.assigneeId = null;
    else if (q.assignee === 'me') selection.assigneeId = caller.userId;
    else if (isId('usr', q.assignee)) selection.assigneeId = q.assignee;
    else
      throw validationFailed([{ in: 'query', path: 'assignee', message: 'Use `me`, `none` or a user id (`usr_…`).' }]);
  }
  return selection;
}

/** Each stage of the form with its inbox count: `new` is the inbox less the others (the stage index holds only those). */
export async function stagesWithCounts(ctx: AppContext, caller: Caller, formId: string) {
  const { stages } = await requireFormSettings(ctx, caller, formId);
  const [others, inbox] = await inTeamScan(ctx, caller.teamId, () =>
    Promise.all([
      queries.stageCounts(ctx.db, caller.teamId, formId),
      queries.countMatching(ctx.db, { teamId: caller.teamId, formId, folder: 'inbox' }),
    ]),
  );
  const elsewhere = [...others.values()].reduce((a, b) => a + b, 0);
  return {
    data: stages.map((s) => ({
      key: s.key,
      label: s.label,
      done: s.done,
      count: s.key === 'new' ? Math.max(0, inbox - elsewhere) : (others.get(s.key) ?? 0),
    })),
  };
}

export async function tagsWithCounts(ctx: AppContext, caller: Caller, formId: string) {
  await requireFormSettings(ctx, caller, formId);
  return {
    data: await inTeamScan(ctx, caller.teamId, () => queries.tagCounts(ctx.db, caller.teamId, formId, MAX_TAG_COUNTS)),
  };
}
