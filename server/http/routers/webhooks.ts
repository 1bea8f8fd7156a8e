import { initServer } from '@ts-rest/express';
import { webhooksContract } from '../../../contract/webhooks.ts';
import type { AppContext } from '../../context.ts';
import * as deliveries from '../../domain/deliveries.ts';
import * as webhooks from '../../domain/webhooks.ts';
import { callerOf } from '../request-context.ts';

export function webhooksRouter(ctx: AppContext) {
  return initServer().router(webhooksContract, {
    listWebhooks: async ({ res, params }) => ({ status: 200, body: { data: await webhooks.listWebhooks(ctx, callerOf(res), params.form) } }),
    createWebhook: async ({ res, params, body }) => ({ status: 201, body: await webhooks.createWebhook(ctx, callerOf(res), params.form, body) }),
    getWebhook: async ({ res, params }) => ({
      status: 200,
      body: { data: await webhooks.getWebhook(ctx, callerOf(res), params.form, params.webhook) },
    }),
    updateWebhook: async ({ res, params, body }) => ({
      status: 200,
      body: await webhooks.updateWebhook(ctx, callerOf(res), params.form, params.webhook, body),
    }),
    deleteWebhook: async ({ res, params }) => {
      await webhooks.deleteWebhook(ctx, callerOf(res), params.form, params.webhook);
      return { status: 200, body: { ok: true } };
    },
    listDeliveries: async ({ res, params, query }) => ({
      status: 200,
      body: await deliveries.listDeliveries(ctx, callerOf(res), params.form, params.webhook, query),
    }),
    replayDelivery: async ({ res, params }) => ({
      status: 200,
      body: {
        ok: true,
        delivery_id: await deliveries.replayDelivery(ctx, callerOf(res), params.delivery, { formId: params.form, webhookId: params.webhook }),
      },
    }),
    replayDeliveryById: async ({ res, params }) => ({
      status: 202,
      body: { delivery_id: await deliveries.replayDelivery(ctx, callerOf(res), params.delivery_id), status: 'queued' },
    }),
    replayWebhook: async ({ res, params, body }) => ({
      status: 202,
      body: { job_id: await deliveries.startWebhookReplay(ctx, callerOf(res), params.webhook_id, body), status: 'queued' },
    }),
  });
}
