/**
 * The waits between attempts, shared by request retries (`resilientFetch`) and the event stream's reconnects
 * (`listen`). Not a retry library: those retry one promise, and neither loop is that; both also obey the
 * server's `Retry-After`, which none of them reads.
 */

export type Backoff = { baseDelayMs: number; maxDelayMs: number };

/** Exponential backoff with full jitter: random in [0, min(max, base · 2^attempt)). */
export function backoffMs(attempt: number, b: Backoff): number {
  return Math.random() * Math.min(b.maxDelayMs, b.baseDelayMs * 2 ** attempt);
}

/** Milliseconds a `Retry-After` asks for (seconds or an HTTP date), or null. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Waits `ms`, or less when `signal` aborts (then resolves: the caller looks at the signal). */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
