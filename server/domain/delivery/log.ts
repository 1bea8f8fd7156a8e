import type { z } from 'zod';
import type { DELIVERY_EVENTS, DeliveryListQuery } from '../../../contract/webhooks.ts';
import type { AppContext } from '../../context.ts';
import { listDeliveries as listRows, type DeliveryRow } from '../../infra/db/queries/deliveries.ts';
import type { Caller } from '../accounts/caller.ts';
import { validationFailed } from '../shared/errors.ts';
import { isId } from '../shared/ids.ts';
import { iso } from '../shared/timestamps.ts';
import { requireWebhook } from '../webhooks/webhooks.ts';

/** A JSON body parsed; a templated form or text body as the text sent. */
function requestBody(r: DeliveryRow): Record<string, unknown> | string | null {
  if (r.request_body === null) return null;
  if (r.content_type !== null && !r.content_type.startsWith('application/json')) return r.request_body;
  return JSON.parse(r.request_body) as Record<string, unknown>;
}

/** A delivery as the API shows it in a webhook's log. */
export function deliveryView(r: DeliveryRow) {
  return {
    id: r.id,
    webhook_id: r.webhook_id,
    event: r.event as (typeof DELIVERY_EVENTS)[number],
    status: r.status,
    http_status: r.http_status,
    attempts: r.attempts,
    duration_ms: r.duration_ms,
    submission_id: r.submission_id,
    request_body: requestBody(r),
    content_type: r.content_type ?? 'application/json',
    response_body: r.response_body,
    error: r.error,
    delivered_at: iso(r.delivered_at),
    next_attempt_at: iso(r.next_attempt_at),
    replay_of: r.replay_of,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** A webhook's deliveries, newest first. A deleted webhook's log stays readable: its retries already scheduled still run. */
export async function listDeliveries(
  ctx: AppContext,
  caller: Caller,
  formId: string,
  webhookId: string,
  q: z.infer<typeof DeliveryListQuery>,
) {
  await requireWebhook(ctx, caller, webhookId, { formId, deleted: true });
  if (q.cursor !== undefined && !isId('whd', q.cursor))
    throw validationFailed([{ in: 'query', path: 'cursor', message: 'Invalid cursor.' }]);
  const rows = await listRows(ctx.db, {
    teamId: caller.teamId,
    webhookId,
    status: q.status,
    submissionId: q.submission_id,
    before: q.cursor,
    limit: q.per_page + 1,
  });
  const page = rows.slice(0, q.per_page);
  const more = rows.length > q.per_page;
  return {
    data: page.map(deliveryView),
    meta: { per_page: q.per_page, next_cursor: more ? page[page.length - 1]!.id : null },
  };
}
