import type { Request, Response } from 'express';
import type { Socket } from 'node:net';
import { limitSubject } from '../../domain/ingest/client-address.ts';
import { AppError } from '../../domain/shared/errors.ts';
import { slidingCount, slidingWaitMs } from '../../domain/shared/sliding-window.ts';

/** Addresses tracked in one window: past it a new address is not counted (memory stays bounded under a spread-out flood). */
const MAX_ADDRESSES = 100_000;
/** Refused requests held (unread, unanswered) at once in this process; past it one is cut without an answer. */
const MAX_HELD = 1_000;

/**
 * Requests that fail authentication, counted per client address (its /64 for IPv6) in this process's
 * memory: a request without a valid token must cost almost nothing, and a client sending hundreds a second
 * (1 MB bodies to `/mcp`, say) would otherwise keep a core busy accepting, answering and draining them. Only
 * failures count and only failures are refused, so a valid token — or a public post — from the same
 * address (a NAT, a proxy, another tenant on the same host) is never held back by them.
 *
 * The count slides: the previous minute's failures weigh on the current one in proportion to what is left
 * of it (the estimate a sliding window of one minute would hold). A fixed window let a client that failed
 * all minute long send `limit` failures at once as each minute began, every one of them answered at once —
 * 60 bodies of 1 MB arriving together each minute, a burst every other tenant felt; sliding, a client that
 * keeps failing gets no more than the limit over any minute, spread out.
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
    const windows = { previous: this.#previous.get(key) ?? 0, current: hits, elapsedMs: now - start, windowMs: this.#windowMs };
    if (slidingCount(windows) <= this.#limit) return null;
    // Until one more failure would be within the limit.
    const retryAfter = Math.max(1, Math.ceil(slidingWaitMs(windows, this.#limit - 1) / 1000));
    return new AppError('rate_limited', `Too many requests without a valid token from this address (${this.#limit} a minute); try again later.`, {
      retry_after: retryAfter,
    });
  }
}

/**
 * Answers a request refused for its failed authentications: held unread for the failures' delay
 * (INTAKE_AUTH_FAILURE_DELAY_MS) to half as long again, at random, then the 429 with `Retry-After`, and the
 * connection cut as soon as it is written — nothing of the body is read or drained. Measured
 * (bench/noisy-neighbour.ts): answered at once, a client looping on 30 connections got ~1,000 refusals a
 * second and kept half a core of the server (and a third of one of its own) busy; held, each connection is
 * refused at most once per delay. Held for exactly the delay, those 30 stayed in step: answered, reconnected
 * and refused again together, a burst of the server's work each second that other teams' requests met
 * (the CPU profile's busiest 50 ms of each second); the random part spreads them over the delay. Past
 * MAX_HELD held at once the connection is cut without an answer.
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
 * Stops reading a held request's connection and lets go of what of its body was already read: the read
 * that brought the headers brought up to 64 kB of the body with them. Held with the request, that Buffer
 * lived through two scavenges into the old space, where only a mark-compact frees it. Measured
 * (bench/noisy-neighbour.ts): 30 connections refused ~25 times a second piled up ~1.5 MB/s of them there,
 * and V8 ran a mark-compact for external memory every ~40 s — twice the quiet run's major GC time, gone
 * with the deep bodies. `_paused` is the flag Node's HTTP server itself sets to stop a connection's reads
 * while responses are pending: set, the request's stream cannot restart them, so letting the request flow
 * only empties its buffer, and the rest of the body stays unread in the kernel until the connection is cut.
 */
function dropBody(req: Request): void {
  const socket = req.socket as Socket & { _paused?: boolean };
  socket._paused = true;
  socket.pause();
  req.resume();
  req.body = undefined;
}
