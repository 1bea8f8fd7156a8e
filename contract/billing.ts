import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { authErrors, Timestamp } from './common.ts';
import { COSTS } from './costs.ts';

const c = initContract();

export const PlanId = z.enum(['free', 'pro', 'team', 'scale']);

export const BillingTeam = z.object({
  id: z.string(),
  name: z.string(),
  plan: PlanId,
  members: z.number().int(),
  created_at: Timestamp,
});

export const BillingPlan = z.object({
  id: PlanId,
  name: z.string(),
  price_cents: z.number().int(),
  currency: z.string(),
  interval: z.literal('month'),
  limits: z.object({
    monthly_submissions: z.number().int().nullable().describe('null = unlimited'),
    forms: z.number().int().nullable().describe('null = unlimited'),
    storage_bytes: z.number().int().nullable().describe('null = unlimited'),
    file_bytes: z.number().int().describe('Largest accepted upload; 0 = uploads not included.'),
  }),
  features: z.object({
    ai: z.boolean(),
    api_tokens: z.boolean(),
    file_uploads: z.boolean(),
    autoresponder: z.boolean(),
  }),
});

const Meter = z.object({
  used: z.number().int(),
  limit: z.number().int().nullable().describe('null = unlimited'),
});

export const BillingUsage = z.object({
  period_start: Timestamp,
  period_end: Timestamp,
  submissions: Meter.extend({ remaining: z.number().int().nullable() }),
  forms: Meter,
  storage_bytes: Meter,
});

export const BillingSubscription = z.object({
  id: z.string(),
  plan: PlanId,
  status: z.enum(['active', 'past_due', 'canceled']),
  current_period_start: Timestamp,
  current_period_end: Timestamp,
  cancel_at_period_end: z.boolean(),
  created_at: Timestamp,
});

export const Invoice = z.object({
  id: z.string(),
  number: z.string(),
  status: z.enum(['draft', 'open', 'paid', 'void']),
  currency: z.string(),
  amount_cents: z.number().int(),
  period_start: Timestamp,
  period_end: Timestamp,
  issued_at: Timestamp,
  paid_at: Timestamp.nullable(),
});

const read = { ability: 'billing:read' } as const;

export const billingContract = c.router({
  getBillingTeam: {
    method: 'GET',
    path: '/v1/billing/team',
    summary: 'The billed team',
    responses: { 200: z.object({ data: BillingTeam }), ...authErrors },
    metadata: { ...read, cost: COSTS.row },
  },
  getBillingPlan: {
    method: 'GET',
    path: '/v1/billing/plan',
    summary: "The team's plan, its limits and features",
    responses: { 200: z.object({ data: BillingPlan }), ...authErrors },
    metadata: { ...read, cost: COSTS.row },
  },
  getBillingUsage: {
    method: 'GET',
    path: '/v1/billing/usage',
    summary: 'Usage in the current billing period against the plan limits',
    responses: { 200: z.object({ data: BillingUsage }), ...authErrors },
    metadata: { ...read, cost: COSTS.row },
  },
  getBillingSubscription: {
    method: 'GET',
    path: '/v1/billing/subscription',
    summary: "The team's subscription",
    responses: { 200: z.object({ data: BillingSubscription }), ...authErrors },
    metadata: { ...read, cost: COSTS.row },
  },
  listInvoices: {
    method: 'GET',
    path: '/v1/billing/invoices',
    summary: "The team's invoices, newest first",
    responses: { 200: z.object({ data: z.array(Invoice) }), ...authErrors },
    metadata: { ...read, cost: COSTS.records },
  },
});
