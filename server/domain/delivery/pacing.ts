import type { AppContext } from '../../context.ts';
import { paceGapMs, pauseFor429, sendAttempt, takeSlot, type AttemptJob, type AttemptOutcome, type AttemptRow } from './deliveries.ts';
import type { Sender } from '../../infra/outbound/sender.ts';

/**
 * A paced webhook's attempt whose slot (or pause's end) is this close waits for it in the worker; a later
 * one is postponed to it (a new job, no attempt spent).
 */
const LOCAL_WAIT_MS = 1_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Sends attempts within their webhooks' pace and pauses (the limits live in Postgres, domain/deliveries.ts
 * takeSlot). This worker also remembers the pauses it saw, so its own attempts in flight of a webhook that
 * just answered 429 wait too, and spaces the postponements of one paced webhook a gap apart, so they do
 * not all come back for the same slot.
 */
export class Pacing {
  readonly #ctx: AppContext;
  readonly #sender: Sender;
  readonly #pauses = new Map<string, number>();
  readonly #horizons = new Map<string, number>();
  stopping = false;

  constructor(ctx: AppContext, sender: Sender) {
    this.#ctx = ctx;
    this.#sender = sender;
  }

  /** One attempt: sent once its slot is free, or postponed to the slot; a 429 with `Retry-After` pauses its webhook. */
  async attempt(job: AttemptJob, row: AttemptRow): Promise<AttemptOutcome> {
    for (;;) {
      const pausedUntil = this.#pauses.get(row.webhook_id) ?? 0;
      const wait = pausedUntil > Date.now() ? { at: new Date(pausedUntil) } : await takeSlot(this.#ctx, row);
      if (!wait) break;
      const ms = wait.at.getTime() - Date.now();
      if (ms > LOCAL_WAIT_MS || this.stopping) return { job, kind: 'postpone', expected: row.attempts, at: this.#spread(row, wait.at) };
      await sleep(Math.max(0, ms));
    }
    const outcome = await sendAttempt(this.#ctx, this.#sender, job, row);
    const paused = await pauseFor429(this.#ctx, outcome);
    if (!paused || paused.kind !== 'postpone') return outcome;
    this.#pauses.set(row.webhook_id, paused.at.getTime());
    return paused;
  }

  #spread(row: AttemptRow, at: Date): Date {
    const gap = paceGapMs(row);
    if (gap === null) return at;
    const when = Math.max(at.getTime(), this.#horizons.get(row.webhook_id) ?? 0);
    this.#horizons.set(row.webhook_id, when + gap);
    return new Date(when);
  }

  /** Forgets pauses and spacings that are over. */
  prune(now = Date.now()): void {
    for (const [id, at] of this.#pauses) if (at < now) this.#pauses.delete(id);
    for (const [id, at] of this.#horizons) if (at < now) this.#horizons.delete(id);
  }
}
