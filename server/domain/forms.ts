import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode, type InferEntity } from '@mikro-orm/core';
import type { z } from 'zod';
import type { CreateFormBody, Form as FormView, FormListQuery, UpdateFormBody } from '../../contract/forms.ts';
import type { AppContext } from '../context.ts';
import type { Sql, Tx } from '../db/database.ts';
import { Form, Plan } from '../db/entities.ts';
import * as queries from '../db/queries/forms.ts';
import { iso } from './timestamps.ts';
import { deleteObjects } from '../jobs/definitions.ts';
import type { Caller } from './caller.ts';
import { AppError, notFound } from './errors.ts';
import { DEFAULT_SETTINGS, disabledRules, formSettings, mergeSettings, storedSettings, type StoredSettings } from './form-rules.ts';
import { recipientStatuses, requestConfirmations } from './notification-addresses.ts';
import { retentionStatus } from './retention.ts';
import { retentionFacts } from '../db/queries/lifecycle.ts';
import { newId } from './ids.ts';
import { suggestSchema } from './field-schema.ts';
import { FORM_FIELD_LIMIT } from './ingest-limits.ts';
import { pageEnvelope } from './pagination.ts';
import { findTeam } from './teams.ts';

type FormRecord = InferEntity<typeof Form>;

const DELETE_OBJECTS_BATCH = 1000;

type Recipients = FormView['notification_recipients'];

export function toFormView(ctx: AppContext, f: FormRecord, submissionsCount: number, recipients: Recipients, retention: FormView['retention']): FormView {
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
  const counts = await queries.submissionCounts(ctx.db, forms.map((f) => f.id));
  const statuses = new Map((await recipientStatuses(ctx, teamId, [...new Set(forms.flatMap((f) => f.notificationEmails))])).map((r) => [r.email, r.status]));
  const facts = await retentionFacts(ctx.db, forms.map((f) => f.id));
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
async function assertAutoresponderAllowed(em: EntityManager, teamId: string, settings: StoredSettings): Promise<void> {
  if (!settings.autoresponder.enabled) return;
  const plan = await em.findOneOrFail(Plan, { id: (await findTeam(em, teamId)).planId });
  if (!plan.autoresponder) throw new AppError('plan_limit_reached', `The ${plan.name} plan has no autoresponder. Upgrade to send one.`);
}

async function findForm(em: EntityManager, caller: Caller, id: string, opts: { trashed?: boolean } = {}): Promise<FormRecord> {
  const form = await em.findOne(Form, { id, teamId: caller.teamId, ...(opts.trashed ? {} : { deletedAt: null }) });
  if (!form) throw notFound('Form');
  return form;
}

async function assertFormAllowance(em: EntityManager, sql: Sql, teamId: string): Promise<void> {
  const team = await findTeam(em, teamId);
  const plan = await em.findOneOrFail(Plan, { id: team.planId });
  if (plan.maxForms === null || plan.maxForms === undefined) return;
  if ((await queries.countLiveForms(sql, teamId)) >= plan.maxForms) {
    throw new AppError('plan_limit_reached', `The ${plan.name} plan allows ${plan.maxForms} forms. Delete one or upgrade.`, {
      limit: plan.maxForms,
    });
  }
}

export async function listForms(ctx: AppContext, caller: Caller, q: z.infer<typeof FormListQuery>) {
  const em = ctx.db.em();
  const where = {
    teamId: caller.teamId,
    ...(q.trashed === 'only' ? { deletedAt: { $ne: null } } : q.trashed === 'with' ? {} : { deletedAt: null }),
  };
  const [forms, total] = await em.findAndCount(Form, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: q.per_page,
    offset: (q.page - 1) * q.per_page,
  });
  return pageEnvelope(
    await views(ctx, caller.teamId, forms),
    { page: q.page, perPage: q.per_page, total, baseUrl: ctx.config.baseUrl, path: '/v1/forms', query: { trashed: q.trashed } },
  );
}

export async function createForm(ctx: AppContext, caller: Caller, input: z.infer<typeof CreateFormBody>): Promise<FormView> {
  const settings = mergeSettings(DEFAULT_SETTINGS, input.settings, ctx.keys.captchaSecrets);
  const form = await ctx.db.transaction(async (tx) => {
    await assertFormAllowance(tx.em, tx, caller.teamId);
    await assertAutoresponderAllowed(tx.em, caller.teamId, settings);
    const created = tx.em.create(Form, {
      id: newId('frm'),
      teamId: caller.teamId,
      name: input.name,
      status: 'draft',
      notificationEmails: input.notification_emails,
      settings,
      createdAt: new Date(),
      updatedAt: new Date(),
      deletedAt: null,
    });
    await tx.em.flush();
    await requestConfirmations(ctx, tx, caller.teamId, created.id, input.notification_emails);
    return created;
  });
  return view(ctx, form);
}

export async function getForm(ctx: AppContext, caller: Caller, id: string): Promise<FormView> {
  const em = ctx.db.em();
  return view(ctx, await findForm(em, caller, id, { trashed: true }));
}

export async function updateForm(ctx: AppContext, caller: Caller, id: string, input: z.infer<typeof UpdateFormBody>): Promise<FormView> {
  const form = await ctx.db.transaction(async (tx) => {
    const f = await findForm(tx.em, caller, id);
    if (input.name !== undefined) f.name = input.name;
    if (input.notification_emails !== undefined) f.notificationEmails = input.notification_emails;
    if (input.settings !== undefined) {
      const { disabled_rules: _stored, ...merged } = mergeSettings(storedSettings(f.settings), input.settings, ctx.keys.captchaSecrets);
      if (input.settings.autoresponder?.enabled) await assertAutoresponderAllowed(tx.em, caller.teamId, merged);
      // Saving the regex rules is the editor's answer to the disabled ones; other settings leave them listed.
      const disabled = input.settings.custom_rules?.regex !== undefined ? [] : disabledRules(f.settings);
      f.settings = disabled.length ? { ...merged, disabled_rules: disabled } : merged;
    }
    await tx.em.flush();
    if (input.notification_emails !== undefined) await requestConfirmations(ctx, tx, caller.teamId, f.id, input.notification_emails);
    return f;
  });
  return view(ctx, form);
}

async function setStatus(ctx: AppContext, caller: Caller, id: string, status: 'draft' | 'published'): Promise<FormView> {
  const em = ctx.db.em();
  const form = await findForm(em, caller, id);
  form.status = status;
  await em.flush();
  return view(ctx, form);
}

export const publishForm = (ctx: AppContext, caller: Caller, id: string) => setStatus(ctx, caller, id, 'published');
export const unpublishForm = (ctx: AppContext, caller: Caller, id: string) => setStatus(ctx, caller, id, 'draft');

export async function deleteForm(ctx: AppContext, caller: Caller, id: string): Promise<void> {
  const em = ctx.db.em();
  const form = await findForm(em, caller, id);
  form.deletedAt = new Date();
  await em.flush();
}

export async function restoreForm(ctx: AppContext, caller: Caller, id: string): Promise<FormView> {
  const form = await ctx.db.transaction(async (tx) => {
    const f = await findForm(tx.em, caller, id, { trashed: true });
    if (f.deletedAt) {
      await assertFormAllowance(tx.em, tx, caller.teamId);
      f.deletedAt = null;
    }
    return f;
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
  await ctx.db.transaction(async (tx) => {
    const form = await tx.em.findOne(Form, { id, teamId: caller.teamId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!form) throw notFound('Form');
    await queries.allowLongStatements(tx, FORCE_DELETE_SECONDS);
    await removeObjectsLater(ctx, tx, await queries.formStorageKeys(tx, id));
    await tx.em.remove(form).flush(); // submissions, files and events cascade; their delete trigger counts
    await queries.eraseFormCounters(tx, id);
  });
}

/** Storage objects outlive their rows only until this job runs (it is retried until they are gone). */
export async function removeObjectsLater(ctx: AppContext, tx: Tx, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += DELETE_OBJECTS_BATCH) {
    await ctx.queue.send(deleteObjects, { keys: keys.slice(i, i + DELETE_OBJECTS_BATCH) }, { tx });
  }
}

/** The names the form has learned (its export columns), with the limit and whether any went past it. */
export async function listFormFields(ctx: AppContext, caller: Caller, id: string) {
  await findForm(ctx.db.em(), caller, id, { trashed: true });
  const [fields, state] = await Promise.all([queries.learnedFields(ctx.db, id), queries.fieldState(ctx.db, id)]);
  return {
    data: fields.map((f) => ({ name: f.name, first_seen_at: iso(f.first_seen_at) })),
    meta: { count: fields.length, limit: FORM_FIELD_LIMIT, overflow: state.overflow },
  };
}

/** Forgets names no stored submission has, and learns in their place names that went past the limit. */
export async function pruneFormFields(ctx: AppContext, caller: Caller, id: string) {
  await findForm(ctx.db.em(), caller, id, { trashed: true });
  const removed = await ctx.db.transaction((tx) => queries.pruneFields(tx, id));
  const state = await queries.fieldState(ctx.db, id);
  return { data: { removed }, meta: { count: state.count, limit: FORM_FIELD_LIMIT, overflow: state.overflow } };
}

/** How many recent inbox submissions a suggested schema reads. */
const SUGGESTION_SAMPLE = 1000;

/** A schema proposed from the form's last 1,000 inbox submissions (never saved: the editor reviews it). */
export async function suggestFormSchema(ctx: AppContext, caller: Caller, id: string) {
  await findForm(ctx.db.em(), caller, id, { trashed: true });
  const [samples, learned] = await Promise.all([queries.recentPayloads(ctx.db, id, SUGGESTION_SAMPLE), queries.learnedFields(ctx.db, id)]);
  const fields = suggestSchema(
    samples.map((s) => ({ payload: s.payload, fileFields: s.file_fields })),
    learned.map((f) => f.name),
  );
  return { data: { fields, unknown_fields: 'keep' as const }, meta: { sampled: samples.length } };
}
