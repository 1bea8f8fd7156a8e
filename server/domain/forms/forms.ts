import type { z } from 'zod';
import type { CreateFormBody, Form as FormView, FormListQuery, UpdateFormBody } from '../../../contract/forms.ts';
import type { AppContext } from '../../context.ts';
import type { Sql, Tx } from '../../infra/db/database.ts';
import * as queries from '../../infra/db/queries/forms.ts';
import type { FormChanges, FormRecord } from '../../infra/db/queries/forms.ts';
import { iso } from '../shared/timestamps.ts';
import type { Caller } from '../accounts/caller.ts';
import { AppError, notFound } from '../shared/errors.ts';
import {
  DEFAULT_SETTINGS,
  disabledRules,
  formSettings,
  mergeSettings,
  storedSettings,
  type StoredSettings,
} from '../spam/stored-rules.ts';
import { recipientStatuses, requestConfirmations } from '../notifications/addresses.ts';
import { retentionStatus } from '../lifecycle/retention.ts';
import { retentionFacts } from '../../infra/db/queries/lifecycle.ts';
import { newId } from '../shared/ids.ts';
import { suggestSchema, type Sample } from './field-schema.ts';
import { samplePayloads } from '../submissions/payload-samples.ts';
import { inTeamScan } from '../accounts/team-scans.ts';
import { SUGGESTION_SAMPLE } from '../../../contract/costs.ts';
import { FORM_FIELD_LIMIT } from '../ingest/limits.ts';
import { uniqueKeysBackfill } from '../../infra/queue/definitions.ts';
import { addsUniqueRule } from './admission.ts';
import type { Stage } from '../../../contract/triage.ts';
import { assertStage, removedStages } from '../submissions/triage-rules.ts';
import { reassignStages, stagesInUse } from '../../infra/db/queries/submissions.ts';
import { releaseFormKeys } from '../../infra/db/queries/submission-inserts.ts';

/** A form's unique-rule backfill waits this long, so the rule changes of a few seconds share one. */
const BACKFILL_SLOT_SECONDS = 5;
import { pageEnvelope } from '../shared/pagination.ts';
import { removeObjectsLater } from '../lifecycle/object-removal.ts';
import { findTeamPlan } from '../accounts/teams.ts';

type Recipients = FormView['notification_recipients'];

export function toFormView(
  ctx: AppContext,
  f: FormRecord,
  submissionsCount: number,
  recipients: Recipients,
  retention: FormView['retention'],
): FormView {
  return {
    id: f.id,
    name: f.name,
    status: f.status as FormView['status'],
    endpoint_url: `${ctx.config.baseUrl}/f/${f.id}`,
    notification_emails: f.notificationEmails,
    notification_recipients: recipients,
    settings: formSettings(f.settings),
    disabled_rules: disabledRules(f.settings),
    submissions_count: submissionsCount,
    retention,
    created_at: iso(f.createdAt),
    updated_at: iso(f.updatedAt),
    deleted_at: f.deletedAt ? iso(f.deletedAt) : null,
  };
}

/** The forms as the API shows them, with their submission counts and the state of their addresses. */
async function views(ctx: AppContext, teamId: string, forms: FormRecord[]): Promise<FormView[]> {
  const counts = await queries.submissionCounts(
    ctx.db,
    teamId,
    forms.map((f) => f.id),
  );
  const statuses = new Map(
    (await recipientStatuses(ctx, teamId, [...new Set(forms.flatMap((f) => f.notificationEmails))])).map((r) => [
      r.email,
      r.status,
    ]),
  );
  const facts = await retentionFacts(
    ctx.db,
    teamId,
    forms.map((f) => f.id),
  );
  return forms.map((f) =>
    toFormView(
      ctx,
      f,
      counts.get(f.id) ?? 0,
      f.notificationEmails.map((email) => ({ email, status: statuses.get(email)! })),
      retentionStatus(facts.get(f.id)),
    ),
  );
}

async function view(ctx: AppContext, form: FormRecord): Promise<FormView> {
  return (await views(ctx, form.teamId, [form]))[0]!;
}

/** The autoresponder is a plan feature: turning it on needs a plan that has it (402). */
async function assertAutoresponderAllowed(on: Sql, teamId: string, settings: StoredSettings): Promise<void> {
  if (!settings.autoresponder.enabled) return;
  const plan = await findTeamPlan(on, teamId);
  if (!plan.autoresponder)
    throw new AppError('plan_limit_reached', `The ${plan.name} plan has no autoresponder. Upgrade to send one.`);
}

async function findForm(on: Sql, caller: Caller, id: string, opts: { trashed?: boolean } = {}): Promise<FormRecord> {
  const form = await queries.findForm(on, caller.teamId, id, opts);
  if (!form) throw notFound('Form');
  return form;
}

/** Changes a form of the caller's team (live ones only, unless `trashed`): not found otherwise. */
async function changeForm(
  on: Sql,
  caller: Caller,
  id: string,
  changes: FormChanges,
  opts: { trashed?: boolean } = {},
): Promise<FormRecord> {
  const form = await queries.updateForm(on, caller.teamId, id, changes, opts);
  if (!form) throw notFound('Form');
  return form;
}

async function assertFormAllowance(on: Sql, teamId: string): Promise<void> {
  const plan = await findTeamPlan(on, teamId);
  if (plan.maxForms === null || plan.maxForms === undefined) return;
  if ((await queries.countLiveForms(on, teamId)) >= plan.maxForms) {
    throw new AppError(
      'plan_limit_reached',
      `The ${plan.name} plan allows ${plan.maxForms} forms. Delete one or upgrade.`,
      {
        limit: plan.maxForms,
      },
    );
  }
}

export async function listForms(ctx: AppContext, caller: Caller, q: z.infer<typeof FormListQuery>) {
  const { forms, total } = await queries.pageOfForms(ctx.db, caller.teamId, {
    trashed: q.trashed,
    limit: q.per_page,
    offset: (q.page - 1) * q.per_page,
  });
  return pageEnvelope(await views(ctx, caller.teamId, forms), {
    page: q.page,
    perPage: q.per_page,
    total,
    baseUrl: ctx.config.baseUrl,
    path: '/v1/forms',
    query: { trashed: q.trashed },
  });
}

export async function createForm(
  ctx: AppContext,
  caller: Caller,
  input: z.infer<typeof CreateFormBody>,
): Promise<FormView> {
  const settings = mergeSettings(DEFAULT_SETTINGS, input.settings, ctx.keys.captchaSecrets);
  const form = await ctx.db.transaction(async (tx) => {
    await assertFormAllowance(tx, caller.teamId);
    await assertAutoresponderAllowed(tx, caller.teamId, settings);
    const created = await queries.insertForm(tx, {
      id: newId('frm'),
      teamId: caller.teamId,
      name: input.name,
      notificationEmails: input.notification_emails,
      settings,
    });
    await requestConfirmations(ctx, tx, caller.teamId, created.id, input.notification_emails);
    return created;
  });
  return view(ctx, form);
}

export async function getForm(ctx: AppContext, caller: Caller, id: string): Promise<FormView> {
  return view(ctx, await findForm(ctx.db, caller, id, { trashed: true }));
}

export async function updateForm(
  ctx: AppContext,
  caller: Caller,
  id: string,
  input: z.infer<typeof UpdateFormBody>,
): Promise<FormView> {
  const form = await ctx.db.transaction(async (tx) => {
    const f = await findForm(tx, caller, id);
    const changes: FormChanges = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.notification_emails !== undefined) changes.notificationEmails = input.notification_emails;
    if (input.settings !== undefined) {
      const current = storedSettings(f.settings);
      const { disabled_rules: _stored, ...merged } = mergeSettings(current, input.settings, ctx.keys.captchaSecrets);
      // Rules saved within the slot are read when the job runs: one backfill covers them all.
      if (addsUniqueRule(current.unique, merged.unique)) {
        await ctx.queue.send(
          uniqueKeysBackfill,
          { formId: id },
          { tx, singletonKey: id, singletonSeconds: BACKFILL_SLOT_SECONDS, startAfter: BACKFILL_SLOT_SECONDS },
        );
      }
      await moveRemovedStages(tx, caller, id, current.stages, merged.stages, input.reassign_stages);
      if (input.settings.autoresponder?.enabled) await assertAutoresponderAllowed(tx, caller.teamId, merged);
      // Saving the regex rules is the editor's answer to the disabled ones; other settings leave them listed.
      const disabled = input.settings.custom_rules?.regex !== undefined ? [] : disabledRules(f.settings);
      changes.settings = disabled.length ? { ...merged, disabled_rules: disabled } : merged;
    }
    await changeForm(tx, caller, id, changes);
    if (input.notification_emails !== undefined)
      await requestConfirmations(ctx, tx, caller.teamId, f.id, input.notification_emails);
    return f;
  });
  return view(ctx, form);
}

/**
 * Stages an update removes must hold no submission, or be mapped by `reassign_stages` to a stage kept (409
 * `conflict` naming the stages in use otherwise); the mapped submissions move, each with its activity.
 */
async function moveRemovedStages(
  tx: Tx,
  caller: Caller,
  formId: string,
  before: Stage[],
  after: Stage[],
  reassign: Record<string, string> = {},
): Promise<void> {
  const removed = removedStages(before, after);
  const moves: Record<string, string> = {};
  for (const [from, to] of Object.entries(reassign)) {
    if (!removed.includes(from)) continue;
    assertStage(after, to, 'body', `reassign_stages.${from}`);
    moves[from] = to;
  }
  const stranded = await stagesInUse(
    tx,
    caller.teamId,
    formId,
    removed.filter((k) => !(k in moves)),
  );
  if (stranded.length) {
    throw new AppError(
      'conflict',
      `Submissions are in the stage${stranded.length > 1 ? 's' : ''} ${stranded.join(', ')}: say where they go with reassign_stages ({ "<removed>": "<kept>" }).`,
      { stages: stranded },
    );
  }
  if (Object.keys(moves).length)
    await reassignStages(tx, formId, moves, { teamId: caller.teamId, userId: caller.userId, tokenId: caller.tokenId });
}

async function setStatus(
  ctx: AppContext,
  caller: Caller,
  id: string,
  status: 'draft' | 'published',
): Promise<FormView> {
  return view(ctx, await changeForm(ctx.db, caller, id, { status }));
}

export const publishForm = (ctx: AppContext, caller: Caller, id: string) => setStatus(ctx, caller, id, 'published');
export const unpublishForm = (ctx: AppContext, caller: Caller, id: string) => setStatus(ctx, caller, id, 'draft');

export async function deleteForm(ctx: AppContext, caller: Caller, id: string): Promise<void> {
  await changeForm(ctx.db, caller, id, { deletedAt: new Date() });
}

export async function restoreForm(ctx: AppContext, caller: Caller, id: string): Promise<FormView> {
  const form = await ctx.db.transaction(async (tx) => {
    const f = await findForm(tx, caller, id, { trashed: true });
    if (!f.deletedAt) return f;
    await assertFormAllowance(tx, caller.teamId);
    return changeForm(tx, caller, id, { deletedAt: null }, { trashed: true });
  });
  return view(ctx, form);
}

/** How long a force delete's statements may run: long enough for a form of millions of rows. */
const FORCE_DELETE_SECONDS = 600;

/**
 * Erases the form and everything beneath it. Rows go in one transaction (cascades); the storage
 * objects are removed by a job enqueued in that same transaction, so a crash cannot leave them behind.
 */
export async function forceDeleteForm(ctx: AppContext, caller: Caller, id: string): Promise<void> {
  if (caller.role !== 'owner' && caller.role !== 'admin') {
    throw new AppError('forbidden', 'Only owners and admins can permanently delete a form.');
  }
  await inTeamScan(ctx, caller.teamId, () =>
    ctx.db.transaction(async (tx) => {
      const form = await queries.lockForm(tx, caller.teamId, id);
      if (!form) throw notFound('Form');
      await queries.allowLongStatements(tx, FORCE_DELETE_SECONDS);
      await removeObjectsLater(ctx, tx, await queries.formStorageKeys(tx, caller.teamId, id));
      await releaseFormKeys(tx, caller.teamId, id);
      await queries.deleteForm(tx, caller.teamId, id);
      await queries.eraseFormCounters(tx, caller.teamId, id);
    }),
  );
}

/** The names the form has learned (its export columns), with the limit and whether any went past it. */
export async function listFormFields(ctx: AppContext, caller: Caller, id: string) {
  await findForm(ctx.db, caller, id, { trashed: true });
  const [fields, state] = await Promise.all([
    queries.learnedFields(ctx.db, caller.teamId, id),
    queries.fieldState(ctx.db, caller.teamId, id),
  ]);
  return {
    data: fields.map((f) => ({ name: f.name, first_seen_at: iso(f.first_seen_at) })),
    meta: { count: fields.length, limit: FORM_FIELD_LIMIT, overflow: state.overflow },
  };
}

/** Forgets names no stored submission has, and learns in their place names that went past the limit. */
export async function pruneFormFields(ctx: AppContext, caller: Caller, id: string) {
  await findForm(ctx.db, caller, id, { trashed: true });
  const removed = await inTeamScan(ctx, caller.teamId, () =>
    ctx.db.transaction((tx) => queries.pruneFields(tx, caller.teamId, id)),
  );
  const state = await queries.fieldState(ctx.db, caller.teamId, id);
  return { data: { removed }, meta: { count: state.count, limit: FORM_FIELD_LIMIT, overflow: state.overflow } };
}

/** A schema proposed from the form's newest inbox submissions (never saved: the editor reviews it). */
export async function suggestFormSchema(ctx: AppContext, caller: Caller, id: string) {
  await findForm(ctx.db, caller, id, { trashed: true });
  const samples: Sample[] = [];
  const [read, learned] = await Promise.all([
    samplePayloads(
      (after, rows, bytes) => queries.recentPayloadPage(ctx.db, caller.teamId, id, after, rows, bytes),
      SUGGESTION_SAMPLE,
      (row, payload) => samples.push({ payload: payload as Sample['payload'], fileFields: row.file_fields }),
    ),
    queries.learnedFields(ctx.db, caller.teamId, id),
  ]);
  const fields = suggestSchema(
    samples,
    learned.map((f) => f.name),
  );
  return { data: { fields, unknown_fields: 'keep' as const }, meta: { sampled: read.rows } };
}
