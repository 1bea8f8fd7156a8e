import type { AppContext } from '../../context.ts';
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
} from './deliveries.ts';
import { GroupCommit } from '../../infra/group-commit.ts';
import { countDeliveryAttempt } from '../../infra/metrics/deliveries.ts';
import { createSender, type Sender } from '../../infra/outbound/sender.ts';
import { BulkPace } from './bulk-pace.ts';
import { Pacing } from './pacing.ts';
import { Shares, type Held, type Share } from './shares.ts';
import { deliverWebhook } from '../../infra/queue/definitions.ts';

export type DeliveryRunner = { stop(): Promise<void> };

/** After attempts are recorded, fetches are coalesced over this window so one fetch refills several slots. */
const REFILL_MS = 5;
/** Outcomes are recorded by group commit: at most this many transactions at once, each of up to this many. */
const RECORD_LIMITS = { maxRunning: 1, maxBatch: 200 };
/**
 * While a fresh attempt is out, a bulk attempt's outcome waits up to this long for the transaction that
 * the fresh one's outcome will start, rather than starting one of its own: replayed attempts come one every
 * 1/INTAKE_REPLAY_TEAM_RATE s beside other teams' traffic and most of their outcomes found the recorder idle
 * (~0.6 commits per replayed delivery, bench/noisy-neighbour.ts; 0.23 now). With nothing fresh out it would
 * only wait, holding its bulk slot: 12,000 replays alone were not half sent in 90 s (test/platform/job-fairness.test.ts).
 */
const BULK_RECORD_DEFER_MS = 100;
/** A webhook's share (how fast its attempts went) is kept this long after its last attempt. */
const SHARE_MEMORY_MS = 60_000;
/** How often attempts waiting for a webhook that has turned slow are moved out (postponed). */
const SLOW_CHECK_MS = 100;

type Log = AppContext['log'];

/**
 * Records outcomes by group commit. A batch the transaction refused is recorded one outcome at a time; what
 * still fails, pg-boss retries when its job expires. `committed` gets each batch's jobs once it is over and
 * the earliest next attempt it scheduled.
 */
function outcomeRecorder(ctx: AppContext, committed: (jobs: AttemptJob[], next: Date | null) => void): GroupCommit<AttemptOutcome> {
  const one = (outcome: AttemptOutcome) =>
    recordAttempts(ctx, [outcome]).catch((err: unknown) => {
      ctx.log.warn({ err, deliveryId: outcome.job.data.deliveryId }, 'could not record a delivery attempt; its job will be retried');
      return null;
    });
  const earliest = (dates: Array<Date | null>) => dates.reduce<Date | null>((a, d) => (d && (!a || d < a) ? d : a), null);
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
      ctx.log.warn({ err, deliveryId: batch[0]?.job.data.deliveryId }, 'could not record a delivery attempt; its job will be retried');
    } finally {
      committed(
        batch.map((o) => o.job),
        next,
      );
    }
  }, RECORD_LIMITS);
}

/** One timer that fires at the earliest time asked for (a retry this worker scheduled falling due). */
function earliestTimer(fire: () => void) {
  let timer: NodeJS.Timeout | null = null;
  let due = Infinity;
  return {
    at(when: Date) {
      const ms = when.getTime();
      if (ms >= due) return;
      if (timer) clearTimeout(timer);
      due = ms;
      timer = setTimeout(() => {
        timer = null;
        due = Infinity;
        fire();
      }, Math.max(0, ms - Date.now()) + 20);
      timer.unref();
    },
    clear() {
      if (timer) clearTimeout(timer);
    },
  };
}

/** A timer for one pending pump (bulk work held back by its pace or idle wait), unless one is already due. */
function onceTimer(fire: () => void) {
  let timer: NodeJS.Timeout | null = null;
  return {
    at(when: number) {
      if (timer) return;
      timer = setTimeout(
        () => {
          timer = null;
          fire();
        },
        Math.max(0, when - Date.now()),
      );
      timer.unref();
    },
    clear() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

/**
 * The webhook delivery loop of a worker process: keeps up to INTAKE_DELIVERY_CONCURRENCY attempts in flight
 * over keep-alive connections. Attempt jobs are taken from pg-boss in batches as slots free up, their rows
 * loaded in one query, and their outcomes recorded by group commit: each transaction records many attempts,
 * schedules their next attempts and settles their jobs, all or nothing. A slot frees once its outcome is
 * committed. The loop is woken at once by a new job (LISTEN), by a local timer when a retry it scheduled
 * falls due, and otherwise polls.
 *
 * A webhook has at most INTAKE_DELIVERY_CONCURRENCY_PER_WEBHOOK of those attempts, so a receiver that never
 * answers cannot hold every slot (delivery-shares.ts). An attempt fetched for a webhook at its share waits in
 * this worker for a place while the webhook answers quickly (a burst to one fast receiver costs no extra
 * transaction). Once the webhook is slow, its waiting attempts are postponed: each job is settled and the
 * same attempt queued again, in one transaction (by the group commit, as an outcome), and its slot frees once
 * that commits. Postponements of one webhook are spread over the time its share would take to send them, so
 * a long queue behind a slow receiver is fetched again about as fast as it drains, not every second.
 *
 * A paced webhook (`max_per_second`, or a chat provider's limit) is sent within its pace, and a webhook a 429
 * paused waits, across every worker (delivery-pacing.ts).
 *
 * Bulk work (a replay job's attempts, negative priority) is bounded per worker: at most
 * INTAKE_BULK_DELIVERY_CONCURRENCY of its attempts taken at once, started at most INTAKE_BULK_DELIVERY_RATE
 * a second (delivery-bulk-pace.ts). Priority alone only orders the queue: bulk attempts to a fast receiver,
 * taken flat out, would fill every slot between two fresh deliveries and take the process's CPU and database
 * connections from every team's posts, lists and deliveries. Fresh attempts (priority 0 and up) are fetched
 * first and by themselves, so a bulk backlog never takes their slots.
 */
export function startDeliveryRunner(ctx: AppContext, opts: { version: string }): DeliveryRunner {
  const { config } = ctx;
  const sender = createSender({
    timeoutMs: config.deliveryTimeoutMs,
    allowPrivate: config.allowPrivateWebhooks,
    userAgent: `Intake-Webhooks/${opts.version}`,
    connections: config.deliveryConcurrency,
  });
  return new DeliveryLoop(ctx, sender).start();
}

class DeliveryLoop {
  readonly #ctx: AppContext;
  readonly #log: Log;
  readonly #sender: Sender;
  readonly #limit: number;
  readonly #shares: Shares;
  readonly #pacing: Pacing;
  readonly #bulk: BulkPace;
  readonly #recorder: GroupCommit<AttemptOutcome>;
  readonly #sending = new Set<Promise<void>>();
  readonly #retry = earliestTimer(() => void this.pump());
  readonly #bulkTimer = onceTimer(() => void this.pump());
  #taken = 0; // jobs fetched whose outcome is not committed yet
  #stopping = false;
  #fetching = false;
  #again = false;
  #refill: NodeJS.Timeout | null = null;

  constructor(ctx: AppContext, sender: Sender) {
    this.#ctx = ctx;
    this.#log = ctx.log;
    this.#sender = sender;
    this.#limit = ctx.config.deliveryConcurrency;
    this.#shares = new Shares(ctx.config.deliveryConcurrencyPerWebhook, this.#limit);
    this.#pacing = new Pacing(ctx, sender);
    this.#bulk = new BulkPace(ctx.config.bulkDeliveryConcurrency, ctx.config.bulkDeliveryRate, (at) => {
      if (!this.#stopping) this.#bulkTimer.at(at);
    });
    this.#recorder = outcomeRecorder(ctx, (jobs, next) => {
      if (next) this.#retry.at(next);
      this.#release(jobs);
    });
  }

  start(): DeliveryRunner {
    const ctx = this.#ctx;
    ctx.queue.onWake(deliverWebhook, () => void this.pump());
    const poll = setInterval(() => void this.pump(), ctx.config.queuePollSeconds * 1000);
    poll.unref();
    // Attempts waiting behind a webhook that has turned slow give their slots back.
    const slowCheck = setInterval(() => {
      this.#postpone(this.#shares.takeHeld(false));
      this.#pacing.prune();
      this.#shares.prune(SHARE_MEMORY_MS);
    }, SLOW_CHECK_MS);
    slowCheck.unref();
    void this.pump();
    return {
      stop: async () => {
        this.#stopping = true;
        this.#pacing.stopping = true;
        clearInterval(poll);
        clearInterval(slowCheck);
        this.#postpone(this.#shares.takeHeld(true));
        if (this.#refill) clearTimeout(this.#refill);
        this.#retry.clear();
        this.#bulkTimer.clear();
        // Attempts in flight finish (each is bounded by the delivery timeout) and their outcomes are recorded.
        while (this.#sending.size) await Promise.allSettled([...this.#sending]);
        await this.#recorder.drained();
        await this.#sender.close();
      },
    };
  }

  #release(jobs: AttemptJob[]): void {
    this.#taken -= jobs.length;
    for (const job of jobs) if (isBulkAttempt(job)) this.#bulk.taken--;
    if (!this.#refill && !this.#stopping) {
      this.#refill = setTimeout(() => {
        this.#refill = null;
        void this.pump();
      }, REFILL_MS);
    }
  }

  #postpone(groups: Array<{ share: Share; held: Held[] }>): void {
    for (const { share, held } of groups) {
      for (const { job, row } of held) this.#recorder.add({ job, kind: 'postpone', expected: row.attempts, at: this.#shares.postponeUntil(share) });
    }
  }

  #track(work: Promise<void>): void {
    this.#sending.add(work);
    void work.finally(() => this.#sending.delete(work));
  }

  /**
   * Sends one attempt, counted in its webhook's share while it is out (`share`: already counted as started);
   * then the attempts waiting that may start.
   */
  #send(job: AttemptJob, row: AttemptRow | undefined, share: Share | null): void {
    const startedAt = Date.now();
    const outcome = share && row ? this.#pacing.attempt(job, row) : sendAttempt(this.#ctx, this.#sender, job, row);
    this.#track(
      outcome
        .finally(() => {
          if (!share) return;
          this.#shares.finished(share, job.id, Date.now() - startedAt);
          for (const next of this.#shares.startable()) this.#send(next.held.job, next.held.row, next.share);
        })
        .then(
          (o) => {
            if (o.kind !== 'postpone') countDeliveryAttempt(o);
            const freshOut = this.#taken > this.#bulk.taken;
            this.#recorder.add(o, isBulkAttempt(job) && freshOut ? { deferMs: BULK_RECORD_DEFER_MS } : undefined);
          },
          (err: unknown) => {
            this.#log.warn({ err, deliveryId: job.data.deliveryId }, 'delivery attempt failed; its job will be retried');
            this.#release([job]);
          },
        ),
    );
  }

  /** Loads a fetched batch's rows in one query and sends, holds or postpones each attempt by its webhook's share. */
  #launch(jobs: AttemptJob[]): void {
    this.#taken += jobs.length;
    this.#track(
      loadAttempts(this.#ctx, jobs).then(
        (rows) => {
          for (const job of jobs) {
            const row = rows.get(job.data.deliveryId);
            if (!attemptSends(job, row)) {
              this.#send(job, row, null); // skipped or stopped without a request
              continue;
            }
            const share = this.#shares.of(row.webhook_id);
            if (this.#shares.hasRoom(share)) {
              this.#shares.started(share, job.id, Date.now());
              this.#send(job, row, share);
            } else if (this.#stopping || (this.#shares.isFull(share) && this.#shares.isSlow(share))) this.#postpone([{ share, held: [{ job, row }] }]);
            else share.held.push({ job, row });
          }
        },
        (err: unknown) => {
          this.#log.warn({ err }, 'could not load webhook deliveries; their jobs will be retried');
          this.#release(jobs);
        },
      ),
    );
  }

  /** One round of fetching: fresh attempts first for every free slot, then bulk ones within their bound. */
  async #fetchRound(): Promise<void> {
    const free = this.#shares.capacity - this.#taken;
    if (free <= 0) return;
    const fresh = (await this.#ctx.queue.fetch(deliverWebhook, free, FRESH_PRIORITIES)) as unknown as AttemptJob[];
    if (fresh.length) this.#launch(fresh);
    if (fresh.length === free) {
      this.#again = true;
      return;
    }
    const room = this.#bulk.room(free - fresh.length);
    if (room <= 0 || this.#stopping) return;
    const bulk = (await this.#ctx.queue.fetch(deliverWebhook, room, BULK_PRIORITIES)) as unknown as AttemptJob[];
    this.#bulk.took(bulk.length);
    if (!bulk.length) return;
    this.#launch(bulk);
    if (bulk.length === room) this.#again = true;
  }

  async pump(): Promise<void> {
    if (this.#stopping) return;
    if (this.#fetching) {
      this.#again = true;
      return;
    }
    this.#fetching = true;
    try {
      do {
        this.#again = false;
        await this.#fetchRound();
      } while (this.#again && !this.#stopping);
    } catch (err) {
      this.#log.warn({ err }, 'could not fetch webhook deliveries; will retry');
    } finally {
      this.#fetching = false;
    }
  }
}
