import type { AppContext } from '../../context.ts';
import * as queries from '../../infra/db/queries/accounts.ts';
import { findSubscription, listInvoices as invoicesOf, setSubscriptionPeriod } from '../../infra/db/queries/billing.ts';
import type { Caller } from './caller.ts';
import { currentPeriod, type PlanIdValue } from './plans.ts';
import { findTeam, findTeamPlan } from './teams.ts';
import { iso } from '../shared/timestamps.ts';

export async function billingTeam(ctx: AppContext, caller: Caller) {
  const team = await findTeam(ctx.db, caller.teamId);
  const members = await queries.memberCount(ctx.db, team.id);
  return { id: team.id, name: team.name, plan: team.planId as PlanIdValue, members, created_at: iso(team.createdAt) };
}

export async function billingPlan(ctx: AppContext, caller: Caller) {
  const plan = await findTeamPlan(ctx.db, caller.teamId);
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
    features: {
      ai: plan.ai,
      api_tokens: plan.apiTokens,
      file_uploads: plan.fileUploads,
      autoresponder: plan.autoresponder,
    },
  };
}

/** Usage is read from the database: the period's submission counter, live forms, and stored file bytes. */
export async function billingUsage(ctx: AppContext, caller: Caller) {
  const plan = await findTeamPlan(ctx.db, caller.teamId);
  const period = currentPeriod();
  const usage = await queries.usageSummary(ctx.db, caller.teamId, period.start);
  const submissions = usage.submissions;
  const limit = plan.monthlySubmissions ?? null;
  return {
    period_start: iso(period.start),
    period_end: iso(period.end),
    submissions: { used: submissions, limit, remaining: limit === null ? null : Math.max(0, limit - submissions) },
    forms: { used: usage.forms, limit: plan.maxForms ?? null },
    storage_bytes: { used: usage.storage, limit: plan.storageBytes ?? null },
  };
}

export async function billingSubscription(ctx: AppContext, caller: Caller) {
  let sub = await findSubscription(ctx.db, caller.teamId);
  // Periods roll over lazily: the stored period is advanced when it is read after its end.
  if (new Date(sub.currentPeriodEnd) <= new Date())
    sub = await setSubscriptionPeriod(ctx.db, caller.teamId, currentPeriod());
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
  const invoices = await invoicesOf(ctx.db, caller.teamId);
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
