import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, makeToken } from '../support/harness.ts';
import { startLiveTestApp, type LiveTestApp } from '../support/live-server.ts';
import { withinOneMinuteWindow } from '../support/rate-window.ts';
import { AuthFailures } from '../../server/transports/http/auth-failures.ts';

/**
 * Requests that fail authentication are bounded per client address at `/mcp` (INTAKE_AUTH_FAILURE_LIMIT a
 * minute, issue 25): past the bound each is held unread for INTAKE_AUTH_FAILURE_DELAY_MS, answered 429
 * `rate_limited` with Retry-After and its connection cut without reading the body, so a client looping on
 * refusals gets one per connection and delay; a valid token and a public post from the same address go on
 * as before, unheld.
 */
const DELAY_MS = 400;
const t = await startLiveTestApp({ INTAKE_AUTH_FAILURE_LIMIT: '5', INTAKE_AUTH_FAILURE_DELAY_MS: String(DELAY_MS) });
/** A second app (its own count), for the case that spends the bound across both transports. */
const fresh = await startLiveTestApp({
  INTAKE_AUTH_FAILURE_LIMIT: '4',
  INTAKE_AUTH_FAILURE_DELAY_MS: String(DELAY_MS),
});
/** A third, refusing past one failure and holding 4 s: long enough to look at what held refusals keep. */
const holding = await startLiveTestApp({ INTAKE_AUTH_FAILURE_LIMIT: '1', INTAKE_AUTH_FAILURE_DELAY_MS: '4000' });

type Outcome = { status: number | null; headers: http.IncomingHttpHeaders; text: string; written: number; ms: number };

/** What every upload writes, one Buffer for all of them: the client's own memory stays out of the count below. */
const chunk = Buffer.alloc(64 * 1024, '[');

/**
 * A POST declaring `declared` bytes, written 64 KiB at a time as fast as the server takes them, until all is
 * written or the server closes the connection: the answer (if any) and how many body bytes went out.
 */
function upload(
  app: LiveTestApp,
  path: string,
  declared: number,
  headers: Record<string, string> = {},
): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    let outcome: Outcome = { status: null, headers: {}, text: '', written: 0, ms: 0 };
    let closed = false;
    const req = http.request(`${app.baseUrl}${path}`, {
      method: 'POST',
      agent: false,
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Content-Length': String(declared),
        ...headers,
      },
    });
    req.on('response', (res) => {
      outcome = { ...outcome, status: res.statusCode!, headers: res.headers };
      res.on('data', (c: Buffer) => (outcome.text += c.toString()));
      res.on('error', () => {});
    });
    req.on('error', () => {}); // the server cutting the connection mid-body is what is tested
    req.on('close', () => {
      closed = true;
      resolve({ ...outcome, ms: performance.now() - started });
    });
    const write = () => {
      while (!closed && outcome.written < declared) {
        const part = chunk.subarray(0, Math.min(chunk.length, declared - outcome.written));
        outcome.written += part.length;
        if (!req.write(part)) return void req.once('drain', write);
      }
      if (!closed) req.end();
    };
    write();
  });
}

describe('requests that fail authentication, per client address', () => {
  it('past the bound: held, then 429 rate_limited with Retry-After, the body unread; a valid token and public posts from the address go on unheld', async () => {
    const owner = await makeTeam(t);
    const { token } = await makeToken(t, owner);
    const form = await makePublishedForm(t, owner, { name: 'Contact' });
    await withinOneMinuteWindow(); // the failures count in windows on the minute, the last one fading

    // Five failures, with no token or a bad one: 401 each.
    const early: Array<number | null> = [];
    for (let i = 0; i < 5; i++)
      early.push((await upload(t, '/mcp', 1024, i % 2 ? bearer('intk_not_a_token') : {})).status);
    expect(early).toEqual([401, 401, 401, 401, 401]);

    // The sixth, a 64 MiB body to /mcp: held, then refused, its connection cut long before the body is
    // through; meanwhile a valid token from the same address is answered at once.
    const held = upload(t, '/mcp', 64 * 1024 * 1024);
    const meanwhile = performance.now();
    const valid = await fetch(`${t.baseUrl}/v1/forms`, { headers: bearer(token) });
    expect(valid.status).toBe(200);
    await valid.arrayBuffer();
    expect(performance.now() - meanwhile).toBeLessThan(DELAY_MS);
    const refused = await held;
    expect(refused.ms).toBeGreaterThanOrEqual(DELAY_MS - 50);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.text)).toMatchObject({ error: 'rate_limited' });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    // Until the sliding count lets one more through: past the bound in this minute, that is in the next one.
    expect(retryAfter).toBeLessThanOrEqual(120);
    expect(refused.headers.connection).toBe('close');
    expect(refused.written).toBeLessThan(32 * 1024 * 1024);

    // A bad token past the bound is refused the same way.
    expect((await upload(t, '/mcp', 1024, bearer('intk_not_a_token'))).status).toBe(429);

    // The same address with a valid token, and a public post: never counted, never refused.
    for (let i = 0; i < 10; i++) {
      const ok = await fetch(`${t.baseUrl}/v1/forms`, { headers: bearer(token) });
      expect(ok.status).toBe(200);
      await ok.arrayBuffer();
    }
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const mcp = await fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...bearer(token), 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify(init),
    });
    expect(mcp.status).toBe(200);
    await mcp.arrayBuffer();
    const post = await fetch(`${t.baseUrl}/f/${form.id}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ email: 'a@example.com' }),
    });
    expect(post.status).toBeLessThan(300);
  });

  it('one count for every transport: failures at the REST API and at /mcp add up, and the REST API refuses the same way', async () => {
    const owner = await makeTeam(fresh);
    const { token } = await makeToken(fresh, owner);
    await withinOneMinuteWindow();
    const rest = async (headers: Record<string, string>) => {
      const res = await fetch(`${fresh.baseUrl}/v1/forms`, { headers });
      return {
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        body: (await res.json()) as { error: string },
      };
    };
    // Two at the REST API, two at /mcp: the four the bound allows, each a 401.
    expect((await rest({})).status).toBe(401);
    expect((await rest(bearer('intk_not_a_token'))).status).toBe(401);
    expect((await upload(fresh, '/mcp', 1024)).status).toBe(401);
    expect((await upload(fresh, '/mcp', 1024, bearer('intk_not_a_token'))).status).toBe(401);
    // The fifth, at the REST API: held, then 429 rate_limited with Retry-After.
    const started = performance.now();
    const refused = await rest(bearer('intk_not_a_token'));
    expect(performance.now() - started).toBeGreaterThanOrEqual(DELAY_MS - 50);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('rate_limited');
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    // A valid token from the same address is never refused.
    expect((await rest(bearer(token))).status).toBe(200);
  });

  it('refusals held together are answered spread over the delay, not together (a looping herd falls out of step)', async () => {
    // Past the bound already (the tests above): each of these is held, then refused.
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => upload(t, '/mcp', 1024)));
    const held = outcomes.filter((o) => o.status === 429).map((o) => o.ms);
    expect(held.length).toBeGreaterThanOrEqual(10);
    expect(Math.min(...held)).toBeGreaterThanOrEqual(DELAY_MS - 50);
    expect(Math.max(...held)).toBeLessThan(1.5 * DELAY_MS + 400);
    // Uniform over half the delay: ten of them all within a fifth of it would happen once in ~100,000 runs.
    expect(Math.max(...held) - Math.min(...held)).toBeGreaterThan(0.1 * DELAY_MS);
  });
});

describe('the failure count slides', () => {
  const MINUTE = 60_000;
  /** The outcomes of one failure from `ip` every `everyMs` from `from` to `to` (ms): how many were let through. */
  const through = (failures: AuthFailures, ip: string, from: number, to: number, everyMs: number) => {
    let n = 0;
    for (let at = from; at < to; at += everyMs) if (failures.hit(ip, at) === null) n++;
    return n;
  };

  it('a client failing all minute long is not let through again as the next minute begins; one that stopped starts afresh', () => {
    const failures = new AuthFailures(60, 1_000);
    const start = 100 * MINUTE;
    // One a second, all minute: exactly the bound, every one let through.
    expect(through(failures, '192.0.2.1', start, start + MINUTE, 1_000)).toBe(60);
    // Ten a second from the next minute's first instant: a fixed window let 60 through at once here.
    expect(through(failures, '192.0.2.1', start + MINUTE, start + MINUTE + 1_000, 100)).toBe(0);
    const refused = failures.hit('192.0.2.1', start + MINUTE + 1_000)!;
    expect(refused.toBody()).toMatchObject({ error: 'rate_limited', retry_after: expect.any(Number) });
    // Another address has its own count; a client idle for a whole minute has no past.
    expect(failures.hit('192.0.2.2', start + MINUTE + 1_000)).toBeNull();
    expect(through(failures, '192.0.2.1', start + 3 * MINUTE, start + 3 * MINUTE + 1_000, 10)).toBe(60);
  });

  it('spreads what it lets through: at one a second past the bound, a client gets back to one a second, never a burst', () => {
    const failures = new AuthFailures(60, 1_000);
    const start = 200 * MINUTE;
    // 120 in the first half minute: 60 through, the rest refused.
    expect(through(failures, '192.0.2.3', start, start + 30_000, 250)).toBe(60);
    // Then one every half second: over any ten seconds of the next minute, no more than ten get through.
    const perTen: number[] = [];
    for (let at = start + MINUTE; at < start + 2 * MINUTE; at += 10_000)
      perTen.push(through(failures, '192.0.2.3', at, at + 10_000, 500));
    expect(Math.max(...perTen)).toBeLessThanOrEqual(10);
    expect(perTen.reduce((a, b) => a + b)).toBeLessThanOrEqual(60);
  });
});

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** The bytes of this process's live ArrayBuffers (a Buffer's memory), after full collections. */
async function liveArrayBuffers(): Promise<number> {
  for (let i = 0; i < 2; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50)); // freed backing stores are swept beside the code
  }
  return process.memoryUsage().arrayBuffers;
}

describe('what a held refusal keeps', () => {
  it(
    'none of its body: what the read of its headers brought of it is let go at once, not held through the delay',
    { timeout: 60_000 },
    async () => {
      await withinOneMinuteWindow();
      expect((await upload(holding, '/mcp', 1024)).status).toBe(401); // the bound, spent

      const before = await liveArrayBuffers();
      const refusals = Array.from({ length: 40 }, () => upload(holding, '/mcp', 1024 * 1024));
      await new Promise((resolve) => setTimeout(resolve, 1_500)); // all read and held: the answers come after 4 s
      const kept = (await liveArrayBuffers()) - before;
      // Holding what the first reads brought kept 5.2 MB here through the delay (~130 kB each).
      expect(kept).toBeLessThan(40 * 8 * 1024);

      const outcomes = await Promise.all(refusals);
      expect(outcomes.map((o) => o.status)).toEqual(Array(40).fill(429));
    },
  );
});
