import type { Request, Response } from 'express';
import type { Socket } from 'node:net';
import { limitSubject } from '../../domain/ingest/client-address.ts';
import { AppError } from '../../domain/shared/errors.ts';
import { slidingCount, slidingWaitMs } from '../../infra/sliding-window.ts';

/** Addresses tracked in one window; past it a new address is not counted, so memory stays bounded. */
const MAX_ADDRESSES = 100_000;
/** Refused requests held (unread, unanswered) at once in this process; past it one is cut without an answer. */
const MAX_HELD = 1_000;

/**
 * Failed authentications per client address (IPv6: its /64), in this process's memory, so a flood without a
 * valid token costs almost nothing. Only failures count and only failures are refused: a valid token from the
 * same address (a NAT, a proxy) is never held back. The minute slides, so failures cannot bunch at its start.
 */
export class AuthFailures {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly delayMs: number;
  #windowStart = 0;
  #hits = new Map<string, number>();
  /** The failures of the window before, per address: they fade out over the current window. */
  #previous = new Map<string, number>();
  /** Refused requests being held now (see refuseFailedAuth). */
  held = 0;

  constructor(limit: number, delayMs: number, windowSeconds = 60) {
    this.#limit = limit;
    this.delayMs = delayMs;
    this.#windowMs = windowSeconds * 1000;
  }

  /** Counts one failure of `ip`; the 429 to answer once its sliding count is past the limit. */
  hit(ip: string | undefined, now = Date.now()): AppError | null {
    // One window for every address, so the maps are dropped whole as they age instead of swept key by key.
    const start = now - (now % this.#windowMs);
    if (start !== this.#windowStart) {
      this.#previous = start - this.#windowStart === this.#windowMs ? this.#hits : new Map();
      this.#windowStart = start;
      this.#hits = new Map();
    }
    const key = limitSubject(ip ?? '');
    if (!this.#hits.has(key) && this.#hits.size >= MAX_ADDRESSES) return null;
    const hits = (this.#hits.get(key) ?? 0) + 1;
    this.#hits.set(key, hits);
    const windows = {
      previous: this.#previous.get(key) ?? 0,
      current: hits,
      elapsedMs: now - start,
      windowMs: this.#windowMs,
    };
    if (slidingCount(windows) <= this.#limit) return null;
    // Until one more failure would be within the limit.
    const retryAfter = Math.max(1, Math.ceil(slidingWaitMs(windows, this.#limit - 1) / 1000));
    return new AppError(
      'rate_limited',
      `Too many requests without a valid token from this address (${this.#limit} a minute); try again later.`,
      {
        retry_after: retryAfter,
      },
    );
  }
}

/**
 * Holds a refused request unread for the delay plus up to half again, at random, then answers 429 and cuts
 * the connection. Holding bounds a looping client to one refusal per connection per delay; the jitter keeps
 * its connections out of step (docs/decisions.md). Past MAX_HELD the connection is cut without an answer.
 */
export function refuseFailedAuth(failures: AuthFailures, req: Request, res: Response, refusal: AppError): void {
  const socket = req.socket;
  if (failures.held >= MAX_HELD) return void socket.destroy();
  failures.held += 1;
  dropBody(req);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    failures.held -= 1;
  };
  const answer = () => {
    release();
    if (socket.destroyed) return;
    res.setHeader('Connection', 'close');
    res.setHeader('Retry-After', String(refusal.extra.retry_after));
    res.once('finish', () => socket.destroy());
    res.status(refusal.status).json(refusal.toBody());
  };
  const timer = setTimeout(answer, failures.delayMs * (1 + Math.random() / 2));
  socket.once('close', () => {
    clearTimeout(timer);
    release();
  });
}

/**
 * Stops reading a held request's connection and drops the body bytes already read, which would otherwise
 * survive into V8's old space. `_paused` is the flag Node's HTTP server sets to stop a connection's reads, so
 * resuming the request only empties its buffer; the rest stays in the kernel until the connection is cut.
 */
function dropBody(req: Request): void {
  const socket = req.socket as Socket & { _paused?: boolean };
  socket._paused = true;
  socket.pause();
  req.resume();
  req.body = undefined;
}
