import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import { freePort } from '../../server/infra/db/embedded-postgres.ts';
import { installationEnv, cliProcesses, type CliProcess } from '../support/cli.ts';
import { makePublishedForm } from '../support/forms.ts';
import { makeTeam, startTestApp } from '../support/harness.ts';
import { tempDataDir } from '../support/processing.ts';
import { until } from '../support/until.ts';

/**
 * Rolling restarts of `intake serve --no-worker` behind a load balancer, played by the test: it sends each
 * post to the next process in its rotation and takes a process out of rotation when its /readyz stops
 * answering 200, as a balancer's health check does.
 */
const t = await startTestApp();
const dataDir = tempDataDir();
const DRAIN_MS = 1_500;
const HEALTH_CHECK_MS = 100;

type Serve = CliProcess & { port: number };
const processes = cliProcesses('each');

function startServe(port: number, env: Record<string, string> = {}, command = ['serve', '--no-worker']): Serve {
  const childEnv = installationEnv(
    { dataDir },
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      INTAKE_SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
      // One client address posts everything here: the per-address limits are lifted.
      INTAKE_INGEST_RATE_LIMIT: '1000000',
      INTAKE_INGEST_FLOOD_LIMIT: '1000000',
      ...env,
    },
  );
  return { ...processes.start(command, childEnv), port };
}

const base = (port: number) => `http://127.0.0.1:${port}`;
const readyz = (port: number) =>
  fetch(`${base(port)}/readyz`).then(
    async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }),
    (err: unknown) => ({ status: 0, body: { refused: (err as { cause?: { code?: string } }).cause?.code } }),
  );
const ready = (p: Serve) =>
  until(`serve on ${p.port} to be ready`, async () => {
    if (p.child.exitCode !== null) throw new Error(`serve exited ${p.child.exitCode}:\n${p.output()}`);
    return (await readyz(p.port)).status === 200;
  });

function post(port: number, formId: string, n: number) {
  return fetch(`${base(port)}/f/${formId}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams({ name: 'Ada', email: 'ada@example.com', message: `post ${n}` }).toString(),
  });
}

/** A post whose body arrives over `ms` (above the minimum body rate): in flight across the drain's end. */
function slowPost(port: number, formId: string, ms: number): Promise<{ status: number; id: string; endedAt: number }> {
  const body = Buffer.from(
    new URLSearchParams({ name: 'Ada', email: 'ada@example.com', message: 'slow '.repeat(200) }).toString(),
  );
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: `/f/${formId}`,
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          'content-length': body.length,
        },
      },
      (res) => {
        let data = '';
        res.on('data', (c: Buffer) => (data += c.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, id: (JSON.parse(data) as { id: string }).id, endedAt: Date.now() }),
        );
      },
    );
    req.on('error', reject);
    const parts = 10;
    const size = Math.ceil(body.length / parts);
    for (let i = 0; i < parts; i++)
      setTimeout(
        () => (i === parts - 1 ? req.end(body.subarray(i * size)) : req.write(body.subarray(i * size, (i + 1) * size))),
        (i * ms) / (parts - 1),
      );
  });
}

/** The CPU time a process has used so far, in ms (utime + stime of /proc/<pid>/stat, in clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

describe('rolling restarts', { timeout: 120_000 }, () => {
  it('one of two processes restarted while a client posts through both: every post answered, accepted = stored', async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const form = await makePublishedForm(t, owner);
    const [portA, portB] = [await freePort(), await freePort()];
    let a = startServe(portA);
    const b = startServe(portB);
    await Promise.all([ready(a), ready(b)]);

    // The balancer: health checks every 100 ms, posts round-robin over the ports in rotation.
    const inRotation = new Set([portA, portB]);
    let stop = false;
    const healthChecks = (async () => {
      while (!stop) {
        for (const port of [portA, portB]) {
          if ((await readyz(port)).status === 200) inRotation.add(port);
          else inRotation.delete(port);
        }
        await new Promise((r) => setTimeout(r, HEALTH_CHECK_MS));
      }
    })();
    const accepted: string[] = [];
    const refused: number[] = [];
    const unexpected: string[] = [];
    const servedBy = new Map<number, number>();
    let n = 0;
    const client = async () => {
      while (!stop) {
        const ports = [...inRotation];
        const port = ports[n++ % ports.length];
        if (port === undefined) {
          await new Promise((r) => setTimeout(r, 10));
          continue;
        }
        try {
          const res = await post(port, form.id, n);
          const body = (await res.json()) as { id?: string };
          if (res.status === 201 && body.id) {
            accepted.push(body.id);
            servedBy.set(port, (servedBy.get(port) ?? 0) + 1);
          } else unexpected.push(`${res.status} ${JSON.stringify(body)}`);
        } catch (err) {
          // Refused before anything was sent is an answer a balancer retries elsewhere; a reset after the
          // request went out (ECONNRESET, "other side closed") is a post whose fate the client cannot know.
          const code = (err as { cause?: { code?: string } }).cause?.code ?? String(err);
          if (code === 'ECONNREFUSED') refused.push(port);
          else unexpected.push(`port ${port}: ${code}`);
        }
      }
    };
    const clients = Array.from({ length: 4 }, () => client());
    await until('posts through both', async () => (servedBy.get(portA) ?? 0) >= 20 && (servedBy.get(portB) ?? 0) >= 20);

    // An upload still arriving when the drain ends: it is answered before the process exits.
    const inFlight = slowPost(portA, form.id, 3_000);
    await new Promise((r) => setTimeout(r, 100));
    const signalled = Date.now();
    a.child.kill('SIGTERM');
    // Out of rotation at once, still taking connections during the drain, then refusing them.
    const notReady = await until('readyz 503', async () => {
      const r = await readyz(portA);
      return r.status === 503 ? r : null;
    });
    const notReadyMs = Date.now() - signalled;
    expect(notReady.body).toMatchObject({ error: 'service_unavailable' });
    const duringDrain = await post(portA, form.id, -1);
    expect(duringDrain.status).toBe(201);
    accepted.push(((await duringDrain.json()) as { id: string }).id);
    const [code, signal] = await a.exited;
    const exitMs = Date.now() - signalled;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    const slow = await inFlight;
    expect(slow.status).toBe(201);
    expect(slow.endedAt - signalled).toBeGreaterThan(DRAIN_MS);
    // Its connection closes with its answer (it began before the drain, without `Connection: close`): the
    // process does not wait out a keep-alive timeout (INTAKE_KEEP_ALIVE_TIMEOUT_MS, 5 s) before it exits.
    expect(exitMs - (slow.endedAt - signalled)).toBeLessThan(3_000);
    accepted.push(slow.id);
    expect(notReadyMs).toBeLessThan(500);
    expect(exitMs).toBeGreaterThanOrEqual(DRAIN_MS);
    expect((await readyz(portA)).body).toEqual({ refused: 'ECONNREFUSED' });

    const servedByBBeforeRestart = servedBy.get(portB) ?? 0;
    a = startServe(portA);
    await ready(a);
    const servedByABeforeRestart = servedBy.get(portA) ?? 0;
    await until(
      'posts through the restarted process',
      async () => (servedBy.get(portA) ?? 0) >= servedByABeforeRestart + 20,
    );
    stop = true;
    await Promise.all([...clients, healthChecks]);

    expect(unexpected).toEqual([]);
    expect(servedBy.get(portB)).toBeGreaterThan(servedByBBeforeRestart);
    const { rows } = await t.ctx.db.query<{ id: string }>('select id from submissions where form_id = $1', [form.id]);
    expect(rows.map((r) => r.id).sort()).toEqual([...accepted].sort());
    console.log(
      `rolling-restart.test.ts: ${accepted.length} posts accepted (${servedBy.get(portA)} by A, ${servedBy.get(portB)} by B), ${refused.length} refused before sending; readyz 503 after ${notReadyMs} ms, exit after ${exitMs} ms (drain ${DRAIN_MS} ms)`,
    );

    for (const p of [a, b]) p.child.kill('SIGTERM');
    expect(await Promise.all([a.exited, b.exited])).toEqual([
      [0, null],
      [0, null],
    ]);
  });

  it.each([['serve', '--no-worker'], ['worker']])(
    'a SIGTERM while `%s` is still starting ends it cleanly: exit 0, not killed by the signal',
    async (...command) => {
      // Postgres behind a proxy that holds the first connection until the signal is sent: the process is
      // inside its start (opening the database) when SIGTERM arrives, whatever the machine's speed.
      const pgUrl = new URL(inject('databaseUrl'));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let connected!: () => void;
      const firstConnection = new Promise<void>((resolve) => (connected = resolve));
      const sockets = new Set<net.Socket>();
      const proxy = net.createServer((client) => {
        connected();
        sockets.add(client);
        void released.then(() => {
          const upstream = net.connect(Number(pgUrl.port), pgUrl.hostname);
          sockets.add(upstream);
          client.pipe(upstream).pipe(client);
          upstream.on('error', () => client.destroy());
          client.on('error', () => upstream.destroy());
        });
      });
      proxy.listen(0, '127.0.0.1');
      await once(proxy, 'listening');
      const proxied = new URL(pgUrl);
      proxied.hostname = '127.0.0.1';
      proxied.port = String((proxy.address() as net.AddressInfo).port);
      try {
        const p = startServe(await freePort(), { DATABASE_URL: proxied.toString() }, command);
        await firstConnection;
        p.child.kill('SIGTERM');
        await new Promise((r) => setTimeout(r, 200));
        release();
        const [code, signal] = await p.exited;
        expect({ code, signal }).toEqual({ code: 0, signal: null });
        expect(p.output()).toContain('signal received while starting');
      } finally {
        release();
        for (const s of sockets) s.destroy();
        await new Promise((resolve) => proxy.close(resolve));
      }
    },
  );

  it.each([['serve', '--no-worker'], ['worker']])(
    'a SIGTERM while `%s` is still loading, before it starts, ends it cleanly too',
    async (...command) => {
      // Half a second of its own CPU time in (not of the clock, which a busy machine stretches): Node is up and
      // holds the signal (cli/early-signals.ts, in place before the rest of the command line loads, as `intake
      // --version` answers in about 0.2 s), and is loading the server (over a second); boot() has not begun.
      const p = startServe(await freePort(), {}, command);
      await until('half a second of CPU', () => cpuMs(p.child.pid!) >= 500, 30_000, 5);
      p.child.kill('SIGTERM');
      const [code, signal] = await p.exited;
      expect({ code, signal }, p.output()).toEqual({ code: 0, signal: null });
      expect(p.output()).toContain('signal received while starting');
    },
  );
});
