import type { AppContext } from '../../context.ts';
import { keptSubmissions } from '../../infra/db/queries/forms.ts';
import { formClosed } from '../../infra/queue/definitions.ts';

/**
 * After a clean post to a form with `max_submissions`: when it took the last place, `form.closed` is queued
 * (webhooks and the notification addresses are told). Posts to a limited form are accepted one at a time under
 * the form's lock; posts sharing one statement may both see the count reach it, so the job is one per form a
 * minute. A place freed and taken again closes the form again.
 */
export async function announceIfFull(ctx: AppContext, formId: string, max: number): Promise<void> {
  if ((await keptSubmissions(ctx.db, formId)) !== max) return;
  await ctx.queue.send(
    formClosed,
    { formId, reason: 'limit_reached', at: new Date().toISOString() },
    { singletonKey: formId, singletonSeconds: 60 },
  );
}
