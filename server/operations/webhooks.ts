import type { webhooksContract } from '../../contract/webhooks.ts';
import { listDeliveries } from '../domain/delivery/log.ts';
import { replayDelivery, startWebhookReplay } from '../domain/delivery/replay.ts';
import { testWebhook } from '../domain/delivery/test-call.ts';
import { previewWebhook } from '../domain/webhooks/preview.ts';
import * as webhooks from '../domain/webhooks/webhooks.ts';
import type { OperationsOf } from './types.ts';

export const webhooksOperations = {
  listWebhooks: async (ctx, caller, { params }) => ({
    status: 200,
    body: { data: await webhooks.listWebhooks(ctx, caller, params.form) },
  }),
  createWebhook: async (ctx, caller, { params, body }) => ({
    status: 201,
    body: await webhooks.createWebhook(ctx, caller, params.form, body),
  }),
  getWebhook: async (ctx, caller, { params }) => ({
    status: 200,
    body: { data: await webhooks.getWebhook(ctx, caller, params.form, params.webhook) },
  }),
  updateWebhook: async (ctx, caller, { params, body }) => ({
    status: 200,
    body: await webhooks.updateWebhook(ctx, caller, params.form, params.webhook, body),
  }),
  deleteWebhook: async (ctx, caller, { params }) => {
    await webhooks.deleteWebhook(ctx, caller, params.form, params.webhook);
    return { status: 200, body: { ok: true } };
  },
  testWebhook: async (ctx, caller, { params }) => ({
    status: 200,
    body: { data: await testWebhook(ctx, caller, params.form, params.webhook) },
  }),
  previewWebhook: async (ctx, caller, { params, body }) => ({
    status: 200,
    body: await previewWebhook(ctx, caller, params.form, params.webhook, body),
  }),
  listDeliveries: async (ctx, caller, { params, query }) => ({
    status: 200,
    body: await listDeliveries(ctx, caller, params.form, params.webhook, query),
  }),
  replayDelivery: async (ctx, caller, { params }) => ({
    status: 200,
    body: {
      ok: true,
      delivery_id: await replayDelivery(ctx, caller, params.delivery, {
        formId: params.form,
        webhookId: params.webhook,
      }),
    },
  }),
  replayDeliveryById: async (ctx, caller, { params }) => ({
    status: 202,
    body: { delivery_id: await replayDelivery(ctx, caller, params.delivery_id), status: 'queued' },
  }),
  replayWebhook: async (ctx, caller, { params, body }) => ({
    status: 202,
    body: { job_id: await startWebhookReplay(ctx, caller, params.webhook_id, body), status: 'queued' },
  }),
} satisfies OperationsOf<typeof webhooksContract>;
