import type { AppContext } from '../context.ts';
import { Invoice, Plan, Subscription } from '../db/entities.ts';
import { iso, queryOne } from '../db/sql.ts';
import type { Caller } from './caller.ts';
import { currentPeriod, type PlanIdValue } from './plans.ts';
import { findTeam } from './teams.ts';

export async function billingTeam(ctx: AppContext, caller: Caller) {
  const em = ctx.orm.em.fork();
  const team = await findTeam(em, caller.teamId);
  const row = await queryOne<{ members: string }>(em, 'select count(*) as members from memberships where team_id = ?', [team.id]);
  return { id: team.id, name: team.name, plan: team.planId as PlanIdValue, members: Number(row?.members ?? 0), created_at: iso(team.createdAt) };
}

export async function billingPlan(ctx: AppContext, caller: Caller) {
  const em = ctx.orm.em.fork();
  const team = await findTeam(em, caller.teamId);
  const plan = await em.findOneOrFail(Plan, { id: team.planId });
  return {
    id: plan.id as PlanIdValue,
    name: plan.name,
    price_cents: plan.priceCents,
    currency: 'usd',
    interval: 'month' as const,
    limits: {
      monthly_submissions: plan.monthlySubmissions ?? null,
      forms: plan.maxForms ?? null,
      storage_bytes: plan.storageBytes ?? null,
      file_bytes: plan.maxFileBytes,
    },
    features: { ai: plan.ai, api_tokens: plan.apiTokens, file_uploads: plan.fileUploads },
  };
}

/** Usage is read from the database: the period's submission counter, live forms, and stored file bytes. */
export async function billingUsage(ctx: AppContext, caller: Caller) {
  const em = ctx.orm.em.fork();
  const team = await findTeam(em, caller.teamId);
  const plan = await em.findOneOrFail(Plan, { id: team.planId });
  const period = currentPeriod();
  const usage = await queryOne<{ submissions: string; forms: string; storage: string }>(
    em,
    `select
       coalesce((select sum(submissions) from usage_counters where team_id = ? and period_start = ?), 0) as submissions,
       (select count(*) from forms where team_id = ? and deleted_at is null) as forms,
       coalesce((select sum(size_bytes) from submission_files where team_id = ?), 0) as storage`,
    [team.id, period.start, team.id, team.id],
  );
  const submissions = Number(usage?.submissions ?? 0);
  const limit = plan.monthlySubmissions ?? null;
  return {
    period_start: iso(period.start),
    period_end: iso(period.end),
    submissions: { used: submissions, limit, remaining: limit === null ? null : Math.max(0, limit - submissions) },
    forms: { used: Number(usage?.forms ?? 0), limit: plan.maxForms ?? null },
    storage_bytes: { used: Number(usage?.storage ?? 0), limit: plan.storageBytes ?? null },
  };
}

export async function billingSubscription(ctx: AppContext, caller: Caller) {
  const em = ctx.orm.em.fork();
  const sub = await em.findOneOrFail(Subscription, { teamId: caller.teamId });
  // Periods roll over lazily: the stored period is advanced when it is read after its end.
  const period = currentPeriod();
  if (new Date(sub.currentPeriodEnd) <= new Date()) {
    sub.currentPeriodStart = period.start;
    sub.currentPeriodEnd = period.end;
    await em.flush();
  }
  return {
    id: sub.id,
    plan: sub.planId as PlanIdValue,
    status: sub.status as 'active' | 'past_due' | 'canceled',
    current_period_start: iso(sub.currentPeriodStart),
    current_period_end: iso(sub.currentPeriodEnd),
    cancel_at_period_end: sub.cancelAtPeriodEnd,
    created_at: iso(sub.createdAt),
  };
}

export async function listInvoices(ctx: AppContext, caller: Caller) {
  const invoices = await ctx.orm.em.fork().find(Invoice, { teamId: caller.teamId }, { orderBy: { issuedAt: 'desc', id: 'desc' } });
  return invoices.map((i) => ({
    id: i.id,
    number: i.number,
    status: i.status as 'draft' | 'open' | 'paid' | 'void',
    currency: i.currency,
    amount_cents: i.amountCents,
    period_start: iso(i.periodStart),
    period_end: iso(i.periodEnd),
    issued_at: iso(i.issuedAt),
    paid_at: i.paidAt ? iso(i.paidAt) : null,
  }));
}
