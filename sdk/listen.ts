import { createParser } from 'eventsource-parser';
import type { z } from 'zod';
import type { SubmissionCreatedEvent } from '../contract/events.ts';
import { backoffMs, retryAfterMs, sleep } from './backoff.ts';

/** The `submission.created` webhook body: what each streamed event carries. */
export type SubmissionCreated = z.infer<typeof SubmissionCreatedEvent>;

/** One event of `client.listen()`. */
export type ListenEvent = {
  /** The event id: pass it as `lastEventId` to resume right after this event (in this process or another). */
  id: string;
  /** `submission`: a clean submission, processed. `spam`: one filed as spam (only with `include: 'spam'`). */
  event: 'submission' | 'spam';
  submission: SubmissionCreated;
  /** The JSON text exactly as sent: the bytes a webhook receiver would be sent (sign these, not a re-serialisation). */
  data: string;
};

export type ListenOptions = {
  /** Resume after this event id; without it, the stream starts now. */
  lastEventId?: string;
  /** Also yield the submissions filed as spam. */
  include?: 'spam';
  /** Ends the iteration (without an error) when aborted. */
  signal?: AbortSignal;
  /** Called each time a connection is established (again). */
  onConnect?: () => void;
  /** Called when the connection was lost or refused for now, before waiting `delayMs` to reconnect. */
  onReconnect?: (info: { delayMs: number; error: unknown }) => void;
  /** Backoff between failed connection attempts: full jitter, doubling from `baseDelayMs` up to `maxDelayMs`. Default 500 and 30,000. */
  backoff?: { baseDelayMs?: number; maxDelayMs?: number };
  /** A connection that sends nothing (not even its heartbeat) this long is taken for dead and reconnected. Default 50,000 (three missed heartbeats). */
  silenceMs?: number;
};

/** A server-sent message as the EventSource algorithm dispatches it (id persists across messages). */
export type SseMessage = { id: string | null; event: string; data: string; hasData: boolean; retry: number | null };

/**
 * Parses a `text/event-stream` body (WHATWG HTML §9.2) with `eventsource-parser`, which keeps a long event
 * split over many small chunks linear in its size. One message per dispatched block: besides the blocks
 * with data, a block with only an `id` is yielded too (`hasData: false`), since the stream's first message
 * is the position "now" that a reconnect resumes from. The last `retry` seen rides on the next message.
 */
export async function* parseEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder('utf-8');
  const ready: SseMessage[] = [];
  let lastId: string | null = null;
  let retry: number | null = null;
  // The parser reports a block's id (onId) just before its data (onEvent): the two make one message.
  let idOnly: SseMessage | null = null;
  const parser = createParser({
    onRetry: (ms) => {
      retry = ms;
    },
    onId: (id) => {
      lastId = id;
      idOnly = { id, event: 'message', data: '', hasData: false, retry };
      retry = null;
      ready.push(idOnly);
    },
    onEvent: (m) => {
      const message = {
        id: lastId,
        event: m.event ?? 'message',
        data: m.data,
        hasData: true,
        retry: idOnly && m.id !== undefined ? idOnly.retry : retry,
      };
      if (idOnly && m.id !== undefined) ready.splice(ready.indexOf(idOnly), 1, message);
      else ready.push(message);
      idOnly = null;
      retry = null;
    },
  });
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      parser.feed(done ? decoder.decode() : decoder.decode(value, { stream: true }));
      idOnly = null;
      while (ready.length) yield ready.shift()!;
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** A stream that stays silent this long (three missed heartbeats) is taken for dead and reconnected. */
const SILENCE_MS = 50_000;

export type ListenTransport = {
  url: string;
  token: string;
  fetch: typeof fetch;
  /** Makes the error for a refused connection or an `error` event (the SDK's IntakeError). */
  error(response: { status: number; body: unknown; headers: Headers }): Error;
};

/** A refusal that waiting cannot fix: `listen` throws its cause. */
class Refused extends Error {
  readonly refusal: Error;
  constructor(refusal: Error) {
    super(refusal.message);
    this.refusal = refusal;
  }
}

/** A refusal for now (429, 5xx): reconnect after `Retry-After`, or the backoff without one. */
class Busy extends Error {
  readonly afterMs: number | null;
  readonly refusal: Error;
  constructor(refusal: Error, afterMs: number | null) {
    super(refusal.message);
    this.refusal = refusal;
    this.afterMs = afterMs;
  }
}

/** What a connection leaves for the next one: where to resume, and the wait the server asked for after a clean end. */
type Resume = { lastEventId: string | null; retryMs: number };

/**
 * New submissions of a form as they are processed, from `GET /v1/forms/{form}/submissions/stream`, until
 * `signal` aborts. A dropped connection (or a server shutting down) is reconnected with `Last-Event-ID`,
 * so every event comes exactly once. Refusals that waiting cannot fix (400, 401, 403, 404, or the stream
 * ending because the token was revoked or the form deleted) throw.
 */
export async function* listenTo(
  transport: ListenTransport,
  options: ListenOptions = {},
): AsyncGenerator<ListenEvent, void, undefined> {
  const policy = {
    baseDelayMs: options.backoff?.baseDelayMs ?? 500,
    maxDelayMs: options.backoff?.maxDelayMs ?? 30_000,
  };
  const resume: Resume = { lastEventId: options.lastEventId ?? null, retryMs: 1000 };
  let failures = 0;
  const connected = () => {
    failures = 0;
    options.onConnect?.();
  };
  while (!options.signal?.aborted) {
    let delayMs: number;
    let error: unknown = null;
    try {
      yield* connection(transport, resume, options, connected);
      // The server ended the stream (it is shutting down): come back after its `retry`.
      delayMs = resume.retryMs;
    } catch (err) {
      if (options.signal?.aborted) return;
      if (err instanceof Refused) throw err.refusal;
      failures += 1;
      error = err instanceof Busy ? err.refusal : err;
      const asked = err instanceof Busy ? err.afterMs : null;
      delayMs = asked !== null ? Math.min(policy.maxDelayMs, asked) : backoffMs(failures, policy);
    }
    if (options.signal?.aborted) return;
    options.onReconnect?.({ delayMs, error });
    await sleep(delayMs, options.signal);
  }
}

/** One connection's events, until the server ends it, it fails (throws) or `options.signal` aborts. */
async function* connection(
  transport: ListenTransport,
  resume: Resume,
  options: ListenOptions,
  connected: () => void,
): AsyncGenerator<ListenEvent> {
  const silenceMs = options.silenceMs ?? SILENCE_MS;
  const url = new URL(transport.url);
  if (options.include) url.searchParams.set('include', options.include);
  const controller = new AbortController();
  const stop = () => controller.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  let silence: ReturnType<typeof setTimeout> | undefined;
  const heard = () => {
    clearTimeout(silence);
    silence = setTimeout(
      () => controller.abort(new Error(`no data from the stream for ${silenceMs / 1000} s`)),
      silenceMs,
    );
  };
  try {
    const res = await transport.fetch(url, {
      headers: {
        authorization: `Bearer ${transport.token}`,
        accept: 'text/event-stream',
        ...(resume.lastEventId ? { 'last-event-id': resume.lastEventId } : {}),
      },
      signal: controller.signal,
    });
    if (res.status !== 200 || !res.body) {
      const type = res.headers.get('content-type') ?? '';
      const body: unknown = type.includes('json')
        ? await res.json().catch(() => null)
        : await res.text().catch(() => null);
      const refused = transport.error({ status: res.status, body, headers: res.headers });
      if (res.status !== 429 && res.status < 500) throw new Refused(refused);
      throw new Busy(refused, retryAfterMs(res.headers.get('retry-after')));
    }
    connected();
    heard();
    // Any bytes count as life, heartbeat comments included (they make no message).
    const watched = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, c) {
          heard();
          c.enqueue(chunk);
        },
      }),
    );
    for await (const m of parseEventStream(watched)) {
      if (m.retry !== null) resume.retryMs = m.retry;
      if (m.event === 'error' && m.hasData)
        throw new Refused(
          transport.error({ status: errorStatus(m.data), body: jsonOrText(m.data), headers: res.headers }),
        );
      if (m.id !== null) resume.lastEventId = m.id;
      if ((m.event === 'submission' || m.event === 'spam') && m.hasData && m.id !== null) {
        yield { id: m.id, event: m.event, submission: JSON.parse(m.data) as SubmissionCreated, data: m.data };
      }
    }
  } finally {
    clearTimeout(silence);
    options.signal?.removeEventListener('abort', stop);
    controller.abort();
  }
}

function jsonOrText(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}

/** An `error` event's body carries the status the refusal would have had; 500 when it names none. */
function errorStatus(data: string): number {
  const status = (jsonOrText(data) as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : 500;
}
