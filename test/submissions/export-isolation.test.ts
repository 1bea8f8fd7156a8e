/**
 * Long-lived work never holds what other teams need (issue 25, item 1), against the real HTTP server
 * with the default pool of 10 connections:
 *  - nine exports of one team whose clients read slowly or not at all leave another team's API and
 *    public endpoint answering at once (they held nine connections and everyone got 503 before);
 *  - a team runs at most INTAKE_EXPORTS_PER_TEAM (2) exports: the third answers 429 with Retry-After,
 *    another team still exports, and a lease comes back when its client goes;
 *  - exports running flat out never hold more than half the pool (Postgres's own view of the backends);
 *  - ordinary statements are cut at DATABASE_STATEMENT_TIMEOUT_MS (answered 503, not 500), a transaction
 *    left idle at DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS, while migrations keep no time limit.
 */
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { migrate } from '../../server/infra/db/database.ts';
import { listenHttp, type HttpServer } from '../../server/transports/http/http-server.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeMember, makeTeam, startTestApp, type TestMember, seed } from '../support/harness.ts';
import { startProcessingApp } from '../support/processing.ts';
import { recountFolders } from '../support/team-records.ts';

// As `intake serve` runs by default: workers on, so one connection of DATABASE_POOL_SIZE (10) is the queue's
// LISTEN session and 9 are pooled — nine exports used to take every one of them. The worker consumes the
// queue of a database of this file's own, so it takes no other test file's jobs.
const t = await startProcessingApp({
  INTAKE_IDLE_TIMEOUT_MS: '20000',
  INTAKE_API_RATE_LIMIT: '100000',
  INTAKE_API_TEAM_RATE_LIMIT: '100000',
});
const onDatabase = { DATABASE_URL: t.databaseUrl, INTAKE_DATA_DIR: t.dataDir };
const server: HttpServer = await listenHttp(t.app, { ...t.config, port: 0, host: '127.0.0.1' });
afterAll(() => server.close(0));
const port = Number(new URL(server.url).port);
/** Another app on the same database whose statements may run 500 ms and whose transactions may idle 1 s. */
const short = await startTestApp({
  ...onDatabase,
  DATABASE_STATEMENT_TIMEOUT_MS: '500',
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '1000',
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A team with a form of `rows` submissions of about 1 KB each, seeded by SQL (ids tagged `ei`). */
async function teamWithRows(rows: number, owner?: TestMember): Promise<{ owner: TestMember; formId: string }> {
  owner ??= await makeTeam(t);
  const formId = (await makePublishedForm(t, owner)).id;
  await seed(
    t,
    `insert into submissions (id, team_id, form_id, status, payload, received_at)
     select 'subm_ei' || substr(md5($2), 1, 8) || lpad(g::text, 16, '0'), $1, $2, 'processed',
            jsonb_build_object('email', 'p' || g || '@example.test', 'message', repeat('m', 1000)),
            timestamptz '2026-01-01T00:00:00Z' + g * interval '1 millisecond'
       from generate_series(1, $3::int) g`,
    [owner.teamId, formId, rows],
  );
  await recountFolders(t.ctx.db, owner.teamId, formId);
  return { owner, formId };
}

/** A raw export request whose client reads nothing (`slow`: a few KB now and then). Closed after the test. */
async function silentExport(formId: string, token: string, slow = false): Promise<net.Socket> {
  const socket = net.connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  socket.on('error', () => {});
  socket.pause();
  socket.write(
    `GET /v1/forms/${formId}/submissions/export?format=json HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`,
  );
  if (slow) {
    const timer = setInterval(() => socket.read(4096), 500);
    socket.once('close', () => clearInterval(timer));
  }
  onTestFinished(() => void socket.destroy());
  return socket;
}

/** An export whose client reads the status line and first bytes, then stops reading. */
function pausedExport(formId: string, token: string): Promise<{ req: http.ClientRequest; res: http.IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${server.url}/v1/forms/${formId}/submissions/export?format=json`,
      { headers: bearer(token) },
      (res) => {
        res.once('data', () => {
          res.pause();
          resolve({ req, res });
        });
        res.once('error', reject);
      },
    );
    req.once('error', reject);
    onTestFinished(() => void req.destroy());
  });
}

const leasesOf = async (teamId: string) =>
  Number(
    (
      await t.ctx.db.query<{ n: string }>(
        'select count(*) as n from export_leases where team_id = $1 and expires_at > now()',
        [teamId],
      )
    ).rows[0]!.n,
  );

async function waitFor(what: string, ok: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!(await ok())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

/**
 * Postgres's view of export reading: a function counting the backends that read a chunk of one of the given
 * forms (its rows, through COPY or a cursor, or the statement that opens it), on a client of its own.
 */
async function chunkReaders(): Promise<(forms: string[]) => Promise<number>> {
  const sampler = new pg.Client({ connectionString: t.databaseUrl });
  await sampler.connect();
  onTestFinished(() => sampler.end());
  return async (forms) => {
    const { rows } = await sampler.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
        where state <> 'idle' and (query like 'copy (%' or query like 'select json_build_object(%' or query like 'select set_config(''intake.link_key''%')
          and query similar to $1`,
      [`%(${forms.join('|')})%`],
    );
    return rows[0]!.n;
  };
}

/** Runs `sample` back to back until the returned `stop` is called; `stop` answers how many samples ran. */
function sampleUntilStopped(sample: () => Promise<void>): () => Promise<number> {
  let samples = 0;
  let sampling = true;
  const sampled = (async () => {
    for (; sampling; samples++) await sample();
  })();
  return async () => {
    sampling = false;
    await sampled;
    return samples;
  };
}

/** An app whose teams may run four exports at once, with room for ten stream connections. */
const wide = await startTestApp({
  ...onDatabase,
  INTAKE_EXPORTS_PER_TEAM: '4',
  DATABASE_POOL_SIZE: '21',
  INTAKE_API_RATE_LIMIT: '100000',
  INTAKE_API_TEAM_RATE_LIMIT: '100000',
});
const wideServer: HttpServer = await listenHttp(wide.app, { ...wide.config, port: 0, host: '127.0.0.1' });
afterAll(() => wideServer.close(0));

describe('exports of one team and the rest of the service', () => {
  it(
    "a team's exports read two chunks at a time in a process, however many it runs; another team's read beside them",
    { timeout: 150_000 },
    async () => {
      const { owner, formId } = await teamWithRows(20_000);
      const { formId: secondForm } = await teamWithRows(20_000, owner);
      const other = await teamWithRows(20_000);
      const reading = await chunkReaders();
      let peakTeam = 0;
      let peakBoth = 0;
      const stop = sampleUntilStopped(async () => {
        const team = await reading([formId, secondForm]);
        peakTeam = Math.max(peakTeam, team);
        peakBoth = Math.max(peakBoth, team + (await reading([other.formId])));
      });
      const exportAll = (form: string, token: string) => async () => {
        const res = await fetch(`${wideServer.url}/v1/forms/${form}/submissions/export?format=json`, {
          headers: bearer(token),
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as unknown[]).length;
      };
      // Four exports of one team read flat out (past its opening, each reads two chunks at once when alone), and two of another team.
      const runs = [formId, formId, secondForm, secondForm]
        .map((f) => exportAll(f, owner.token))
        .concat([0, 1].map(() => exportAll(other.formId, other.owner.token)));
      const counts = await Promise.all(runs.map((run) => run()));
      const samples = await stop();
      expect(counts).toEqual(Array(6).fill(20_000));
      expect(samples).toBeGreaterThan(20);
      expect(peakTeam).toBe(2);
      expect(peakBoth).toBeGreaterThan(2);
    },
  );

  it(
    "a team's exports opened together for clients that read nothing read their first chunks on one backend",
    { timeout: 150_000 },
    async () => {
      const { owner, formId } = await teamWithRows(20_000);
      const reading = await chunkReaders();
      // Three exports whose clients take the first bytes and then nothing: each reads what the sockets take.
      const open = () =>
        new Promise<void>((resolve, reject) => {
          const req = http.get(
            `${wideServer.url}/v1/forms/${formId}/submissions/export?format=json`,
            { headers: bearer(owner.token) },
            (res) => {
              expect(res.statusCode).toBe(200);
              res.once('data', () => {
                res.pause();
                resolve();
              });
            },
          );
          req.once('error', reject);
          onTestFinished(() => void req.destroy());
        });
      let peak = 0;
      let quietFor = 0;
      let samples = 0;
      const opened = Promise.all([open(), open(), open()]);
      // Until the three have stopped reading: 500 ms without a chunk being read.
      for (const started = Date.now(); quietFor < 20 && Date.now() - started < 20_000; samples++) {
        const n = await reading([formId]);
        peak = Math.max(peak, n);
        quietFor = n ? 0 : quietFor + 1;
        await sleep(n ? 0 : 25);
      }
      await opened;
      expect(samples).toBeGreaterThan(20);
      expect(peak).toBe(1);
    },
  );

  it(
    "nine slow or silent exports of one team's viewers leave another team's API and public endpoint answering at once",
    { timeout: 150_000 },
    async () => {
      const a = await teamWithRows(40_000);
      const viewers = await Promise.all(Array.from({ length: 3 }, () => makeMember(t, a.owner.teamId, 'viewer')));
      const b = await makeTeam(t);
      const bForm = await makePublishedForm(t, b);

      for (let i = 0; i < 9; i++) await silentExport(a.formId, viewers[i % 3]!.token, i % 2 === 1);
      // Let the exports start (and, before this change, take their connections).
      await sleep(1_000);

      const latencies: number[] = [];
      const failures: string[] = [];
      for (let i = 0; i < 15; i++) {
        const started = performance.now();
        const [list, post] = await Promise.all([
          fetch(`${server.url}/v1/forms/${bForm.id}/submissions`, {
            headers: bearer(b.token),
            signal: AbortSignal.timeout(12_000),
          }),
          fetch(`${server.url}${bForm.endpoint}`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ email: `b${i}@example.test` }),
            signal: AbortSignal.timeout(12_000),
          }),
        ]);
        latencies.push(performance.now() - started);
        if (list.status !== 200) failures.push(`list ${list.status}`);
        if (post.status !== 201) failures.push(`post ${post.status}`);
        await Promise.all([list.text(), post.text()]);
        if (failures.length) break;
      }
      expect(failures).toEqual([]);
      latencies.sort((x, y) => x - y);
      expect(latencies.at(-1)!).toBeLessThan(1_000);
    },
  );

  it('the third concurrent export of a team answers 429 rate_limited with Retry-After; another team still exports; a lease comes back when its client goes', async () => {
    const c = await teamWithRows(20_000);
    const d = await teamWithRows(200);
    const first = await pausedExport(c.formId, c.owner.token);
    const second = await pausedExport(c.formId, c.owner.token);
    expect([first.res.statusCode, second.res.statusCode]).toEqual([200, 200]);

    const third = await fetch(`${server.url}/v1/forms/${c.formId}/submissions/export?format=csv`, {
      headers: bearer(c.owner.token),
    });
    expect(third.status).toBe(429);
    const retryAfter = Number(third.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    const body = (await third.json()) as { error: string; message: string; retry_after: number };
    expect(body).toMatchObject({ error: 'rate_limited', retry_after: retryAfter });
    expect(body.message).toMatch(/2 exports/);
    expect(await leasesOf(c.owner.teamId)).toBe(2);

    const other = await fetch(`${server.url}/v1/forms/${d.formId}/submissions/export?format=json`, {
      headers: bearer(d.owner.token),
    });
    expect(other.status).toBe(200);
    expect(((await other.json()) as unknown[]).length).toBe(200);

    // The first client goes away: its lease is dropped, and the team may export again.
    first.req.destroy();
    await waitFor(
      'the lease of the export whose client left',
      async () => (await leasesOf(c.owner.teamId)) === 1,
      5_000,
    );
    const again = await fetch(
      `${server.url}/v1/forms/${c.formId}/submissions/export?format=json&since=2026-01-01T00:00:19Z`,
      { headers: bearer(c.owner.token) },
    );
    expect(again.status).toBe(200);
    expect(((await again.json()) as unknown[]).length).toBe(1_000);
    second.req.destroy();
    await waitFor('every lease of the team to be dropped', async () => (await leasesOf(c.owner.teamId)) === 0, 5_000);
  });

  it('ten exports read flat out never hold more than half the pool', { timeout: 150_000 }, async () => {
    // Half of the 9 pooled connections.
    const limit = 4;
    const teams = await Promise.all(Array.from({ length: 5 }, () => teamWithRows(8_000)));
    // Postgres's view: the backends reading a chunk of these teams' forms (its COPY, or the statement that opens it).
    const reading = await chunkReaders();
    let peakBackends = 0;
    let peakSlots = 0;
    const stop = sampleUntilStopped(async () => {
      peakBackends = Math.max(peakBackends, await reading(teams.map((x) => x.formId)));
      peakSlots = Math.max(peakSlots, t.ctx.db.streams?.inUse ?? 0);
    });
    const exports = teams.flatMap((x) =>
      [0, 1].map(async () => {
        const res = await fetch(`${server.url}/v1/forms/${x.formId}/submissions/export?format=csv`, {
          headers: bearer(x.owner.token),
        });
        expect(res.status).toBe(200);
        return (await res.text()).split('\n').length - 2; // the header, and the empty string after the last \n
      }),
    );
    const counts = await Promise.all(exports);
    const samples = await stop();
    expect(counts).toEqual(Array(10).fill(8_000));
    expect(samples).toBeGreaterThan(20);
    expect(peakBackends).toBeGreaterThan(0);
    expect(peakBackends).toBeLessThanOrEqual(limit);
    expect(t.ctx.db.streams).toMatchObject({ limit, inUse: 0, waiting: 0 });
    expect(peakSlots).toBeLessThanOrEqual(limit);
  });
});

describe('statement and idle-in-transaction timeouts', () => {
  it(
    'a statement past DATABASE_STATEMENT_TIMEOUT_MS is cancelled and answered 503; a transaction left idle is closed; migrations are not cut',
    { timeout: 150_000 },
    async () => {
      const started = performance.now();
      await expect(short.ctx.db.query('select pg_sleep(3)')).rejects.toMatchObject({ code: '57014' });
      expect(performance.now() - started).toBeLessThan(2_000);

      // An API request whose statement waits on a lock past the timeout: a clean 503 with retry_after.
      const owner = await makeTeam(short);
      const form = await makePublishedForm(short, owner);
      const locker = new pg.Client({ connectionString: t.databaseUrl });
      await locker.connect();
      onTestFinished(() => locker.end());
      await locker.query('begin');
      await locker.query('select 1 from forms where id = $1 for update', [form.id]);
      const patched = await short.http.put(`/v1/forms/${form.id}`).set(bearer(owner.token)).send({ name: 'Renamed' });
      await locker.query('rollback');
      expect(patched.status).toBe(503);
      expect(patched.body).toMatchObject({ error: 'service_unavailable', retry_after: expect.any(Number) });
      expect(patched.headers['retry-after']).toBeDefined();

      // A transaction its holder leaves idle is closed by Postgres; the pool serves on.
      await expect(
        short.ctx.db.transaction(async (tx) => {
          await tx.query('select 1');
          await sleep(2_000);
          await tx.query('select 1');
        }),
      ).rejects.toThrow();
      expect((await short.ctx.db.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);

      // Migrations have no time limit: waiting for another process's migration lock longer than a statement may.
      await locker.query('select pg_advisory_lock(781234)');
      const unlock = sleep(1_500).then(() => locker.query('select pg_advisory_unlock(781234)'));
      await expect(migrate(short.db)).resolves.toEqual([]);
      await unlock;
      // …and the lock's connection went back to the pool with the ordinary limit.
      await expect(short.ctx.db.query('select pg_sleep(3)')).rejects.toMatchObject({ code: '57014' });
    },
  );

  it(
    'a force delete may run past DATABASE_STATEMENT_TIMEOUT_MS: a big form takes time to erase, and a cut one would keep everything',
    { timeout: 30_000 },
    async () => {
      const owner = await makeTeam(short);
      const form = await makePublishedForm(short, owner);
      const posted = await short.http
        .post(`/f/${form.id}`)
        .set('Accept', 'application/json')
        .type('form')
        .send({ message: 'hello' });
      expect(posted.status).toBe(201);
      // The cascade waits on a submission row held by another transaction for three times the statement limit.
      const locker = new pg.Client({ connectionString: t.databaseUrl });
      await locker.connect();
      onTestFinished(() => locker.end());
      await locker.query('begin');
      await locker.query('select 1 from submissions where form_id = $1 for update', [form.id]);
      const release = sleep(1_500).then(() => locker.query('rollback'));
      const erased = await short.http.delete(`/v1/forms/${form.id}/force`).set(bearer(owner.token));
      await release;
      expect(erased.status, erased.text).toBe(200);
      expect((await short.ctx.db.query('select 1 from submissions where form_id = $1', [form.id])).rowCount).toBe(0);
      // The limit was the transaction's own: the pool's connections still cut a long statement.
      await expect(short.ctx.db.query('select pg_sleep(3)')).rejects.toMatchObject({ code: '57014' });
    },
  );
});
