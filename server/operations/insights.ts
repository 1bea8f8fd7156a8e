import type { insightsContract } from '../../contract/insights.ts';
import { getInsights, regenerateInsights } from '../domain/insights/insights.ts';
import type { OperationsOf } from './types.ts';

export const insightsOperations = {
  getAiInsights: async (ctx, caller, { query }) => ({
    status: 200,
    body: { data: await getInsights(ctx, caller, query.form) },
  }),
  regenerateAiInsights: async (ctx, caller) => ({
    status: 202,
    body: { ok: true as const, ...(await regenerateInsights(ctx, caller)) },
  }),
} satisfies OperationsOf<typeof insightsContract>;
