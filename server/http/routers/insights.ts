import { initServer } from '@ts-rest/express';
import { insightsContract } from '../../../contract/insights.ts';
import type { AppContext } from '../../context.ts';
import { getInsights, regenerateInsights } from '../../domain/insights.ts';
import { callerOf } from '../request-context.ts';

export function insightsRouter(ctx: AppContext) {
  return initServer().router(insightsContract, {
    getAiInsights: async ({ res, query }) => ({ status: 200, body: { data: await getInsights(ctx, callerOf(res), query.form) } }),
    regenerateAiInsights: async ({ res }) => ({ status: 202, body: { ok: true as const, ...(await regenerateInsights(ctx, callerOf(res))) } }),
  });
}
