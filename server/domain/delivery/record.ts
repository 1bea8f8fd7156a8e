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

/** Items grouped by their team, in first-seen order. */
function byTeam<T extends { teamId: string }>(items: T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(item.teamId, [...(groups.get(item.teamId) ?? []), item]);
  return groups;
}

/**
 * Records a batch of outcomes in one transaction, one commit for many attempts (the results and the
 * postponements in a statement per team of the batch): their results, the jobs of the next attempts, webhooks
 * deactivated (410 at once; otherwise after failing for days, with an e-mail to the owners), and the settling
 * of every job of the batch. Returns the earliest next attempt, if any.
 */
export async function recordAttempts(ctx: AppContext, outcomes: AttemptOutcome[]): Promise<Date | null> {
  const sent = outcomes.filter((o) => o.kind === 'sent');
  const waiting = outcomes.filter((o) => o.kind === 'postpone');
  const unseen = outcomes.flatMap((o) => (o.kind === 'skip' && o.again ? [{ job: o.job, at: o.again }] : []));
  const next = [
    ...sent.flatMap((o) => (o.record.nextAttemptAt ? [o.record.nextAttemptAt] : [])),
    ...waiting.map((o) => o.at),
    ...unseen.map((o) => o.at),
  ];
  await ctx.db.transaction(async (tx) => {
    for (const o of outcomes)
      if (o.kind === 'stop') await stopDelivery(tx, o.teamId, o.job.data.deliveryId, o.expected, o.reason);
    const recorded = new Set<string>();
    for (const [teamId, team] of byTeam(sent)) {
      const ids = await recordRows(
        tx,
        teamId,
        team.map((o) => o.record),
      );
      for (const id of ids) recorded.add(id);
    }
    const retries = sent.filter((o) => recorded.has(o.record.id) && o.record.nextAttemptAt);
    // A postponed attempt is queued again only while the row still waits for it, as a retry is.
    const postponed = new Set<string>();
    for (const [teamId, team] of byTeam(waiting)) {
      const ids = await postponeAttempts(
        tx,
        teamId,
        team.map((o) => ({ id: o.job.data.deliveryId, expected: o.expected, at: o.at })),
      );
      for (const id of ids) postponed.add(id);
    }
    await ctx.queue.insert(
      deliverWebhook,
      [
        ...retries.map((o) => nextAttemptJob(o.job, 'retry', o.record.nextAttemptAt!)),
        ...waiting
          .filter((o) => postponed.has(o.job.data.deliveryId))
          .map((o) => nextAttemptJob(o.job, 'postpone', o.at)),
        ...unseen.map((o) => nextAttemptJob(o.job, 'postpone', o.at)),
      ],
      { tx },
    );
    // Per webhook, once: the last failure of the batch decides (a 410 anywhere in it counts).
    const failed = new Map<string, { teamId: string; gone: boolean }>();
    for (const o of sent)
      if (recorded.has(o.record.id) && o.record.status !== 'succeeded')
        failed.set(o.webhookId, { teamId: o.teamId, gone: (failed.get(o.webhookId)?.gone ?? false) || o.gone });
    for (const o of waiting)
      if (o.throttled && postponed.has(o.job.data.deliveryId))
        failed.set(o.throttled, { teamId: o.teamId, gone: failed.get(o.throttled)?.gone ?? false });
    for (const [webhookId, { teamId, gone }] of failed) {
      const failingTooLong = await failingFor(tx, teamId, webhookId, ctx.config.webhookDisableAfterSeconds);
      if ((gone || failingTooLong) && (await deactivateWebhook(tx, teamId, webhookId, gone ? 'gone' : 'failing'))) {
        const at = new Date().toISOString();
        await ctx.queue.send(webhookDeactivatedEmail, { webhookId, teamId, at }, { tx });
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
