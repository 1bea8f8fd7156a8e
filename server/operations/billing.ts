import type { billingContract } from '../../contract/billing.ts';
import * as billing from '../domain/accounts/billing.ts';
import type { OperationsOf } from './types.ts';

export const billingOperations = {
  getBillingTeam: async (ctx, caller) => ({ status: 200, body: { data: await billing.billingTeam(ctx, caller) } }),
  getBillingPlan: async (ctx, caller) => ({ status: 200, body: { data: await billing.billingPlan(ctx, caller) } }),
  getBillingUsage: async (ctx, caller) => ({ status: 200, body: { data: await billing.billingUsage(ctx, caller) } }),
  getBillingSubscription: async (ctx, caller) => ({
    status: 200,
    body: { data: await billing.billingSubscription(ctx, caller) },
  }),
  listInvoices: async (ctx, caller) => ({ status: 200, body: { data: await billing.listInvoices(ctx, caller) } }),
} satisfies OperationsOf<typeof billingContract>;
