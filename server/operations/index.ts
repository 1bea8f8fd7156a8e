import { accountOperations } from './account.ts';
import { billingOperations } from './billing.ts';
import { erasureOperations } from './erasure.ts';
import { eventsOperations } from './events.ts';
import { formsOperations } from './forms.ts';
import { insightsOperations } from './insights.ts';
import { jobsOperations } from './jobs.ts';
import { submissionsOperations } from './submissions.ts';
import { tokensOperations } from './tokens.ts';
import { rulesOperations } from './rules.ts';
import { triageOperations } from './triage.ts';
import { webhooksOperations } from './webhooks.ts';

/**
 * Every contract operation by route key: `(ctx, caller, { params, query, body, headers }) → { status, body }`.
 * Transport-neutral: REST (server/transports/http/api.ts) and MCP tools (server/transports/mcp/tools.ts) bind to this table,
 * through the pipeline in `pipeline.ts`; the CLI reaches it through the SDK and REST.
 */
export const operations = {
  ...accountOperations,
  ...tokensOperations,
  ...billingOperations,
  ...formsOperations,
  ...eventsOperations,
  ...submissionsOperations,
  ...triageOperations,
  ...rulesOperations,
  ...webhooksOperations,
  ...insightsOperations,
  ...jobsOperations,
  ...erasureOperations,
};

export type RouteKey = keyof typeof operations;
