import { initServer } from '@ts-rest/express';
import { billingContract } from '../../../contract/billing.ts';
import type { AppContext } from '../../context.ts';
import * as billing from '../../domain/billing.ts';
import { callerOf } from '../request-context.ts';

export function billingRouter(ctx: AppContext) {
  return initServer().router(billingContract, {
    getBillingTeam: async ({ res }) => ({ status: 200, body: { data: await billing.billingTeam(ctx, callerOf(res)) } }),
    getBillingPlan: async ({ res }) => ({ status: 200, body: { data: await billing.billingPlan(ctx, callerOf(res)) } }),
    getBillingUsage: async ({ res }) => ({ status: 200, body: { data: await billing.billingUsage(ctx, callerOf(res)) } }),
    getBillingSubscription: async ({ res }) => ({ status: 200, body: { data: await billing.billingSubscription(ctx, callerOf(res)) } }),
    listInvoices: async ({ res }) => ({ status: 200, body: { data: await billing.listInvoices(ctx, callerOf(res)) } }),
  });
}
