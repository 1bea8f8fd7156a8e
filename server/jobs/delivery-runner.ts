import type { AppContext } from '../context.ts';
import {
  attemptSends,
  BULK_PRIORITIES,
  FRESH_PRIORITIES,
  isBulkAttempt,
  loadAttempts,
  recordAttempts,
  sendAttempt,
  type AttemptJob,
  type AttemptOutcome,
  type AttemptRow,
} from '../domain/deliveries.ts';
import { GroupCommit } from '../group-commit.ts';
import { countDeliveryAttempt } from '../metrics/deliveries.ts';
import { createSender } from '../webhooks/sender.ts';
import { deliverWebhook } from './definitions.ts';

export type DeliveryRunner = { stop(): Promise<void> };

/** After attempts are recorded, fetches are coalesced over this window so one fetch refills several slots. */
const REFILL_MS = 5;
/** Outcomes are recorded by group commit: at most this many transactions at once, each of up to this many. */
const RECORD_LIMITS = { maxRunning: 2, maxBatch: 200 };
/** An attempt postponed because its webhook had its share in flight goes again after at least this long… */
const POSTPONE_MIN_MS = 1_000;
/** …and at most this long, however long the webhook's queue. */
const POSTPONE_MAX_MS = 30_000;

/**
 * A webhook whose attempts take longer than this (its recent average, or its oldest in flight) is slow:
 * attempts over its share are postponed. A quicker one's wait in this worker for a free place in its share.
 */
const SLOW_MS = 500;
/** How often attempts waiting for a webhook that has turned slow are moved out (postponed). */
const SLOW_CHECK_MS = 100;
/**
 * After a fetch of bulk attempts found none, the next one waits this long: otherwise every refill without
 * bulk work waiting would cost a second, empty fetch.
 */
const BULK_IDLE_MS = 250;

type Held = { job: AttemptJob; row: AttemptRow };
/** A webhook's attempts in flight in this worker, those waiting for a place, and how long its recent attempts took. */
type Share = { started: Map<string, number>; held: Held[]; averageMs: number; horizon: number };

/**
 * The webhook delivery loop of a worker process: keeps up to INTAKE_DELIVERY_CONCURRENCY attempts in flight
 * over keep-alive connections. Attempt jobs are taken from pg-boss in batches as slots free up, their rows
 * loaded in one query, and their outcomes recorded by group commit: each transaction records many attempts,
 * schedules their next attempts and settles their jobs, all or nothing. A slot frees once its outcome is
 * committed. The loop is woken at once by a new job (LISTEN), by a local timer when a retry it scheduled
 * falls due, and otherwise polls.
 *
 * A webhook has at most INTAKE_DELIVERY_CONCURRENCY_PER_WEBHOOK of those attempts, so a receiver that never
 * answers cannot hold every slot. An attempt fetched for a webhook at its share waits in this worker for a
 * place while the webhook answers quickly (a burst to one fast receiver costs no extra transaction). Once
 * the webhook is slow (SLOW_MS), its waiting attempts are postponed: each job is settled and the same
 * attempt queued again, in one transaction (by the group commit, as an outcome), and its slot frees once
 * that commits. Postponements of one webhook are spread over the time its share would take to send them
 * (its attempts' recent duration, or the age of the oldest in flight), so a long queue behind a slow
 * receiver is fetched again about as fast as it drains, not every second.
 *
 * Bulk work (a replay job's attempts, negative priority) is bounded per worker: at most
 * INTAKE_BULK_DELIVERY_CONCURRENCY of its attempts taken at once, started at most INTAKE_BULK_DELIVERY_RATE
 * a second (a token bucket as deep as the concurrency). Priority alone only orders the queue: bulk attempts
 * to a fast receiver, taken flat out, would fill every slot between two fresh deliveries and take the
 * process's CPU and database connections from every team's posts, lists and deliveries. Fresh attempts
 * (priority 0 and up) are fetched first and by themselves, so a bulk backlog never takes their slots.
 */
export function startDeliveryRunner(ctx: AppContext, opts: { version: string }): DeliveryRunner {
  const { config, log } = ctx;
  const sender = createSender({
    timeoutMs: config.deliveryTimeoutMs,
    allowPrivate: config.allowPrivateWebhooks,
    userAgent: `Intake-Webhooks/${opts.version}`,
    connections: config.deliveryConcurrency,
  });
  const limit = config.deliveryConcurrency;
  const perWebhook = config.deliveryConcurrencyPerWebhook;
  const shares = new Map<string, Share>();
  const sending = new Set<Promise<void>>();
  let taken = 0; // jobs fetched whose outcome is not committed yet
  const bulkLimit = config.bulkDeliveryConcurrency;
  const bulkRate = config.bulkDeliveryRate;
  let bulkTaken = 0; // of those, bulk attempts
  const bucket = { tokens: bulkLimit, at: Date.now() };
  let bulkIdleUntil = 0;
  let bulkTimer: NodeJS.Timeout | null = null;
  let stopping = false;
  let fetching = false;
  let again = false;
  let refill: NodeJS.Timeout | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let retryAt = Infinity;

  const release = (jobs: AttemptJob[]) => {
    taken -= jobs.length;
    for (const job of jobs) if (isBulkAttempt(job)) bulkTaken--;
    if (!refill && !stopping) {
      refill = setTimeout(() => {
        refill = null;
        void pump();
      }, REFILL_MS);
    }
  };

  /** A batch the transaction refused is recorded one outcome at a time; what still fails, pg-boss retries when its job expires. */
  const record = async (batch: AttemptOutcome[]) => {
    try {
      const next = await recordAttempts(ctx, batch).catch(async (err: unknown) => {
        if (batch.length === 1) throw err;
        let earliest: Date | null = null;
        for (const outcome of batch) {
          const at = await recordAttempts(ctx, [outcome]).catch((e: unknown) => {
            log.warn({ err: e, deliveryId: outcome.job.data.deliveryId }, 'could not record a delivery attempt; its job will be retried');
            return null;
          });
          if (at && (!earliest || at < earliest)) earliest = at;
        }
        return earliest;
      });
      if (next) wakeAt(next);
    } catch (err) {
      log.warn({ err, deliveryId: batch[0]?.job.data.deliveryId }, 'could not record a delivery attempt; its job will be retried');
    } finally {
      release(batch.map((o) => o.job));
    }
  };
  const recorder = new GroupCommit(record, RECORD_LIMITS);

  /** When a postponed attempt of this webhook should go again: after the ones already postponed, as its share drains them. */
  const postponeUntil = (share: Share): Date => {
    const now = Date.now();
    let oldest = now;
    for (const at of share.started.values()) oldest = Math.min(oldest, at);
    const spacing = Math.max(share.averageMs, now - oldest) / perWebhook;
    const at = Math.min(Math.max(now + POSTPONE_MIN_MS, share.horizon), now + POSTPONE_MAX_MS);
    share.horizon = at + spacing;
    return new Date(at);
  };

  const isSlow = (share: Share): boolean => {
    if (share.averageMs > SLOW_MS) return true;
    const now = Date.now();
    for (const at of share.started.values()) if (now - at > SLOW_MS) return true;
    return false;
  };

  /** Postpones the attempts waiting for a place in a webhook's share. */
  const postponeHeld = (share: Share) => {
    for (const { job, row } of share.held.splice(0)) recorder.add({ job, kind: 'postpone', expected: row.attempts, at: postponeUntil(share) });
  };

  /** Sends one attempt, counted in its webhook's share while the request is out; then the next one waiting for that share. */
  const send = (job: AttemptJob, row: AttemptRow | undefined, share: Share | null) => {
    const startedAt = Date.now();
    share?.started.set(job.id, startedAt);
    const attempt = sendAttempt(ctx, sender, job, row)
      .finally(() => {
        if (!share || !row) return;
        share.started.delete(job.id);
        share.averageMs = 0.8 * share.averageMs + 0.2 * (Date.now() - startedAt);
        const next = share.held.shift();
        if (next) send(next.job, next.row, share);
        else if (!share.started.size) shares.delete(row.webhook_id);
      })
      .then(
        (outcome) => {
          countDeliveryAttempt(outcome);
          recorder.add(outcome);
        },
        (err: unknown) => {
          log.warn({ err, deliveryId: job.data.deliveryId }, 'delivery attempt failed; its job will be retried');
          release([job]);
        },
      );
    sending.add(attempt);
    void attempt.finally(() => sending.delete(attempt));
  };

  const launch = (jobs: AttemptJob[]) => {
    const run = loadAttempts(ctx, jobs).then(
      (rows) => {
        for (const job of jobs) {
          const row = rows.get(job.data.deliveryId);
          if (!attemptSends(job, row)) {
            send(job, row, null); // skipped or stopped without a request
            continue;
          }
          const share = shares.get(row.webhook_id) ?? { started: new Map<string, number>(), held: [], averageMs: 0, horizon: 0 };
          shares.set(row.webhook_id, share);
          if (share.started.size < perWebhook) send(job, row, share);
          else if (isSlow(share) || stopping) recorder.add({ job, kind: 'postpone', expected: row.attempts, at: postponeUntil(share) });
          else share.held.push({ job, row });
        }
      },
      (err: unknown) => {
        log.warn({ err }, 'could not load webhook deliveries; their jobs will be retried');
        release(jobs);
      },
    );
    sending.add(run);
    void run.finally(() => sending.delete(run));
  };

  /** Pumps again at `at` (for bulk work held back by its pace or idle wait), unless a pump is already due sooner. */
  const pumpBulkAt = (at: number) => {
    if (bulkTimer || stopping) return;
    bulkTimer = setTimeout(
      () => {
        bulkTimer = null;
        void pump();
      },
      Math.max(0, at - Date.now()),
    );
    bulkTimer.unref();
  };

  /** How many bulk attempts may be taken now, out of `free` slots: within the bulk share and the pace. */
  const bulkRoom = (free: number, now: number): number => {
    bucket.tokens = Math.min(bulkLimit, bucket.tokens + ((now - bucket.at) / 1000) * bulkRate);
    bucket.at = now;
    const room = Math.min(free, bulkLimit - bulkTaken, Math.floor(bucket.tokens));
    if (room > 0 && now < bulkIdleUntil) {
      pumpBulkAt(bulkIdleUntil);
      return 0;
    }
    // Over the pace: pump again once a token is due. At the share, a release pumps.
    if (room <= 0 && bulkTaken < bulkLimit && free > 0) pumpBulkAt(now + ((1 - bucket.tokens) / bulkRate) * 1000);
    return Math.max(0, room);
  };

  const take = (jobs: AttemptJob[]) => {
    taken += jobs.length;
    launch(jobs);
  };

  const pump = async (): Promise<void> => {
    if (stopping) return;
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    try {
      do {
        again = false;
        const free = limit - taken;
        if (free <= 0) break;
        const fresh = (await ctx.queue.fetch(deliverWebhook, free, FRESH_PRIORITIES)) as unknown as AttemptJob[];
        if (fresh.length) take(fresh);
        if (fresh.length === free) {
          again = true;
          continue;
        }
        const room = bulkRoom(free - fresh.length, Date.now());
        if (room <= 0 || stopping) continue;
        const bulk = (await ctx.queue.fetch(deliverWebhook, room, BULK_PRIORITIES)) as unknown as AttemptJob[];
        if (!bulk.length) {
          bulkIdleUntil = Date.now() + BULK_IDLE_MS;
          continue;
        }
        bucket.tokens -= bulk.length;
        bulkTaken += bulk.length;
        take(bulk);
        if (bulk.length === room) again = true;
      } while (again && !stopping);
    } catch (err) {
      log.warn({ err }, 'could not fetch webhook deliveries; will retry');
    } finally {
      fetching = false;
    }
  };

  const wakeAt = (at: Date) => {
    const when = at.getTime();
    if (when >= retryAt) return;
    if (retryTimer) clearTimeout(retryTimer);
    retryAt = when;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      retryAt = Infinity;
      void pump();
    }, Math.max(0, when - Date.now()) + 20);
    retryTimer.unref();
  };

  ctx.queue.onWake(deliverWebhook, () => void pump());
  const poll = setInterval(() => void pump(), config.queuePollSeconds * 1000);
  poll.unref();
  // Attempts waiting behind a webhook that has turned slow give their slots back.
  const slowCheck = setInterval(() => {
    for (const share of shares.values()) if (share.held.length && isSlow(share)) postponeHeld(share);
  }, SLOW_CHECK_MS);
  slowCheck.unref();
  void pump();

  return {
    async stop() {
      stopping = true;
      clearInterval(poll);
      clearInterval(slowCheck);
      for (const share of shares.values()) postponeHeld(share);
      if (refill) clearTimeout(refill);
      if (retryTimer) clearTimeout(retryTimer);
      if (bulkTimer) clearTimeout(bulkTimer);
      // Attempts in flight finish (each is bounded by the delivery timeout) and their outcomes are recorded.
      while (sending.size) await Promise.allSettled([...sending]);
      await recorder.drained();
      await sender.close();
    },
  };
}
