import type { AppContext } from '../../context.ts';
import { deactivationNotice, overdueDeliveries, pruneDeliveries } from '../../infra/db/queries/deliveries.ts';
import { anySpamSubscriber, webhookTeam } from '../../infra/db/queries/webhooks.ts';
import { deliverWebhook, requeuedAttemptJob, spamDeliveries } from '../../infra/queue/definitions.ts';
import { mayBeUnseenSince } from '../shared/ids.ts';

/** A delivery overdue by this much (far more than an attempt job's expiry) with no live job has lost its job. */
const LOST_AFTER_SECONDS = 15 * 60;
const BATCH = 1000;

/**
 * The periodic pass: re-queues attempts whose job was lost (overdue, with no job of their own waiting,
 * retrying or running), restarts the spam-deliveries job should its chain of runs have broken, and prunes
 * deliveries past the retention window in batches.
 */
export async function maintainDeliveries(ctx: AppContext): Promise<{ requeued: number; pruned: number }> {
  const overdue = await overdueDeliveries(ctx.db, LOST_AFTER_SECONDS, BATCH);
  const live = await ctx.queue.liveKeys(
    deliverWebhook,
    overdue.map((d) => d.id),
  );
  const lost = overdue.filter((d) => !live.has(d.id));
  if (lost.length) {
    const jobs = lost.map((d) => requeuedAttemptJob(d.id, d.attempts + 1, d.team_id, d.bulk));
    await ctx.db.transaction((tx) => ctx.queue.insert(deliverWebhook, jobs, { tx }));
  }
  if (await anySpamSubscriber(ctx.db)) await ctx.queue.send(spamDeliveries, {});
  let pruned = 0;
  for (let n = -1; n !== 0; pruned += n) n = await pruneDeliveries(ctx.db, ctx.config.deliveryRetentionDays, BATCH);
  return { requeued: lost.length, pruned };
}

/** A duration in words: "5 days", "36 hours", "10 minutes". */
function span(seconds: number): string {
  const [n, unit] =
    seconds >= 2 * 86_400
      ? [seconds / 86_400, 'day']
      : seconds >= 2 * 3600
        ? [seconds / 3600, 'hour']
        : [Math.max(1, seconds / 60), 'minute'];
  const rounded = Math.round(n);
  return `${rounded} ${unit}${rounded === 1 ? '' : 's'}`;
}

/**
 * The e-mail to a team's owners and admins when the service deactivated one of their webhooks (`at`); a job
 * that finds it still active within a minute of that is retried (on Citus the job can commit before the
 * webhook's shard does: shared/ids.ts, mayBeUnseenSince).
 */
export async function sendDeactivationNotice(
  ctx: AppContext,
  webhookId: string,
  teamId?: string,
  at?: string,
): Promise<'sent' | 'skipped'> {
  const team = teamId ?? (await webhookTeam(ctx.db, webhookId));
  const n = team && (await deactivationNotice(ctx.db, team, webhookId));
  if (!n && at && mayBeUnseenSince(at)) throw new Error('the deactivation is not visible yet; the job is retried');
  if (!n || !n.emails.length) return 'skipped';
  const why =
    n.reason === 'gone'
      ? 'the receiving endpoint answered 410 Gone'
      : `every delivery attempt has failed for ${span(ctx.config.webhookDisableAfterSeconds)}`;
  const text = [
    `The webhook "${n.label}" of the form "${n.form_name}" was deactivated because ${why}.`,
    '',
    `Endpoint: ${n.url}`,
    '',
    'No new deliveries are made to it, and its queued retries have stopped. Once the endpoint works again,',
    're-activate it (PUT active: true) and replay what it missed:',
    `  POST ${ctx.config.baseUrl}/v1/webhooks/${webhookId}/replay  {"status": "dead"}`,
    '',
    `Delivery log: ${ctx.config.baseUrl}/v1/forms/${n.form_id}/webhooks/${webhookId}/deliveries`,
  ].join('\n');
  await ctx.mailer.send({ to: n.emails, subject: `Webhook deactivated: ${n.label.slice(0, 100)}`, text });
  return 'sent';
}
