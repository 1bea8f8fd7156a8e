import { DEFAULT_STAGES } from '../../../contract/triage.ts';
import { TEST_CALLS_PER_MINUTE } from '../../../contract/webhooks.ts';
import type { AppContext } from '../../context.ts';
import { insertTestDelivery, lastDeliveredSubmission } from '../../infra/db/queries/deliveries.ts';
import { learnedFields } from '../../infra/db/queries/forms.ts';
import { submissionForEvent } from '../../infra/db/queries/webhook-events.ts';
import { webhookTarget, type WebhookRow } from '../../infra/db/queries/webhooks.ts';
import { renderBody, type Provider, type SubmissionEvent } from '../../infra/outbound/providers.ts';
import { decryptSecret, signatureHeaders } from '../../infra/outbound/signing.ts';
import { VERSION } from '../../version.ts';
import type { Caller } from '../accounts/caller.ts';
import { hitWindow } from '../accounts/rate-windows.ts';
import { AppError, notFound } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { requireWebhook } from '../webhooks/webhooks.ts';
import { deliverySender } from './attempt.ts';
import { submissionEvent } from '../submissions/view.ts';
import { deliveryView } from './log.ts';

/** A sample value for a learned field: recognisably fake, shaped like what such a field holds. */
function sampleValue(name: string): string {
  const n = name.toLowerCase();
  if (n.includes('email') || n === '_replyto') return 'jane.doe@example.com';
  if (n.includes('phone') || n.includes('tel')) return '+1 555 0100';
  if (n.includes('url') || n.includes('website')) return 'https://example.com';
  if (n.includes('name')) return 'Jane Doe';
  return `Sample ${name}`;
}

/** A `submission.created` body for a form that has no delivered submission to show: its learned fields with sample values. */
async function sampleEvent(ctx: AppContext, hook: WebhookRow, formName: string): Promise<SubmissionEvent> {
  const fields = await learnedFields(ctx.db, hook.team_id, hook.form_id);
  const names = fields.length ? fields.map((f) => f.name) : ['name', 'email', 'message'];
  return {
    type: 'submission.created',
    submission_id: 'subm_test',
    form_id: hook.form_id,
    form_name: formName,
    received_at: new Date().toISOString(),
    payload: Object.fromEntries(names.map((name) => [name, sampleValue(name)])),
    files: [],
    meta: { category: null, score: null, referrer: null, user_agent: null, source: 'form' },
    tags: [],
    stage: DEFAULT_STAGES[0]!.key,
    assignee: null,
  };
}

/**
 * The test call: a signed `submission.created` body marked `test: true` — the webhook's last delivered
 * submission, or a sample from the form's learned fields; the default body, never a template, with the
 * webhook's extra headers — posted now through the deliveries' sender (address
 * guard at connect time, the delivery timeout, no redirects), its one attempt recorded as a delivery with
 * event `webhook.test` and answered. Each webhook takes TEST_CALLS_PER_MINUTE a minute, counted in Postgres
 * so every API process shares the count: a receiver cannot be flooded through it.
 */
export async function testWebhook(ctx: AppContext, caller: Caller, formId: string, webhookId: string) {
  const hook = await requireWebhook(ctx, caller, webhookId, { formId });
  const { hits, resetSeconds } = await hitWindow(ctx, `webhook-test:${webhookId}`, 60);
  if (hits > TEST_CALLS_PER_MINUTE) {
    throw new AppError('rate_limited', `A webhook takes at most ${TEST_CALLS_PER_MINUTE} test calls a minute.`, {
      retry_after: resetSeconds,
    });
  }
  const target = await webhookTarget(ctx.db, caller.teamId, webhookId);
  if (!target) throw notFound('Webhook');
  const lastId = await lastDeliveredSubmission(ctx.db, caller.teamId, webhookId);
  const last = lastId ? await submissionForEvent(ctx.db, caller.teamId, lastId) : undefined;
  const event: SubmissionEvent = {
    ...(last ? submissionEvent(ctx, last) : await sampleEvent(ctx, hook, target.form_name)),
    test: true,
  };
  const body = renderBody(hook.provider as Provider, event, hook.config);

  const id = newId('whd');
  const key = ctx.keys.webhookSecrets;
  const secrets = [
    decryptSecret(key, target.secret_encrypted),
    ...(target.previous_secret_encrypted ? [decryptSecret(key, target.previous_secret_encrypted)] : []),
  ];
  const headers = { ...target.headers, ...signatureHeaders(secrets, id, Math.floor(Date.now() / 1000), body) };
  // A sender of its own, closed after: an API process holds no delivery connections between test calls.
  const sender = deliverySender(ctx, { version: VERSION, connections: 1 });
  const out = await sender.send(target.url, body, headers).finally(() => void sender.close().catch(() => {}));
  const ok = out.httpStatus !== null && out.httpStatus >= 200 && out.httpStatus < 300;
  const row = await insertTestDelivery(ctx.db, {
    id,
    team_id: hook.team_id,
    webhook_id: webhookId,
    submission_id: last ? last.id : null,
    request_body: body,
    status: ok ? 'succeeded' : 'failed',
    http_status: out.httpStatus,
    duration_ms: out.durationMs,
    response_body: out.responseBody,
    error: out.error,
  });
  return deliveryView(row);
}
