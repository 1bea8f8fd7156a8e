import type { AttemptJob, AttemptRow } from '../domain/deliveries.ts';

/** An attempt postponed because its webhook had its share in flight goes again after at least this long… */
const POSTPONE_MIN_MS = 1_000;
/** …and at most this long, however long the webhook's queue. */
const POSTPONE_MAX_MS = 30_000;
/**
 * A webhook whose attempts take longer than this (its recent average, or its oldest in flight) is slow:
 * attempts over its share are postponed. A quicker one's wait in this worker for a free place in its share.
 */
export const SLOW_MS = 500;
/**
 * A webhook whose last attempts averaged under this, none out longer, after at least a share's worth of
 * them, is fast: it may use every slot but one share's worth (see `room`).
 */
const FAST_MS = 100;

export type Held = { job: AttemptJob; row: AttemptRow };

/** A webhook's attempts in flight in this worker, those waiting for a place, and how long its recent attempts took. */
export type Share = { webhookId: string; started: Map<string, number>; held: Held[]; averageMs: number; horizon: number; done: number; lastAt: number };

/** The per-webhook shares of one worker's delivery slots (INTAKE_DELIVERY_CONCURRENCY_PER_WEBHOOK each). */
export class Shares {
  readonly #shares = new Map<string, Share>();
  readonly perWebhook: number;
  readonly #burst: number;

  /** `limit`: the worker's slots. */
  constructor(perWebhook: number, limit: number) {
    this.perWebhook = perWebhook;
    this.#burst = Math.max(perWebhook, limit - perWebhook);
  }

  of(webhookId: string): Share {
    let share = this.#shares.get(webhookId);
    if (!share) {
      share = { webhookId, started: new Map(), held: [], averageMs: 0, horizon: 0, done: 0, lastAt: Date.now() };
      this.#shares.set(webhookId, share);
    }
    return share;
  }

  /**
   * Whether another attempt of the webhook may start. Its share, or, while it is fast, every slot but one
   * share's worth: one busy endpoint that answers at once then runs nearly as fast as without shares (the
   * bench's one-webhook shape), and should it stop answering, the slots it holds are at most that many for
   * one timeout, the last share's worth still free for every other webhook, and its further attempts keep
   * to the share (it is slow after SLOW_MS). A receiver silent from the start never has more than its share.
   */
  hasRoom(share: Share): boolean {
    if (share.started.size < this.perWebhook) return true;
    return share.started.size < this.#burst && this.#isFast(share);
  }

  #isFast(share: Share): boolean {
    return share.done >= this.perWebhook && share.averageMs < FAST_MS && !this.isSlow(share);
  }

  /** An attempt of the share ended after `ms`: the next one waiting for a place, if any. */
  finished(share: Share, jobId: string, ms: number): Held | undefined {
    share.started.delete(jobId);
    share.averageMs = 0.8 * share.averageMs + 0.2 * ms;
    share.done += 1;
    share.lastAt = Date.now();
    return share.held.shift();
  }

  /** Forgets the shares of webhooks with nothing out or waiting for this long (their history with them). */
  prune(idleMs: number, now = Date.now()): void {
    for (const [id, share] of this.#shares) if (!share.started.size && !share.held.length && now - share.lastAt > idleMs) this.#shares.delete(id);
  }

  /** The attempts waiting for this share that may start now (it had a place free, or is fast). */
  startable(share: Share): Held[] {
    const out: Held[] = [];
    while (share.held.length && share.started.size + out.length < this.#cap(share)) out.push(share.held.shift()!);
    return out;
  }

  #cap(share: Share): number {
    return this.#isFast(share) ? this.#burst : this.perWebhook;
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

  /** The attempts waiting in shares that are (or, with `all`, may be) slow, taken out to be postponed. */
  takeHeld(all: boolean): Array<{ share: Share; held: Held[] }> {
    const out: Array<{ share: Share; held: Held[] }> = [];
    for (const share of this.#shares.values()) if (share.held.length && (all || this.isSlow(share))) out.push({ share, held: share.held.splice(0) });
    return out;
  }
}
