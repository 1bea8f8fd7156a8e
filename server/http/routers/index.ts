import type { AppContext } from '../../context.ts';
import { accountRouter } from './account.ts';
import { billingRouter } from './billing.ts';
import { erasureRouter } from './erasure.ts';
import { eventsRouter } from './events.ts';
import { formsRouter } from './forms.ts';
import { insightsRouter } from './insights.ts';
import { jobsRouter } from './jobs.ts';
import { submissionsRouter } from './submissions.ts';
import { tokensRouter } from './tokens.ts';
import { webhooksRouter } from './webhooks.ts';

/** Every route's handler, by route key: the REST API serves them, and MCP tools call the same ones (server/mcp). */
export function apiHandlers(ctx: AppContext) {
  return {
    ...accountRouter(ctx),
    ...tokensRouter(ctx),
    ...billingRouter(ctx),
    ...formsRouter(ctx),
    ...eventsRouter(ctx),
    ...submissionsRouter(ctx),
    ...webhooksRouter(ctx),
    ...insightsRouter(ctx),
    ...jobsRouter(ctx),
    ...erasureRouter(ctx),
  };
}
