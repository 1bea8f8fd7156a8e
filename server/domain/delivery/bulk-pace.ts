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
    if (room <= 0 && this.taken < this.#limit && free > 0) this.#schedule(now + ((1 - this.#tokens) / this.#rate) * 1000);
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
