import type { AppContext } from '../../context.ts';
import { postponeAttempts, recordAttempts as recordRows, stopDelivery } from '../../infra/db/queries/deliveries.ts';
import { deactivateWebhook, failingFor } from '../../infra/db/queries/webhooks.ts';
import { GroupCommit } from '../../infra/group-commit.ts';
import {
  deliverWebhook,
  nextAttemptJob,
  webhookDeactivatedEmail,
  type AttemptJob,
} from '../../infra/queue/definitions.ts';
import type { AttemptOutcome } from './attempt.ts';

/** Outcomes are recorded by group commit: at most this many transactions at once, each of up to this many. */
const RECORD_LIMITS = { maxRunning: 1, maxBatch: 200 };

/**
 * Records a batch of outcomes in one transaction, one commit for many attempts: their results, the jobs of
 * the next attempts, webhooks deactivated (410 at once; otherwise after failing for days, with an e-mail to
 * the owners), and the settling of every job of the batch. Returns the earliest next attempt, if any.
 */
export async function recordAttempts(ctx: AppContext, outcomes: AttemptOutcome[]): Promise<Date | null> {
  const sent = outcomes.filter((o) => o.kind === 'sent');
  const waiting = outcomes.filter((o) => o.kind === 'postpone');
  const next = [
    ...sent.flatMap((o) => (o.record.nextAttemptAt ? [o.record.nextAttemptAt] : [])),
    ...waiting.map((o) => o.at),
  ];
  await ctx.db.transaction(async (tx) => {
    for (const o of outcomes)
      if (o.kind === 'stop') await stopDelivery(tx, o.job.data.deliveryId, o.expected, o.reason);
    const recorded = await recordRows(
      tx,
      sent.map((o) => o.record),
    );
    const retries = sent.filter((o) => recorded.has(o.record.id) && o.record.nextAttemptAt);
    // A postponed attempt is queued again only while the row still waits for it, as a retry is.
    const postponed = await postponeAttempts(
      tx,
      waiting.map((o) => ({ id: o.job.data.deliveryId, expected: o.expected, at: o.at })),
    );
    await ctx.queue.insert(
      deliverWebhook,
      [
        ...retries.map((o) => nextAttemptJob(o.job, 'retry', o.record.nextAttemptAt!)),
        ...waiting
          .filter((o) => postponed.has(o.job.data.deliveryId))
          .map((o) => nextAttemptJob(o.job, 'postpone', o.at)),
      ],
      { tx },
    );
    // Per webhook, once: the last failure of the batch decides (a 410 anywhere in it counts).
    const failed = new Map<string, boolean>();
    for (const o of sent)
      if (recorded.has(o.record.id) && o.record.status !== 'succeeded')
        failed.set(o.webhookId, (failed.get(o.webhookId) ?? false) || o.gone);
    for (const o of waiting)
      if (o.throttled && postponed.has(o.job.data.deliveryId))
        failed.set(o.throttled, failed.get(o.throttled) ?? false);
    for (const [webhookId, gone] of failed) {
      const failingTooLong = await failingFor(tx, webhookId, ctx.config.webhookDisableAfterSeconds);
      if ((gone || failingTooLong) && (await deactivateWebhook(tx, webhookId, gone ? 'gone' : 'failing'))) {
        await ctx.queue.send(webhookDeactivatedEmail, { webhookId }, { tx });
      }
    }
    await ctx.queue.complete(
      deliverWebhook,
      outcomes.map((o) => o.job),
      { tx },
    );
  });
  return next.length ? new Date(Math.min(...next.map((d) => d.getTime()))) : null;
}

/**
 * Records outcomes by group commit. A batch the transaction refused is recorded one outcome at a time; what
 * still fails, pg-boss retries when its job expires. `committed` gets each batch's jobs once it is over and
 * the earliest next attempt it scheduled.
 */
export function outcomeRecorder(
  ctx: AppContext,
  committed: (jobs: AttemptJob[], next: Date | null) => void,
): GroupCommit<AttemptOutcome> {
  const one = (outcome: AttemptOutcome) =>
    recordAttempts(ctx, [outcome]).catch((err: unknown) => {
      ctx.log.warn(
        { err, deliveryId: outcome.job.data.deliveryId },
        'could not record a delivery attempt; its job will be retried',
      );
      return null;
    });
  const earliest = (dates: Array<Date | null>) =>
    dates.reduce<Date | null>((a, d) => (d && (!a || d < a) ? d : a), null);
  return new GroupCommit(async (batch: AttemptOutcome[]) => {
    let next: Date | null = null;
    try {
      next = await recordAttempts(ctx, batch).catch(async (err: unknown) => {
        if (batch.length === 1) throw err;
        const dates: Array<Date | null> = [];
        for (const outcome of batch) dates.push(await one(outcome));
        return earliest(dates);
      });
    } catch (err) {
      ctx.log.warn(
        { err, deliveryId: batch[0]?.job.data.deliveryId },
        'could not record a delivery attempt; its job will be retried',
      );
    } finally {
      committed(
        batch.map((o) => o.job),
        next,
      );
    }
  }, RECORD_LIMITS);
}
