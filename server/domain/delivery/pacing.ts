import { PROVIDER_PACE } from '../../../contract/webhooks.ts';
import type { AppContext } from '../../context.ts';
import type { AttemptRow } from '../../infra/db/queries/deliveries.ts';
import { pauseWebhook, takeSendSlot } from '../../infra/db/queries/webhooks.ts';
import type { SendOutcome } from '../../infra/outbound/sender.ts';

/**
 * A paced webhook's `rate` slots span this much more than a second: the slot is taken before the request
 * leaves, and requests' trips to the receiver differ by tens of milliseconds, so slots exactly 1/rate apart
 * could put rate + 1 requests into one second at the receiver.
 */
const PACE_ROOM_MS = 250;
/** A 429's `Retry-After` longer than this is an ordinary failed attempt (a pause must not hold deliveries for days). */
const MAX_PAUSE_SECONDS = 3_600;
/** An attempt whose slot (or pause's end) is this close waits for it in the worker; a later one is postponed to it. */
const LOCAL_WAIT_MS = 1_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The time between two sends to a paced webhook (its `max_per_second`, or its chat provider's limit), in ms; null: unpaced. */
function paceGapMs(row: Pick<AttemptRow, 'provider' | 'max_per_second'>): number | null {
  const rate = row.max_per_second ?? PROVIDER_PACE[row.provider as keyof typeof PROVIDER_PACE] ?? null;
  return rate === null ? null : (1000 + PACE_ROOM_MS) / rate;
}

/**
 * Whether an attempt may be sent now: a paused webhook's waits for the pause's end; a paced webhook's takes
 * the webhook's next send slot in Postgres (shared by every worker) or is told when the next one is free.
 */
async function takeSlot(ctx: AppContext, row: AttemptRow): Promise<{ at: Date } | null> {
  if (row.paused_until && new Date(row.paused_until).getTime() > Date.now()) return { at: new Date(row.paused_until) };
  const gap = paceGapMs(row);
  if (gap === null) return null;
  const slot = await takeSendSlot(ctx.db, row.team_id, row.webhook_id, gap);
  return slot.taken ? null : { at: slot.at };
}

/**
 * Webhooks' pace and pauses, for one worker's attempts. The limits live in Postgres, shared by every worker;
 * this worker also remembers the pauses it saw, so its own attempts in flight to a webhook that just answered
 * 429 wait too, and spaces the postponements of one paced webhook a gap apart, so they do not all come back
 * for the same slot.
 */
export class Pacing {
  readonly #ctx: AppContext;
  readonly #pauses = new Map<string, number>();
  readonly #horizons = new Map<string, number>();
  stopping = false;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
  }

  /** Null once the webhook's attempt may go (having waited in the worker for a close slot), else when to postpone it to. */
  async slot(row: AttemptRow): Promise<Date | null> {
    for (;;) {
      const pausedUntil = this.#pauses.get(row.webhook_id) ?? 0;
      const wait = pausedUntil > Date.now() ? { at: new Date(pausedUntil) } : await takeSlot(this.#ctx, row);
      if (!wait) return null;
      const ms = wait.at.getTime() - Date.now();
      if (ms > LOCAL_WAIT_MS || this.stopping) return this.#spread(row, wait.at);
      await sleep(Math.max(0, ms));
    }
  }

  /**
   * A receiver's 429 with a usable `Retry-After` pauses the whole webhook until then, for every worker; the
   * attempt is not counted and goes again when the pause ends. Returns that end, or null (an ordinary answer).
   */
  async pauseFor429(
    row: Pick<AttemptRow, 'team_id' | 'webhook_id'>,
    out: Pick<SendOutcome, 'httpStatus' | 'retryAfter'>,
  ): Promise<Date | null> {
    if (out.httpStatus !== 429 || out.retryAfter === null || out.retryAfter > MAX_PAUSE_SECONDS) return null;
    const webhookId = row.webhook_id;
    const until = await pauseWebhook(
      this.#ctx.db,
      row.team_id,
      webhookId,
      new Date(Date.now() + Math.max(1, out.retryAfter) * 1000),
    );
    this.#pauses.set(webhookId, until.getTime());
    return until;
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
