import type { AppContext } from '../../context.ts';
import type { AttemptRow } from '../../infra/db/queries/deliveries.ts';
import type { GroupCommit } from '../../infra/group-commit.ts';
import { countDeliveryAttempt } from '../../infra/metrics/deliveries.ts';
import type { Sender } from '../../infra/outbound/sender.ts';
import { ATTEMPT_LANES, deliverWebhook, isBulkAttempt, type AttemptJob } from '../../infra/queue/definitions.ts';
import {
  attemptSends,
  deliverySender,
  loadAttempts,
  makeAttempt,
  type AttemptOutcome,
  type AttemptTools,
} from './attempt.ts';
import { Pacing } from './pacing.ts';
import { outcomeRecorder } from './record.ts';
import { BulkPace, Shares, type Held, type Share } from './shares.ts';

export type DeliveryRunner = { stop(): Promise<void> };

/** After attempts are recorded, fetches are coalesced over this window so one fetch refills several slots. */
const REFILL_MS = 5;
/**
 * While a fresh attempt is out, a bulk attempt's outcome waits up to this long to ride along in the
 * transaction the fresh one's outcome will start, rather than start one of its own. With nothing fresh out
 * it goes at once: waiting would only hold its bulk slot.
 */
const BULK_RECORD_DEFER_MS = 100;
/** A webhook's share (how fast its attempts went) is kept this long after its last attempt. */
const SHARE_MEMORY_MS = 60_000;
/** How often attempts waiting for a webhook that has turned slow are moved out (postponed). */
const SLOW_CHECK_MS = 100;

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
      timer = setTimeout(
        () => {
          timer = null;
          due = Infinity;
          fire();
        },
        Math.max(0, ms - Date.now()) + 20,
      );
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
 * A worker's webhook delivery loop: up to INTAKE_DELIVERY_CONCURRENCY attempts in flight over keep-alive
 * connections. Jobs are fetched in batches as slots free up (fresh work first, then bulk work within its
 * bound), each attempt counted in its webhook's share (shares.ts) and made by `makeAttempt`, and outcomes
 * recorded by group commit (record.ts); a slot frees once its outcome is committed. The loop is woken by a
 * new job (LISTEN), by a timer when a retry it scheduled falls due, and otherwise polls.
 */
export function startDeliveryRunner(ctx: AppContext, opts: { version: string }): DeliveryRunner {
  const sender = deliverySender(ctx, { version: opts.version, connections: ctx.config.deliveryConcurrency });
  return new DeliveryLoop(ctx, sender).start();
}

class DeliveryLoop {
  readonly #ctx: AppContext;
  readonly #tools: AttemptTools;
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
    this.#shares = new Shares(ctx.config.deliveryConcurrencyPerWebhook, ctx.config.deliveryConcurrency);
    this.#pacing = new Pacing(ctx);
    this.#tools = { ctx, sender, pacing: this.#pacing };
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
        await this.#tools.sender.close();
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

  /** Attempts held for a webhook that is slow (or all, when stopping) go back to the queue, spread over its share's pace. */
  #postpone(groups: Array<{ share: Share; held: Held[] }>): void {
    for (const { share, held } of groups) {
      for (const { job, row } of held)
        this.#recorder.add({
          job,
          kind: 'postpone',
          teamId: row.team_id,
          expected: row.attempts,
          at: this.#shares.postponeUntil(share),
        });
    }
  }

  #track(work: Promise<void>): void {
    this.#sending.add(work);
    void work.finally(() => this.#sending.delete(work));
  }

  /**
   * Makes one attempt, counted in its webhook's share while it is out (`share`: already counted as started;
   * null: it sends nothing); then starts the attempts waiting that may.
   */
  #send(job: AttemptJob, row: AttemptRow | undefined, share: Share | null): void {
    const startedAt = Date.now();
    this.#track(
      makeAttempt(this.#tools, job, row)
        .finally(() => {
          if (!share) return;
          this.#shares.finished(share, job.id, Date.now() - startedAt);
          for (const next of this.#shares.startable()) this.#send(next.held.job, next.held.row, next.share);
        })
        .then(
          (outcome) => {
            countDeliveryAttempt(outcome);
            const freshOut = this.#taken > this.#bulk.taken;
            this.#recorder.add(outcome, isBulkAttempt(job) && freshOut ? { deferMs: BULK_RECORD_DEFER_MS } : undefined);
          },
          (err: unknown) => {
            this.#ctx.log.warn(
              { err, deliveryId: job.data.deliveryId },
              'delivery attempt failed; its job will be retried',
            );
            this.#release([job]);
          },
        ),
    );
  }

  /**
   * Loads a fetched batch's rows in one query; each attempt that sends starts if its webhook's share has room,
   * else waits in the worker while the webhook answers quickly, or is postponed once it is slow.
   */
  #launch(jobs: AttemptJob[]): void {
    this.#taken += jobs.length;
    this.#track(
      loadAttempts(this.#ctx, jobs).then(
        (rows) => {
          for (const job of jobs) {
            const row = rows.get(job.data.deliveryId);
            if (!attemptSends(job, row)) {
              this.#send(job, row, null);
              continue;
            }
            const share = this.#shares.of(row.webhook_id);
            if (this.#shares.hasRoom(share)) {
              this.#shares.started(share, job.id, Date.now());
              this.#send(job, row, share);
            } else if (this.#stopping || (this.#shares.isFull(share) && this.#shares.isSlow(share))) {
              this.#postpone([{ share, held: [{ job, row }] }]);
            } else share.held.push({ job, row });
          }
        },
        (err: unknown) => {
          this.#ctx.log.warn({ err }, 'could not load webhook deliveries; their jobs will be retried');
          this.#release(jobs);
        },
      ),
    );
  }

  /**
   * One round of fetching: fresh attempts first for every free slot, then bulk ones (a replay's) within their
   * bound, so a bulk backlog never takes fresh work's slots nor the process's CPU and connections.
   */
  async #fetchRound(): Promise<void> {
    const free = this.#shares.capacity - this.#taken;
    if (free <= 0) return;
    const fresh = await this.#ctx.queue.fetch(deliverWebhook, free, ATTEMPT_LANES.fresh);
    if (fresh.length) this.#launch(fresh);
    if (fresh.length === free) {
      this.#again = true;
      return;
    }
    const room = this.#bulk.room(free - fresh.length);
    if (room <= 0 || this.#stopping) return;
    const bulk = await this.#ctx.queue.fetch(deliverWebhook, room, ATTEMPT_LANES.bulk);
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
      this.#ctx.log.warn({ err }, 'could not fetch webhook deliveries; will retry');
    } finally {
      this.#fetching = false;
    }
  }
}
