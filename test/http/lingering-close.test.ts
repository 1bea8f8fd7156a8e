import { once } from 'node:events';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { lingeringClose, type LingerLimits } from '../../server/transports/http/lingering-close.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';

const t = await startLiveTestApp();
const MiB = 1024 * 1024;
const chunk = Buffer.alloc(64 * 1024, 0x61);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type NodePost = { status: number; body: string; bodyEnded: boolean; errors: string[] };

/**
 * A post of `head`, `bodyBytes` filler bytes and `tail` through Node's own http client, written as fast as
 * the server takes it (a browser's upload behaves alike).
 */
function nodePost(
  path: string,
  headers: Record<string, string>,
  bodyBytes: number,
  head = '',
  tail = '',
): Promise<NodePost> {
  return new Promise((resolve) => {
    const out: NodePost = { status: 0, body: '', bodyEnded: false, errors: [] };
    const req = http.request(new URL(path, t.baseUrl), {
      method: 'POST',
      headers: headers['Transfer-Encoding']
        ? headers
        : { ...headers, 'Content-Length': Buffer.byteLength(head) + bodyBytes + Buffer.byteLength(tail) },
    });
    req.on('response', (res) => {
      out.status = res.statusCode!;
      res.setEncoding('utf8');
      res.on('data', (c: string) => (out.body += c));
      res.on('end', () => (out.bodyEnded = true));
      res.on('error', (err: NodeJS.ErrnoException) => out.errors.push(`response: ${err.code ?? err.message}`));
    });
    req.on('error', (err: NodeJS.ErrnoException) => out.errors.push(`request: ${err.code ?? err.message}`));
    req.on('close', () => resolve(out));
    let sent = 0;
    const write = () => {
      let ok = sent > 0 || req.write(head);
      while (ok && sent < bodyBytes && !req.destroyed) {
        const n = Math.min(chunk.length, bodyBytes - sent);
        sent += n;
        ok = req.write(n === chunk.length ? chunk : chunk.subarray(0, n));
      }
      if (req.destroyed) return;
      if (sent >= bodyBytes) req.end(tail);
      else req.once('drain', write);
    };
    write();
  });
}

const refusedInFull = (out: NodePost, status: number) => {
  expect(out.errors).toEqual([]);
  expect(out.status).toBe(status);
  expect(out.bodyEnded).toBe(true);
  return JSON.parse(out.body) as unknown;
};

/** A raw upload declaring a 1 GiB multipart body; the test decides how it is sent. */
type RawUpload = {
  socket: net.Socket;
  answer: string;
  sentBytes: number;
  errors: string[];
  closedMs: number;
  closed: Promise<void>;
};

function rawUpload(url: string, path: string): RawUpload {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  // Half-open: it goes on sending after the server's FIN, as an uploading browser does.
  const socket = net.connect({ host: hostname, port: Number(port), allowHalfOpen: true });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const u: RawUpload = {
    socket,
    answer: '',
    sentBytes: 0,
    errors: [],
    closedMs: 0,
    closed: closed.then(() => void (u.closedMs = Date.now() - started)),
  };
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => (u.answer += d));
  socket.on('error', (err: NodeJS.ErrnoException) => u.errors.push(err.code ?? err.message));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAccept: application/json\r\n` +
      `Content-Type: multipart/form-data; boundary=xLINGERx\r\nContent-Length: ${1024 ** 3}\r\n\r\n`,
  );
  return u;
}

/** Sends a 64 KiB chunk every `everyMs` for `forMs`, or until the server closes the connection. */
async function drip(u: RawUpload, everyMs: number, forMs: number): Promise<void> {
  const end = Date.now() + forMs;
  while (Date.now() < end && !u.socket.destroyed) {
    u.socket.write(chunk);
    u.sentBytes += chunk.length;
    await sleep(everyMs);
  }
}

/** Sends as fast as the server takes it, until the server closes the connection. */
async function flood(u: RawUpload): Promise<void> {
  const pump = () => {
    while (!u.socket.destroyed) {
      u.sentBytes += chunk.length;
      if (!u.socket.write(chunk)) return void u.socket.once('drain', pump);
    }
  };
  pump();
  await u.closed;
}

const answered413 = (u: RawUpload) => {
  expect(u.answer).toMatch(/^HTTP\/1\.1 413 /);
  expect(u.answer).toMatch(/\r\nconnection: close\r\n/i);
  expect(u.answer).toMatch(/\r\n\r\n\{.*"error":"payload_too_large".*\}$/s);
};

describe('an answer given while the body is still arriving', () => {
  it('a 40 MiB upload over the file limit: Node’s http client reads the whole 413, with no EPIPE or reset', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const form = await makePublishedForm(t, owner);
    const b = 'xLINGERx';
    const out = await nodePost(
      `/f/${form.id}`,
      { 'Content-Type': `multipart/form-data; boundary=${b}`, Accept: 'application/json' },
      40 * MiB,
      `--${b}\r\nContent-Disposition: form-data; name="upload"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      `\r\n--${b}--\r\n`,
    );
    expect(refusedInFull(out, 413)).toMatchObject({ error: 'payload_too_large' });
  });

  it('so does a chunked form body over the 1 MB limit, refused while it is read', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const form = await makePublishedForm(t, owner);
    const post = nodePost(
      `/f/${form.id}`,
      {
        'Content-Type': 'application/x-www-form-urlencoded',
        Accept: 'application/json',
        'Transfer-Encoding': 'chunked',
      },
      40 * MiB,
      'a=',
    );
    expect(refusedInFull(await post, 413)).toMatchObject({ error: 'payload_too_large' });
  });

  it('so does a 40 MiB JSON body to the API and to /mcp', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const json = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...bearer(owner.token),
    };
    expect(refusedInFull(await nodePost('/v1/forms', json, 40 * MiB), 413)).toMatchObject({
      error: 'payload_too_large',
    });
    expect(refusedInFull(await nodePost('/mcp', json, 40 * MiB), 413)).toMatchObject({ error: { code: -32000 } });
  });

  it('a client sending far more is drained up to the 32 MiB bound, then cut', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const form = await makePublishedForm(t, owner);
    const u = rawUpload(t.baseUrl, `/f/${form.id}`);
    await flood(u);
    answered413(u);
    expect(u.sentBytes).toBeGreaterThan(32 * MiB);
    // Besides the bound, only what the two sockets' buffers held when it was cut.
    expect(u.sentBytes).toBeLessThan(64 * MiB);
  });
});

/** The time and socket bounds, turned down so that each is reached in seconds (the app's are 30 s, 5 s and 64). */
describe('the bounds on lingering', () => {
  /** A server that refuses every request with 413 before reading it, and closes through lingeringClose. */
  async function refusing(limits: LingerLimits): Promise<string> {
    const closeLingering = lingeringClose(limits);
    const server = http.createServer((req, res) => {
      closeLingering(req, res);
      const body = JSON.stringify({ error: 'payload_too_large' });
      res.writeHead(413, { 'Content-Type': 'application/json', 'Content-Length': body.length }).end(body);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    afterAll(() => {
      server.closeAllConnections();
      server.close();
    });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  const small: LingerLimits = { totalMs: 2_500, idleMs: 1_000, bytes: 32 * MiB, sockets: 1 };

  it('a client that keeps sending slowly is cut at the total linger time', async () => {
    const url = await refusing(small);
    const u = rawUpload(url, '/');
    // A chunk every 200 ms is never idle for the 1 s gap: only the 2.5 s bound closes it.
    await drip(u, 200, 10_000);
    await u.closed;
    answered413(u);
    expect(u.closedMs).toBeGreaterThan(2_300);
    expect(u.closedMs).toBeLessThan(4_000);
  });

  it('a client silent for the idle gap is closed; a shorter pause is not', async () => {
    const url = await refusing(small);
    const u = rawUpload(url, '/');
    await drip(u, 100, 500);
    await sleep(700);
    await drip(u, 100, 500);
    await sleep(50);
    expect(u.errors).toEqual([]);
    await sleep(1_500);
    // A peer that closed is only noticed on writing: the first write draws the reset.
    await drip(u, 100, 1_000);
    await u.closed;
    answered413(u);
    expect(u.errors.length).toBeGreaterThan(0);
  });

  it('past the bound on draining connections, an answer closes its connection at once', async () => {
    const url = await refusing(small);
    const first = rawUpload(url, '/');
    void drip(first, 200, 10_000);
    await sleep(300);
    const second = rawUpload(url, '/');
    void drip(second, 200, 10_000);
    await second.closed;
    answered413(second);
    expect(second.closedMs).toBeLessThan(1_000);
    await first.closed;
    answered413(first);
    expect(first.closedMs).toBeGreaterThan(2_300);
  });
});
