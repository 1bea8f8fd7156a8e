import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferEntity } from '@mikro-orm/core';
import type { z } from 'zod';
import type { CreateFormBody, Form as FormView, FormListQuery, FormSettings, UpdateFormBody } from '../../contract/forms.ts';
import type { AppContext } from '../context.ts';
import { Form, Plan } from '../db/entities.ts';
import { iso, queryOne, withTransaction } from '../db/sql.ts';
import { deleteObjects } from '../jobs/definitions.ts';
import type { Caller } from './caller.ts';
import { AppError, notFound } from './errors.ts';
import { DEFAULT_SETTINGS, mergeSettings } from './form-rules.ts';
import { newId } from './ids.ts';
import { pageEnvelope } from './pagination.ts';
import { findTeam } from './teams.ts';

type FormRecord = InferEntity<typeof Form>;

export function formSettings(form: { settings: unknown }): FormSettings {
  const stored = (form.settings ?? {}) as Partial<FormSettings>;
  return { ...DEFAULT_SETTINGS, ...stored, custom_rules: { ...DEFAULT_SETTINGS.custom_rules, ...(stored.custom_rules ?? {}) } };
}

export function toFormView(ctx: AppContext, f: FormRecord, submissionsCount: number): FormView {
  return {
    id: f.id,
    name: f.name,
    status: f.status as FormView['status'],
    endpoint_url: `${ctx.config.baseUrl}/f/${f.id}`,
    notification_emails: f.notificationEmails,
    settings: formSettings(f),
    submissions_count: submissionsCount,
    created_at: iso(f.createdAt),
    updated_at: iso(f.updatedAt),
    deleted_at: f.deletedAt ? iso(f.deletedAt) : null,
  };
}

async function submissionCounts(ctx: AppContext, formIds: string[]): Promise<Map<string, number>> {
  if (!formIds.length) return new Map();
  const { rows } = await ctx.pool.query<{ form_id: string; n: string }>(
    'select form_id, sum(n) as n from form_folder_counts where form_id = any($1::text[]) group by form_id',
    [formIds],
  );
  return new Map(rows.map((r) => [r.form_id, Number(r.n)]));
}

async function view(ctx: AppContext, form: FormRecord): Promise<FormView> {
  const counts = await submissionCounts(ctx, [form.id]);
  return toFormView(ctx, form, counts.get(form.id) ?? 0);
}

async function findForm(em: EntityManager, caller: Caller, id: string, opts: { trashed?: boolean } = {}): Promise<FormRecord> {
  const form = await em.findOne(Form, { id, teamId: caller.teamId, ...(opts.trashed ? {} : { deletedAt: null }) });
  if (!form) throw notFound('Form');
  return form;
}

async function assertFormAllowance(em: EntityManager, teamId: string): Promise<void> {
  const team = await findTeam(em, teamId);
  const plan = await em.findOneOrFail(Plan, { id: team.planId });
  if (plan.maxForms === null || plan.maxForms === undefined) return;
  const row = await queryOne<{ n: string }>(em, 'select count(*) as n from forms where team_id = ? and deleted_at is null', [teamId]);
  if (Number(row?.n ?? 0) >= plan.maxForms) {
    throw new AppError('plan_limit_reached', `The ${plan.name} plan allows ${plan.maxForms} forms. Delete one or upgrade.`, {
      limit: plan.maxForms,
    });
  }
}

export async function listForms(ctx: AppContext, caller: Caller, q: z.infer<typeof FormListQuery>) {
  const em = ctx.orm.em.fork();
  const where = {
    teamId: caller.teamId,
    ...(q.trashed === 'only' ? { deletedAt: { $ne: null } } : q.trashed === 'with' ? {} : { deletedAt: null }),
  };
  const [forms, total] = await em.findAndCount(Form, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: q.per_page,
    offset: (q.page - 1) * q.per_page,
  });
  const counts = await submissionCounts(ctx, forms.map((f) => f.id));
  return pageEnvelope(
    forms.map((f) => toFormView(ctx, f, counts.get(f.id) ?? 0)),
    { page: q.page, perPage: q.per_page, total, baseUrl: ctx.config.baseUrl, path: '/v1/forms', query: { trashed: q.trashed } },
  );
}

export async function createForm(ctx: AppContext, caller: Caller, input: z.infer<typeof CreateFormBody>): Promise<FormView> {
  const settings = mergeSettings(DEFAULT_SETTINGS, input.settings);
  const form = await ctx.orm.em.fork().transactional(async (em) => {
    await assertFormAllowance(em, caller.teamId);
    return em.create(Form, {
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
  });
  return toFormView(ctx, form, 0);
}

export async function getForm(ctx: AppContext, caller: Caller, id: string): Promise<FormView> {
  const em = ctx.orm.em.fork();
  return view(ctx, await findForm(em, caller, id, { trashed: true }));
}

export async function updateForm(ctx: AppContext, caller: Caller, id: string, input: z.infer<typeof UpdateFormBody>): Promise<FormView> {
  const em = ctx.orm.em.fork();
  const form = await findForm(em, caller, id);
  if (input.name !== undefined) form.name = input.name;
  if (input.notification_emails !== undefined) form.notificationEmails = input.notification_emails;
  if (input.settings !== undefined) form.settings = mergeSettings(formSettings(form), input.settings);
  await em.flush();
  return view(ctx, form);
}

async function setStatus(ctx: AppContext, caller: Caller, id: string, status: 'draft' | 'published'): Promise<FormView> {
  const em = ctx.orm.em.fork();
  const form = await findForm(em, caller, id);
  form.status = status;
  await em.flush();
  return view(ctx, form);
}

export const publishForm = (ctx: AppContext, caller: Caller, id: string) => setStatus(ctx, caller, id, 'published');
export const unpublishForm = (ctx: AppContext, caller: Caller, id: string) => setStatus(ctx, caller, id, 'draft');

export async function deleteForm(ctx: AppContext, caller: Caller, id: string): Promise<void> {
  const em = ctx.orm.em.fork();
  const form = await findForm(em, caller, id);
  form.deletedAt = new Date();
  await em.flush();
}

export async function restoreForm(ctx: AppContext, caller: Caller, id: string): Promise<FormView> {
  const em = ctx.orm.em.fork();
  const form = await em.transactional(async (em) => {
    const f = await findForm(em, caller, id, { trashed: true });
    if (f.deletedAt) {
      await assertFormAllowance(em, caller.teamId);
      f.deletedAt = null;
    }
    return f;
  });
  return view(ctx, form);
}

/**
 * Erases the form and everything beneath it. Rows go in one transaction (cascades); the storage
 * objects are removed by a job enqueued in that same transaction, so a crash cannot leave them behind.
 */
export async function forceDeleteForm(ctx: AppContext, caller: Caller, id: string): Promise<void> {
  if (caller.role !== 'owner' && caller.role !== 'admin') {
    throw new AppError('forbidden', 'Only owners and admins can permanently delete a form.');
  }
  await withTransaction(ctx.pool, async (client) => {
    const { rows } = await client.query<{ id: string }>('select id from forms where id = $1 and team_id = $2 for update', [id, caller.teamId]);
    if (!rows.length) throw notFound('Form');
    const files = await client.query<{ storage_key: string }>('select storage_key from submission_files where form_id = $1', [id]);
    await client.query('delete from forms where id = $1', [id]);
    await client.query('delete from form_folder_counts where form_id = $1', [id]);
    const keys = files.rows.map((r) => r.storage_key);
    for (let i = 0; i < keys.length; i += 1000) {
      await ctx.queue.send(deleteObjects, { keys: keys.slice(i, i + 1000) }, { db: client });
    }
  });
}
