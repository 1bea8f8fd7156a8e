import https from 'node:https';
import { once } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';
import { testCertificate } from './tls.ts';

export type ReceivedRequest = { n: number; method: string; path: string; headers: Record<string, string>; body: string; receivedAt: number };

export type Reply =
  | { status: number; headers?: Record<string, string>; body?: string }
  | { hang: true }
  | { drip: { bytesPerSecond: number; status?: number } }
  | { delayMs: number; reply: Reply };

export type HttpsReceiver = {
  url: string;
  localhostUrl: string;
  requests: ReceivedRequest[];
  setReply(fn: (req: ReceivedRequest) => Reply): void;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
};

/**
 * A real HTTPS endpoint on 127.0.0.1 (self-signed, see tls.ts) that records every request — raw body bytes
 * as text, headers, arrival time — and answers as `reply` says: a status, never (hang), a body dripped
 * slowly, or after a delay. Keep-alive stays on, so clients reuse connections as they would in production.
 */
export async function startHttpsReceiver(opts: { reply?: (req: ReceivedRequest) => Reply } = {}): Promise<HttpsReceiver> {
  const { key, cert } = testCertificate();
  let reply = opts.reply ?? (() => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' }));
  const requests: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const answer = (res: import('node:http').ServerResponse, r: Reply): void => {
    if ('hang' in r) return;
    if ('delayMs' in r) {
      const timer = setTimeout(() => (timers.delete(timer), answer(res, r.reply)), r.delayMs);
      timers.add(timer);
      return;
    }
    if ('drip' in r) {
      res.writeHead(r.drip.status ?? 200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('.'), 1000 / r.drip.bytesPerSecond);
      timers.add(timer);
      res.on('close', () => clearInterval(timer));
      return;
    }
    res.writeHead(r.status, r.headers ?? {});
    res.end(r.body ?? '');
  };

  const server = https.createServer({ key, cert, keepAlive: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
      const received = { n: requests.length + 1, method: req.method ?? '', path: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
      requests.push(received);
      for (const w of waiters) w();
      answer(res, reply(received));
    });
  });
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
          reject(new Error(`expected ${count} requests, ${requests.length} arrived within ${timeoutMs} ms`));
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
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function redirectReply(location: string): Reply {
  return { status: 302, headers: { location } };
}

/** A UTF-8 text of exactly `bytes` bytes made of 3-byte characters (plus ASCII to fill): 4 KB cuts fall inside one. */
export function bigBody(bytes: number): string {
  const euro = '€'; // 3 bytes
  return euro.repeat(Math.floor(bytes / 3)) + 'x'.repeat(bytes % 3);
}
