import type { AttemptRow } from '../../infra/db/queries/deliveries.ts';
import type { AttemptJob } from '../../infra/queue/definitions.ts';

/** How one worker's delivery slots are shared: among webhooks (Shares), and with bulk work (BulkPace). */

/** An attempt postponed because its webhook had its share in flight goes again after at least this long… */
const POSTPONE_MIN_MS = 1_000;
/** …and at most this long, however long the webhook's queue. */
const POSTPONE_MAX_MS = 30_000;
/**
 * A webhook whose attempts take longer than this (its recent average, or its oldest in flight) is slow:
 * attempts over its share are postponed. A quicker one's wait in this worker for a free place in its share.
 */
const SLOW_MS = 500;
/** A webhook whose last attempts averaged under this, none out longer, after at least a share's worth of them, is fast. */
const FAST_MS = 100;

export type Held = { job: AttemptJob; row: AttemptRow };

/** A webhook's attempts in flight in this worker, those waiting for a place, and how long its recent attempts took. */
export type Share = {
  webhookId: string;
  started: Map<string, number>;
  held: Held[];
  averageMs: number;
  horizon: number;
  done: number;
  lastAt: number;
};

/**
 * The per-webhook shares of one worker's delivery slots (INTAKE_DELIVERY_CONCURRENCY_PER_WEBHOOK each). A
 * **fast** webhook (a share's worth of attempts done, averaging under FAST_MS, none out SLOW_MS) may take
 * every slot, so one busy endpoint runs as fast as without shares. While any webhook is over its share, the
 * others may go one share's worth beyond the worker's limit (the reserve), so a burster that stops answering
 * delays no one; from SLOW_MS on it keeps to its share. A receiver silent from the start never has more.
 */
export class Shares {
  readonly #shares = new Map<string, Share>();
  readonly perWebhook: number;
  readonly #limit: number;
  #inFlight = 0;

  /** `limit`: the worker's slots (INTAKE_DELIVERY_CONCURRENCY). */
  constructor(perWebhook: number, limit: number) {
    this.perWebhook = perWebhook;
    this.#limit = limit;
  }

  /** How many attempt jobs the worker may hold at once: its slots, the reserve, and as many waiting. */
  get capacity(): number {
    return this.#limit + this.perWebhook;
  }

  of(webhookId: string): Share {
    let share = this.#shares.get(webhookId);
    if (!share) {
      share = { webhookId, started: new Map(), held: [], averageMs: 0, horizon: 0, done: 0, lastAt: Date.now() };
      this.#shares.set(webhookId, share);
    }
    return share;
  }

  /** Whether another attempt of the webhook may start now (see the class). */
  hasRoom(share: Share): boolean {
    if (share.started.size < this.perWebhook) {
      return this.#inFlight < this.#limit || (this.#inFlight < this.#limit + this.perWebhook && this.#anyBursting());
    }
    return this.#inFlight < this.#limit && this.#isFast(share);
  }

  /** Whether its own share is full (an attempt over it waits, or is postponed once the webhook is slow). */
  isFull(share: Share): boolean {
    return share.started.size >= this.perWebhook;
  }

  #anyBursting(): boolean {
    for (const share of this.#shares.values()) if (share.started.size > this.perWebhook) return true;
    return false;
  }

  #isFast(share: Share): boolean {
    return share.done >= this.perWebhook && share.averageMs < FAST_MS && !this.isSlow(share);
  }

  started(share: Share, jobId: string, at: number): void {
    share.started.set(jobId, at);
    this.#inFlight += 1;
  }

  /** An attempt of the share ended after `ms`. */
  finished(share: Share, jobId: string, ms: number): void {
    if (share.started.delete(jobId)) this.#inFlight -= 1;
    share.averageMs = 0.8 * share.averageMs + 0.2 * ms;
    share.done += 1;
    share.lastAt = Date.now();
  }

  /** Forgets the shares of webhooks with nothing out or waiting for this long (their history with them). */
  prune(idleMs: number, now = Date.now()): void {
    for (const [id, share] of this.#shares)
      if (!share.started.size && !share.held.length && now - share.lastAt > idleMs) this.#shares.delete(id);
  }

  /** The attempts waiting in any share that may start now, taken out (each share's in its order). */
  startable(): Array<{ share: Share; held: Held }> {
    const out: Array<{ share: Share; held: Held }> = [];
    for (const share of this.#shares.values()) {
      while (share.held.length && this.hasRoom(share)) {
        const held = share.held.shift()!;
        this.started(share, held.job.id, Date.now());
        out.push({ share, held });
      }
    }
    return out;
  }

  isSlow(share: Share): boolean {
    if (share.averageMs > SLOW_MS) return true;
    const now = Date.now();
    for (const at of share.started.values()) if (now - at > SLOW_MS) return true;
    return false;
  }

  /** When a postponed attempt of this webhook should go again: after the ones already postponed, as its share drains them. */
  postponeUntil(share: Share): Date {
    const now = Date.now();
    let oldest = now;
    for (const at of share.started.values()) oldest = Math.min(oldest, at);
    const spacing = Math.max(share.averageMs, now - oldest) / this.perWebhook;
    const at = Math.min(Math.max(now + POSTPONE_MIN_MS, share.horizon), now + POSTPONE_MAX_MS);
    share.horizon = at + spacing;
    return new Date(at);
  }

  /** The attempts waiting in full shares that are slow (with `all`: in every share), taken out to be postponed. */
  takeHeld(all: boolean): Array<{ share: Share; held: Held[] }> {
    const out: Array<{ share: Share; held: Held[] }> = [];
    for (const share of this.#shares.values()) {
      if (share.held.length && (all || (this.isFull(share) && this.isSlow(share))))
        out.push({ share, held: share.held.splice(0) });
    }
    return out;
  }
}

/**
 * After a fetch of bulk attempts found none, the next one waits this long: otherwise every refill without
 * bulk work waiting would cost a second, empty fetch.
 */
const BULK_IDLE_MS = 250;

/**
 * Bulk work (a replay job's attempts) in one worker: at most `limit` taken at once, started at most `rate` a
 * second (a token bucket as deep as the limit). `schedule` asks for a pump at a time (held back by the pace or
 * the idle wait).
 */
export class BulkPace {
  readonly #limit: number;
  readonly #rate: number;
  readonly #schedule: (at: number) => void;
  #tokens: number;
  #at = Date.now();
  #idleUntil = 0;
  /** Bulk attempts taken whose outcome is not committed yet. */
  taken = 0;

  constructor(limit: number, rate: number, schedule: (at: number) => void) {
    this.#limit = limit;
    this.#rate = rate;
    this.#tokens = limit;
    this.#schedule = schedule;
  }

  /** How many bulk attempts may be taken now, out of `free` slots: within the bulk share and the pace. */
  room(free: number, now = Date.now()): number {
    this.#tokens = Math.min(this.#limit, this.#tokens + ((now - this.#at) / 1000) * this.#rate);
    this.#at = now;
    const room = Math.min(free, this.#limit - this.taken, Math.floor(this.#tokens));
    if (room > 0 && now < this.#idleUntil) {
      this.#schedule(this.#idleUntil);
      return 0;
    }
    // Over the pace: pump again once a token is due. At the share, a release pumps.
    if (room <= 0 && this.taken < this.#limit && free > 0)
      this.#schedule(now + ((1 - this.#tokens) / this.#rate) * 1000);
    return Math.max(0, room);
  }

  took(n: number): void {
    if (!n) {
      this.#idleUntil = Date.now() + BULK_IDLE_MS;
      return;
    }
    this.#tokens -= n;
    this.taken += n;
  }
}
