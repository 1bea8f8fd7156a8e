import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { guardedLookup, isPublicAddress } from './address-guard.ts';

/** The receiver's answer is kept up to this many bytes (cut on a UTF-8 character boundary). */
export const RESPONSE_BODY_LIMIT = 4096;

export type SendOutcome = {
  /** The receiver's status; null when no answer came (then `error` says why). */
  httpStatus: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
  /** Seconds asked for by a `Retry-After` header, if any. */
  retryAfter: number | null;
};

export type Sender = {
  send(url: string, body: string, headers: Record<string, string>): Promise<SendOutcome>;
  close(): Promise<void>;
};

/** The first `limit` bytes as text, never ending inside a character; NUL (which Postgres text refuses) shown as U+FFFD. */
export function utf8Prefix(bytes: Buffer, limit: number): string {
  let end = Math.min(bytes.length, limit);
  if (end < bytes.length) {
    // Step back over continuation bytes (10xxxxxx) to the start of the character cut in two, and drop it.
    let start = end;
    while (start > 0 && (bytes[start]! & 0xc0) === 0x80) start -= 1;
    if (start < end) {
      const lead = bytes[start]!;
      const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
      if (start + length > end) end = start;
    }
  }
  return new TextDecoder('utf-8').decode(bytes.subarray(0, end)).replaceAll('\u0000', '\uFFFD');
}

/** `Retry-After` as seconds from now: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(value: string | string[] | undefined, now = Date.now()): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  if (/^\d{1,9}$/.test(v.trim())) return Number(v.trim());
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.round((at - now) / 1000));
}

const ERROR_CODES: Array<[RegExp, string]> = [
  [/^EBLOCKEDADDRESS$/, 'blocked_address'],
  [/^(ENOTFOUND|EAI_AGAIN|EAI_FAIL|EAI_NODATA|EAI_NONAME)$/, 'dns_error'],
  [/^ECONNREFUSED$/, 'connection_refused'],
  [/^(ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/, 'connection_reset'],
  [
    /^(UND_ERR_CONNECT_TIMEOUT|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT|ETIMEDOUT|ABORT_ERR|UND_ERR_ABORTED)$/,
    'timeout',
  ],
  [
    /^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|ERR_OSSL_|HOSTNAME_MISMATCH)/,
    'tls_error',
  ],
];

/** The delivery log's name for a failure without an answer (the codes of undici, Node and OpenSSL). */
export function errorName(err: unknown): string {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth += 1) {
    const { code, name } = e as { code?: unknown; name?: unknown };
    if (name === 'TimeoutError' || name === 'AbortError') return 'timeout';
    for (const candidate of [code, name]) {
      if (typeof candidate !== 'string') continue;
      for (const [pattern, label] of ERROR_CODES) if (pattern.test(candidate)) return label;
    }
  }
  return 'network_error';
}

/**
 * Posts deliveries over keep-alive connections (one undici Agent per process). Redirects are not followed;
 * the whole attempt — connect, answer and the first 4 KB of the body — has `timeoutMs`; a body still
 * arriving then is cut off, the status stands. Unless `allowPrivate`, a host must resolve (at connect time,
 * so DNS rebinding is caught) only to public addresses.
 */
export function createSender(opts: {
  timeoutMs: number;
  allowPrivate: boolean;
  userAgent: string;
  connections?: number;
}): Sender {
  const agent = new Agent({
    connections: opts.connections ?? 64,
    keepAliveTimeout: 30_000,
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    allowH2: false,
    connect: { timeout: Math.min(opts.timeoutMs, 10_000), lookup: guardedLookup(opts.allowPrivate) },
  });
  return {
    async send(url, body, headers) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
      // An IP literal never reaches the resolver's check: judge it here.
      if (!opts.allowPrivate && isIP(host) && !isPublicAddress(host)) {
        return {
          httpStatus: null,
          responseBody: null,
          error: 'blocked_address',
          durationMs: elapsed(),
          retryAfter: null,
        };
      }
      const signal = AbortSignal.timeout(opts.timeoutMs);
      try {
        const res = await request(url, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json', 'user-agent': opts.userAgent, ...headers },
          body,
          signal,
        });
        const chunks: Buffer[] = [];
        let size = 0;
        try {
          for await (const chunk of res.body) {
            chunks.push(chunk as Buffer);
            size += (chunk as Buffer).length;
            if (size > RESPONSE_BODY_LIMIT) break;
          }
        } catch {
          // A body cut off by the deadline or the peer: the status already came, keep what arrived.
        } finally {
          res.body.destroy();
        }
        return {
          httpStatus: res.statusCode,
          responseBody: utf8Prefix(Buffer.concat(chunks), RESPONSE_BODY_LIMIT),
          error: null,
          durationMs: elapsed(),
          retryAfter: retryAfterSeconds(res.headers['retry-after']),
        };
      } catch (err) {
        return { httpStatus: null, responseBody: null, error: errorName(err), durationMs: elapsed(), retryAfter: null };
      }
    },
    close: () => agent.close(),
  };
}
