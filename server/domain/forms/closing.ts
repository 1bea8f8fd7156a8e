import type { AppContext } from '../../context.ts';
import { formClosed } from '../../infra/queue/definitions.ts';

/**
 * A clean post took the last place of a form's `max_submissions` (the accepting statement, under the form's
 * lock, saw the count reach it): `form.closed` is queued for its webhooks and notification addresses. A place
 * freed and taken again closes the form again.
 */
export async function announceClosed(ctx: AppContext, formId: string): Promise<void> {
  await ctx.queue.send(formClosed, { formId, reason: 'limit_reached', at: new Date().toISOString() });
}
