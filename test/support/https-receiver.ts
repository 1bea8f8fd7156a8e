import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { testCertificate } from './tls.ts';

/** One request as the receiver got it, so tests can check exactly what a webhook delivery sent. */
export type ReceivedRequest = {
  /** 1-based arrival order. */
  n: number;
  method: string;
  path: string;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The exact raw body bytes, decoded as UTF-8. */
  body: string;
  /** Date.now() when the whole body had arrived. */
  receivedAt: number;
  /** Date.now() when the exchange ended (the answer went, or the client left); unset while it is open. */
  closedAt?: number;
};

/**
 * How the receiver answers one request: a status (with headers and body); never (`hang`, the socket stays
 * open); headers at once and then one byte per interval forever (`drip`); or another reply after a delay.
 */
export type Reply =
  | { status: number; headers?: Record<string, string>; body?: string }
  | { hang: true }
  | { drip: { bytesPerSecond: number; status?: number } }
  | { delayMs: number; reply: Reply };

/** A running receiver: its addresses, what it has received so far, and the means to change its answer, wait for requests and stop it. */
export type HttpsReceiver = {
  /** https://127.0.0.1:<port> */
  url: string;
  /** https://localhost:<port>, the same server, for clients that check the host name against the certificate. */
  localhostUrl: string;
  requests: ReceivedRequest[];
  setReply(fn: (req: ReceivedRequest) => Reply): void;
  /** Resolves with the first `count` requests once they have arrived; rejects saying how many did after `timeoutMs` (15 s). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Stops listening and destroys every open socket, hanging and dripping ones included, so it never waits on a client. */
  close(): Promise<void>;
};

const OK: Reply = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };

/**
 * A real HTTPS endpoint on 127.0.0.1 (self-signed, see tls.ts) that records every request — raw body bytes
 * as text, headers, arrival time — and answers as `reply` says (default 200 `{"ok":true}`), so webhook
 * delivery is tested against TLS, slow and silent receivers rather than mocks. HTTP keep-alive stays on, so
 * clients reuse connections as they would in production.
 */
export async function startHttpsReceiver(
  opts: { reply?: (req: ReceivedRequest) => Reply } = {},
): Promise<HttpsReceiver> {
  const { key, cert } = testCertificate();
  let reply = opts.reply ?? (() => OK);
  const requests: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const answer = (res: ServerResponse, r: Reply): void => {
    if (res.destroyed) return; // the client left during a delay
    if ('hang' in r) return;
    if ('delayMs' in r) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer(res, r.reply);
      }, r.delayMs);
      timers.add(timer);
      return;
    }
    if ('drip' in r) {
      res.writeHead(r.drip.status ?? 200, { 'content-type': 'text/plain' });
      // Headers go now, so a client's headers timeout is met and only its body timeout is tested.
      res.flushHeaders();
      const timer = setInterval(() => res.write('.'), 1000 / r.drip.bytesPerSecond);
      timers.add(timer);
      res.on('close', () => {
        clearInterval(timer);
        timers.delete(timer);
      });
      return;
    }
    res.writeHead(r.status, r.headers ?? {});
    res.end(r.body ?? '');
  };

  const server = https.createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
      const received: ReceivedRequest = {
        n: requests.length + 1,
        method: req.method ?? '',
        path: req.url ?? '',
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      requests.push(received);
      res.on('close', () => (received.closedAt = Date.now()));
      for (const w of waiters) w();
      let r: Reply;
      try {
        r = reply(received);
      } catch (err) {
        // A throwing reply function is a test bug: show it in the answer instead of crashing the test process.
        r = { status: 500, headers: { 'content-type': 'text/plain' }, body: `reply() threw: ${String(err)}` };
      }
      answer(res, r);
    });
  });
  // Node's HTTP keep-alive is on by default; say so, with room for a worker's pauses between attempts.
  server.keepAliveTimeout = 10_000;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    url: `https://127.0.0.1:${port}`,
    localhostUrl: `https://localhost:${port}`,
    requests,
    setReply(fn) {
      reply = fn;
    },
    waitFor(count, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length < count) return;
          cleanup();
          resolve(requests.slice(0, count));
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `expected ${count} requests at the HTTPS receiver, ${requests.length} arrived within ${timeoutMs} ms`,
            ),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

/** A 302 to `location`, to prove a client does not follow redirects (a redirect could point a webhook anywhere). */
export function redirectReply(location: string): Reply {
  return { status: 302, headers: { location } };
}

/**
 * A UTF-8 text of exactly `bytes` bytes made of 4-, 3- and 2-byte characters ("😀€é" repeated, then what
 * fits, then ASCII), so a byte-limited cut can be checked for not splitting a character: from 4099 bytes on,
 * byte 4096 falls inside a 4-byte character, which is also a UTF-16 surrogate pair.
 */
export function bigBody(bytes: number): string {
  let text = '😀€é'.repeat(Math.floor(bytes / 9));
  let rest = bytes % 9;
  for (const [char, size] of [
    ['😀', 4],
    ['€', 3],
    ['é', 2],
  ] as const) {
    if (rest >= size) {
      text += char;
      rest -= size;
    }
  }
  return text + 'x'.repeat(rest);
}
