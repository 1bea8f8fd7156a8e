import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import { Agent, request } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { bigBody, redirectReply, startHttpsReceiver, type HttpsReceiver } from '../support/https-receiver.ts';
import { runProcess } from '../support/processes.ts';
import { serverProcessEnv, testCertificate } from '../support/tls.ts';

/** Every `code` along an error's cause chain: undici wraps the TLS error it got from the socket. */
function errorCodes(err: unknown): string[] {
  const codes: string[] = [];
  for (let e = err; e; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
  }
  return codes;
}

describe('testCertificate', () => {
  it('appends the certificate to the machine bundle rather than replacing it', () => {
    const { cert, caBundlePath } = testCertificate();
    const bundle = readFileSync(caBundlePath, 'utf8');
    expect(bundle.endsWith(cert)).toBe(true);
    const machine = process.env.NODE_EXTRA_CA_CERTS;
    if (machine) expect(bundle.startsWith(readFileSync(machine, 'utf8').trimEnd())).toBe(true);
    expect(testCertificate()).toBe(testCertificate());
    expect(serverProcessEnv()).toEqual({ NODE_EXTRA_CA_CERTS: caBundlePath });
    // The test process keeps the machine's own trust: only children get the bundle.
    expect(process.env.NODE_EXTRA_CA_CERTS).not.toBe(caBundlePath);
  });
});

describe('startHttpsReceiver', () => {
  const trusted = new Agent({ connect: { ca: readFileSync(testCertificate().caBundlePath) } });
  const receivers: HttpsReceiver[] = [];
  const start = async (...args: Parameters<typeof startHttpsReceiver>) => {
    const r = await startHttpsReceiver(...args);
    receivers.push(r);
    return r;
  };
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
  });
  afterAll(() => trusted.close());

  it('records method, path, headers and the exact body, and answers 200 {"ok":true} by default', async () => {
    const rx = await start();
    expect(rx.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(rx.localhostUrl).toBe(rx.url.replace('127.0.0.1', 'localhost'));
    const body = `{"name":"Zoë","note":"${bigBody(100)}"}`;
    const res = await request(`${rx.localhostUrl}/hooks/intake?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-test': 'yes' },
      body,
      dispatcher: trusted,
    });
    expect(res.statusCode).toBe(200);
    expect(await res.body.text()).toBe('{"ok":true}');
    const [req] = await rx.waitFor(1);
    expect(req).toMatchObject({ n: 1, method: 'POST', path: '/hooks/intake?x=1', body });
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers['x-test']).toBe('yes');
    expect(req!.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(Math.abs(req!.receivedAt - Date.now())).toBeLessThan(5_000);

    const second = await request(`${rx.url}/second`, { dispatcher: trusted });
    await second.body.dump();
    expect(rx.requests.map((r) => [r.n, r.method, r.path])).toEqual([
      [1, 'POST', '/hooks/intake?x=1'],
      [2, 'GET', '/second'],
    ]);
  });

  it('is real TLS: a client without the test CA refuses the self-signed certificate', async () => {
    const rx = await start();
    const err = await request(`${rx.localhostUrl}/x`, { method: 'POST', body: 'hi' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).not.toBeNull();
    expect(errorCodes(err).join(' ')).toMatch(/SELF_SIGNED_CERT/);
    expect(rx.requests).toHaveLength(0);
  });

  it('is trusted by a child process through NODE_EXTRA_CA_CERTS (serverProcessEnv), and only with it', async () => {
    const rx = await start();
    const script = (ok: string) =>
      `fetch('${rx.localhostUrl}/x',{method:'POST',body:'hi'}).then(r=>console.log(${ok}),e=>console.log('failed',e.cause&&e.cause.code))`;
    const withEnv = await runProcess(process.execPath, ['-e', script('r.status')], {
      ...process.env,
      ...serverProcessEnv(),
    });
    expect(withEnv.stdout.trim(), withEnv.stderr).toBe('200');
    expect(rx.requests.map((r) => [r.method, r.path, r.body])).toEqual([['POST', '/x', 'hi']]);

    const without = await runProcess(process.execPath, ['-e', script('r.status')], process.env);
    expect(without.stdout.trim()).toMatch(/^failed .*SELF_SIGNED_CERT/);
    expect(rx.requests).toHaveLength(1);
  });

  it('keeps connections alive, so a client reuses them', async () => {
    const rx = await start();
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: readFileSync(testCertificate().caBundlePath) });
    try {
      const reused: boolean[] = [];
      for (let i = 0; i < 2; i++) {
        const req = https.request(`${rx.url}/k${i}`, { agent });
        req.end();
        const [res] = (await once(req, 'response')) as [IncomingMessage];
        res.resume();
        await once(res, 'end');
        reused.push(req.reusedSocket);
      }
      expect(reused).toEqual([false, true]);
    } finally {
      agent.destroy();
    }
  });

  it('hang: never answers, so the client times out waiting for headers', async () => {
    const rx = await start({ reply: () => ({ hang: true }) });
    const started = Date.now();
    const err = await request(`${rx.url}/h`, {
      method: 'POST',
      body: 'x',
      dispatcher: trusted,
      headersTimeout: 300,
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(errorCodes(err)).toContain('UND_ERR_HEADERS_TIMEOUT');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(rx.requests).toHaveLength(1);
  });

  it('drip: sends headers at once, then one byte per interval, so only a body timeout can stop it', async () => {
    const rx = await start({ reply: () => ({ drip: { bytesPerSecond: 20, status: 202 } }) });
    const started = Date.now();
    // 50 ms between bytes: a 300 ms body timeout never fires while the bytes keep coming.
    const res = await request(`${rx.url}/d`, { dispatcher: trusted, headersTimeout: 300, bodyTimeout: 300 });
    expect(res.statusCode).toBe(202);
    expect(Date.now() - started).toBeLessThan(300);
    let received = '';
    let elapsed = 0;
    for await (const chunk of res.body) {
      received += String(chunk);
      elapsed = Date.now() - started;
      if (elapsed >= 600) break;
    }
    expect(received).toMatch(/^\.{4,}$/);
    expect(received.length).toBeLessThanOrEqual(elapsed / 50 + 2);

    // 4 s between bytes: the headers still come at once, and the body timeout fires before the first byte
    // (undici checks body timeouts on a ~0.5 s tick, so a byte every 0.5 s would keep refreshing it).
    rx.setReply(() => ({ drip: { bytesPerSecond: 0.25 } }));
    const slowStarted = Date.now();
    const slow = await request(`${rx.url}/d2`, { dispatcher: trusted, headersTimeout: 300, bodyTimeout: 300 });
    expect(slow.statusCode).toBe(200);
    const err = await slow.body.text().then(
      () => null,
      (e: unknown) => e,
    );
    expect(Date.now() - slowStarted).toBeLessThan(3_500);
    expect(errorCodes(err)).toContain('UND_ERR_BODY_TIMEOUT');
  });

  it('delayMs: answers with the inner reply after the delay', async () => {
    const rx = await start({ reply: () => ({ delayMs: 400, reply: { status: 201, body: 'late' } }) });
    const started = Date.now();
    const res = await request(`${rx.url}/late`, { dispatcher: trusted });
    expect(res.statusCode).toBe(201);
    expect(await res.body.text()).toBe('late');
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
  });

  it('redirectReply: a 302 with Location, which undici does not follow', async () => {
    const rx = await start({
      reply: (req) => (req.n === 1 ? redirectReply('https://127.0.0.1:1/elsewhere') : { status: 204 }),
    });
    const res = await request(`${rx.url}/r`, { dispatcher: trusted });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('https://127.0.0.1:1/elsewhere');
    await res.body.dump();
    expect(rx.requests).toHaveLength(1);
  });

  it('answers 500 with the error when the reply function throws, instead of crashing the test process', async () => {
    const rx = await start({
      reply: () => {
        throw new Error('boom');
      },
    });
    const res = await request(`${rx.url}/t`, { dispatcher: trusted });
    expect(res.statusCode).toBe(500);
    expect(await res.body.text()).toContain('boom');
  });

  it('waitFor resolves once enough requests arrived, and times out saying how many did', async () => {
    const rx = await start();
    const waiting = rx.waitFor(2, 5_000);
    for (const p of ['/a', '/b', '/c']) await (await request(`${rx.url}${p}`, { dispatcher: trusted })).body.dump();
    expect((await waiting).map((r) => r.path)).toEqual(['/a', '/b']);
    expect((await rx.waitFor(1)).map((r) => r.n)).toEqual([1]);

    const started = Date.now();
    await expect(rx.waitFor(5, 200)).rejects.toThrow(
      'expected 5 requests at the HTTPS receiver, 3 arrived within 200 ms',
    );
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('close() returns promptly with a hanging and a dripping request open', async () => {
    const rx = await start({ reply: (req) => (req.n === 1 ? { hang: true } : { drip: { bytesPerSecond: 10 } }) });
    const hanging = request(`${rx.url}/h`, { dispatcher: trusted }).then(
      () => 'answered',
      () => 'failed',
    );
    const dripping = request(`${rx.url}/d`, { dispatcher: trusted }).then(
      (res) =>
        res.body.text().then(
          () => 'ended',
          () => 'failed',
        ),
      () => 'failed',
    );
    await rx.waitFor(2);
    const started = Date.now();
    await rx.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await hanging).toBe('failed');
    expect(await dripping).toBe('failed');
  });
});

describe('bigBody', () => {
  it('is exactly the asked number of UTF-8 bytes, with multi-byte characters', () => {
    for (const bytes of [0, 1, 2, 3, 4, 5, 8, 9, 10, 4095, 4096, 4099, 10_240]) {
      expect(Buffer.byteLength(bigBody(bytes)), `${bytes} bytes`).toBe(bytes);
    }
    expect(bigBody(9)).toBe('😀€é');
    expect(bigBody(10_240)).toMatch(/😀/);
  });

  it('puts byte 4096 inside a character, so a naive 4 KB cut breaks it', () => {
    const cut = Buffer.from(bigBody(10_240)).subarray(0, 4096).toString('utf8');
    expect(cut.endsWith('\uFFFD')).toBe(true);
    // 0xF0 leads a 4-byte sequence: the cut falls inside a character that is a surrogate pair in UTF-16.
    expect(Buffer.from(bigBody(4099))[4095]).toBe(0xf0);
  });
});
