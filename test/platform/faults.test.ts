import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { fileLink } from '../../server/domain/submissions/file-links.ts';
import { cliProcesses, shellEnv, type CliProcess } from '../support/cli.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, startTestApp } from '../support/harness.ts';
import { startHttpsReceiver, type Reply } from '../support/https-receiver.ts';
import { startOpenAiTestServer } from '../support/openai-server.ts';
import { startPrivatePostgres, startPrivateS3 } from '../support/private-services.ts';
import { hookedForms } from '../support/hooked-forms.ts';
import { tempDataDir } from '../support/processing.ts';
import { serverProcessEnv } from '../support/tls.ts';
import { until } from '../support/until.ts';

/**
 * Faults under running processes: Postgres restarted, object storage down, workers killed, a SIGTERM under
 * load, receivers that never answer. Postgres and S3 here are this file's own (the run's shared ones serve
 * other files in parallel), stopped and started again on the same port. Every case counts the faults it
 * injects and the requests it makes; the totals are printed at the end.
 */
const BUCKET = 'intake-faults';
const postgres = await startPrivatePostgres();
const s3 = await startPrivateS3(BUCKET);
const dataDir = tempDataDir();
const ENV = {
  DATABASE_URL: postgres.url,
  STORAGE_URL: s3.url,
  STORAGE_BUCKET: BUCKET,
  INTAKE_DATA_DIR: dataDir,
  INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true',
  INTAKE_VERIFY_NOTIFICATION_EMAILS: 'false',
};
// In-process: teams, tokens and forms are made through it, and rows are read back through its pool.
const t = await startTestApp(ENV);

const tally: Record<string, { faults: number; requests: number; lost: number }> = {};
const count = (what: string) => (tally[what] ??= { faults: 0, requests: 0, lost: 0 });
afterAll(() => {
  console.log(`faults.test.ts: ${JSON.stringify(tally)}`);
});

// A case that failed leaves no process behind to take the next case's jobs.
const processes = cliProcesses('each');

/** `intake serve` or `intake worker` as production runs it, on this file's Postgres and S3. */
function startIntake(command: 'serve' | 'worker', extra: Record<string, string> = {}): CliProcess {
  const env = shellEnv({
    ...ENV,
    PORT: '0',
    HOST: '127.0.0.1',
    INTAKE_BASE_URL: 'http://intake.test',
    LOG_LEVEL: 'info',
    ...serverProcessEnv(),
    ...extra,
  });
  return processes.start([command], env);
}

type Answer = {
  status: number;
  ms: number;
  body: Record<string, unknown>;
  retryAfter: string | null;
  location: string | null;
};

/** One request over real HTTP (no retries, no redirects followed), timed. */
async function request(url: string, init: RequestInit = {}): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(20_000), ...init });
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return {
    status: res.status,
    ms: performance.now() - started,
    body,
    retryAfter: res.headers.get('retry-after'),
    location: res.headers.get('location'),
  };
}

const CONTACT = { name: 'Ada', email: 'ada@example.com', message: 'Please call me back about the quote.' };

function postForm(base: string, formId: string, fields: Record<string, string> = CONTACT): Promise<Answer> {
  return request(`${base}/f/${formId}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams(fields).toString(),
  });
}

/** A multipart post of the contact fields and the given files. */
function postFiles(base: string, formId: string, files: Array<{ name: string; bytes: Buffer }>): Promise<Answer> {
  const body = new FormData();
  for (const [k, v] of Object.entries(CONTACT)) body.append(k, v);
  for (const f of files)
    body.append(f.name, new Blob([f.bytes], { type: 'application/octet-stream' }), `${f.name}.bin`);
  return request(`${base}/f/${formId}`, { method: 'POST', headers: { Accept: 'application/json' }, body });
}

/** What an outage answers: 503 service_unavailable, the error body with retry_after, and a Retry-After header. */
function expectUnavailable(a: Answer) {
  expect(a.status, JSON.stringify(a.body)).toBe(503);
  expect(a.body).toEqual({ error: 'service_unavailable', message: expect.any(String), retry_after: 5 });
  expect(a.retryAfter).toBe('5');
}

async function submissionRows(formId: string): Promise<Array<{ id: string; status: string }>> {
  const { rows } = await t.ctx.db.query<{ id: string; status: string }>(
    'select id, status from submissions where form_id = $1 order by received_at, id',
    [formId],
  );
  return rows;
}

describe('Postgres restarted under a running server', { timeout: 90_000 }, () => {
  it('REST and the public endpoint answer 503 at once while it is down, recover by themselves, and a worker processes what comes after', async () => {
    const c = count('postgres restart');
    const owner = await makeTeam(t, { plan: 'pro' });
    const form = await makePublishedForm(t, owner);
    // Polling every minute: a post processed promptly after the restart was woken by the re-opened LISTEN session.
    const serve = startIntake('serve', { INTAKE_QUEUE_POLL_SECONDS: '60' });
    const base = await serve.url();
    const forms = () => request(`${base}/v1/forms`, { headers: bearer(owner.token) });

    expect((await forms()).status).toBe(200);
    const before = await postForm(base, form.id);
    expect(before.status).toBe(201);
    c.requests += 2;
    await until(
      'the first post to be processed',
      async () => (await submissionRows(form.id))[0]?.status === 'processed',
    );

    for (let round = 0; round < 2; round++) {
      postgres.stop();
      c.faults += 1;
      for (let i = 0; i < 3; i++) {
        const listed = await forms();
        const posted = await postForm(base, form.id);
        c.requests += 2;
        expectUnavailable(listed);
        expectUnavailable(posted);
        // Fails fast: a refused connection, not a wait for the pool's connection timeout.
        expect(listed.ms).toBeLessThan(2_000);
        expect(posted.ms).toBeLessThan(2_000);
      }
      expect(serve.child.exitCode).toBeNull();
      postgres.start();

      // Recovers by itself: the pool opens fresh connections.
      await until('the API to answer again', async () => {
        c.requests += 1;
        return (await forms()).status === 200;
      });
      const after = await postForm(base, form.id);
      c.requests += 1;
      expect(after.status, JSON.stringify(after.body)).toBe(201);
      const id = after.body.id as string;
      await until(
        `the post made after restart ${round + 1} to be processed`,
        async () => (await submissionRows(form.id)).find((s) => s.id === id)?.status === 'processed',
        20_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\nserve output:\n${serve.output().slice(-4000)}`);
      });
    }
    expect(serve.child.exitCode).toBeNull();
    // Everything accepted is stored, nothing refused is.
    expect((await submissionRows(form.id)).map((s) => s.status)).toEqual(['processed', 'processed', 'processed']);
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toEqual([0, null]);
  });
});

describe('object storage down during uploads and downloads', { timeout: 60_000 }, () => {
  it('uploads and downloads answer 503 while it is down, nothing is half-stored, and both work again once it is back', async () => {
    const c = count('storage outage');
    const owner = await makeTeam(t, { plan: 'pro' });
    const form = await makePublishedForm(t, owner);
    const prefix = `teams/${owner.teamId}/forms/${form.id}/`;
    const serve = startIntake('serve');
    const base = await serve.url();
    const small = (n: number) => ({ name: `file${n}`, bytes: randomBytes(2048) });

    const first = await postFiles(base, form.id, [small(1)]);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const {
      rows: [file],
    } = await t.ctx.db.query<{ id: string; submission_id: string }>(
      'select id, submission_id from submission_files where form_id = $1',
      [form.id],
    );
    const apiDownload = () =>
      request(`${base}/v1/forms/${form.id}/submissions/${file!.submission_id}/files/${file!.id}`, {
        headers: bearer(owner.token),
      });
    const scope = { teamId: owner.teamId, formId: form.id, expires: Math.floor(Date.now() / 1000) + 3600 };
    const linkDownload = () => request(fileLink(base, t.ctx.keys.linkSigning, file!.id, scope));
    expect((await apiDownload()).status).toBe(302);
    expect((await linkDownload()).status).toBe(302);
    c.requests += 3;

    // Storage dies mid-post: the first file is stored, the second is cut off on its way (s3rver writes an
    // object's file as its bytes arrive, so the big one may already show, in part: its removal is queued too).
    let answered = false;
    const cut = postFiles(base, form.id, [small(1), { name: 'big', bytes: randomBytes(9 * 1024 * 1024) }]).finally(
      () => (answered = true),
    );
    await until('the first file of the post to be stored', async () => s3.keys(prefix).length >= 2, 10_000);
    expect(answered, 'the big upload had finished before storage was stopped').toBe(false);
    await s3.stop();
    c.faults += 1;
    expectUnavailable(await cut);
    c.requests += 1;
    for (let i = 0; i < 3; i++) {
      const upload = await postFiles(base, form.id, [small(1), small(2)]);
      expectUnavailable(upload);
      expectUnavailable(await apiDownload());
      expectUnavailable(await linkDownload());
      c.requests += 3;
    }
    // A post without files does not need storage: it is taken as usual.
    const plain = await postForm(base, form.id);
    expect(plain.status).toBe(201);
    c.requests += 1;
    expect(serve.child.exitCode).toBeNull();
    await s3.start();

    const again = await until('an upload to be taken again', async () => {
      c.requests += 1;
      const a = await postFiles(base, form.id, [small(3)]);
      return a.status === 201 && a;
    });
    // The object stored before the cut was left when storage went away; its removal was queued and runs
    // once storage is back. Its retry is made due now rather than in a minute, on this file's own database —
    // at every poll, since an attempt still running when storage came back fails and schedules another.
    const { rows: files } = await t.ctx.db.query<{ storage_key: string }>(
      'select storage_key from submission_files where form_id = $1',
      [form.id],
    );
    expect(files).toHaveLength(2);
    await until(
      'the orphan object to be removed',
      async () => {
        await t.ctx.db.query(
          `update pgboss.job set start_after = now() where name = 'delete-objects' and state in ('created', 'retry') and start_after > now()`,
        );
        return s3.keys(prefix).length === 2;
      },
      20_000,
    );
    expect(s3.keys(prefix).sort()).toEqual(files.map((f) => f.storage_key).sort());
    const download = await apiDownload();
    c.requests += 1;
    expect(download.status).toBe(302);
    expect((await fetch(download.location!)).status).toBe(200);
    // Nothing half-stored: three submissions (two with a file), a row for each object and an object for each row.
    const rows = await submissionRows(form.id);
    expect(rows.map((r) => r.id).sort()).toEqual([first.body.id, plain.body.id, again.body.id].sort());
    expect(s3.keys(prefix).sort()).toEqual(files.map((f) => f.storage_key).sort());
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toEqual([0, null]);
  });
});

describe('SIGTERM during load', { timeout: 90_000 }, () => {
  it('in-flight posts finish, every accepted post is stored, the process exits 0 within 30 s, and the job it held is done by the next worker', async () => {
    const c = count('sigterm under load');
    const openai = await startOpenAiTestServer();
    afterAll(() => openai.close());
    const marker = `held-${randomBytes(4).toString('hex')}`;
    // The model answers the marked submission after a minute: its job is held by the worker when SIGTERM comes.
    let slow = true;
    openai.reply = (req) => ({
      analysis: { score: 0.1, verdict: 'clean', reasons: [], category: 'support' },
      delayMs: slow && req.body.messages.some((m) => m.content.includes(marker)) ? 60_000 : 0,
    });
    const ai = { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: openai.baseUrl };
    const owner = await makeTeam(t, { plan: 'scale' });
    const form = await makePublishedForm(t, owner);
    // One client address posts everything here: the per-address limits are lifted for this load.
    const serve = startIntake('serve', {
      ...ai,
      INTAKE_INGEST_RATE_LIMIT: '1000000',
      INTAKE_INGEST_FLOOD_LIMIT: '1000000',
    });
    const base = await serve.url();

    const held = openai.nextRequest();
    const heldPost = await postForm(base, form.id, { ...CONTACT, message: `Where is my order? (${marker})` });
    expect(heldPost.status).toBe(201);
    await held;

    const accepted: string[] = [];
    const refused: string[] = [];
    const unexpected: string[] = [];
    let signalled = 0;
    const client = async () => {
      for (;;) {
        try {
          const a = await postForm(base, form.id);
          c.requests += 1;
          if (a.status === 201) accepted.push(a.body.id as string);
          else unexpected.push(`${a.status} ${JSON.stringify(a.body)}`);
        } catch (err) {
          c.requests += 1;
          // Refused or reset before an answer: the post was never taken (checked against the rows below).
          const code = (err as { cause?: { code?: string } }).cause?.code ?? String(err);
          if (!signalled) unexpected.push(`before SIGTERM: ${code}`);
          refused.push(code);
          if (code === 'ECONNREFUSED') return;
        }
      }
    };
    const clients = Array.from({ length: 16 }, () => client());
    await until('some load', async () => accepted.length >= 100);
    serve.child.kill('SIGTERM');
    signalled = Date.now();
    c.faults += 1;
    const [code, signal] = await serve.exited;
    const exitMs = Date.now() - signalled;
    await Promise.all(clients);

    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(exitMs).toBeLessThan(30_000);
    expect(unexpected).toEqual([]);
    expect(new Set(refused).size).toBeGreaterThan(0);
    // Nothing accepted is lost and nothing unacknowledged was kept.
    const rows = await submissionRows(form.id);
    expect(rows.map((r) => r.id).sort()).toEqual([heldPost.body.id as string, ...accepted].sort());
    c.lost += rows.length - 1 - accepted.length;

    // The job held at SIGTERM was given back, not left to expire; the next worker does it, and every other post.
    const { rows: heldJob } = await t.ctx.db.query<{ state: string }>(
      `select state::text from pgboss.job where name = 'process-submission' and data->>'submissionId' = $1`,
      [heldPost.body.id],
    );
    expect(heldJob).toEqual([{ state: 'retry' }]);
    slow = false;
    const next = startIntake('worker', ai);
    await until(
      'every post to be processed',
      async () => (await submissionRows(form.id)).every((r) => r.status === 'processed'),
      40_000,
    ).catch(async (err: Error) => {
      const { rows: left } = await t.ctx.db.query(
        `select s.status, j.state::text, j.retry_count, j.start_after::text, j.output::text, count(*)::int as n from submissions s left join pgboss.job j on j.data->>'submissionId' = s.id
          where s.form_id = $1 and s.status <> 'processed' group by 1, 2, 3, 4, 5`,
        [form.id],
      );
      const { rows: busy } = await t.ctx.db.query(
        `select application_name, state, xact_start::text, left(query, 200) as query from pg_stat_activity where datname = current_database() and state <> 'idle'`,
      );
      throw new Error(
        `${err.message}\nleft: ${JSON.stringify(left)}\nbusy sessions: ${JSON.stringify(busy)}\nworker output:\n${next.output().slice(-3000)}`,
      );
    });
    next.child.kill('SIGTERM');
    expect(await next.exited).toEqual([0, null]);
  });
});

describe('receivers that never answer, or drip a byte a second', { timeout: 60_000 }, () => {
  it('each attempt ends at the delivery timeout, a silent one is retried on the schedule, and another webhook is delivered meanwhile', async () => {
    const c = count('slow receivers');
    const TIMEOUT_MS = 2_000;
    const SCHEDULE = [0, 1, 1];
    const worker = startIntake('worker', {
      INTAKE_DELIVERY_TIMEOUT_MS: String(TIMEOUT_MS),
      INTAKE_DELIVERY_SCHEDULE: SCHEDULE.join(','),
      INTAKE_QUEUE_POLL_SECONDS: '0.5',
    });
    const hookedForm = hookedForms(t);
    const hooked = async (reply: () => Reply) => {
      const { owner, formId, webhookId, receiver } = await hookedForm(reply);
      const deliveries = async () => {
        const list = await t.http.get(`/v1/forms/${formId}/webhooks/${webhookId}/deliveries`).set(bearer(owner.token));
        return list.body.data as Array<{
          status: string;
          attempts: number;
          http_status: number | null;
          error: string | null;
          duration_ms: number | null;
        }>;
      };
      return { form: { id: formId }, receiver, deliveries };
    };
    const silent = await hooked(() => ({ hang: true }));
    const dripping = await hooked(() => ({ drip: { bytesPerSecond: 1 } }));
    const healthy = await hooked(() => ({ status: 204 }));

    expect((await t.http.post(`/f/${silent.form.id}`).type('form').send(CONTACT)).status).toBe(303);
    expect((await t.http.post(`/f/${dripping.form.id}`).type('form').send(CONTACT)).status).toBe(303);
    const [hung] = await silent.receiver.waitFor(1);
    await dripping.receiver.waitFor(1);
    // While both attempts are held open, another webhook's delivery goes out at once.
    expect((await t.http.post(`/f/${healthy.form.id}`).type('form').send(CONTACT)).status).toBe(303);
    const [prompt] = await healthy.receiver.waitFor(1);
    expect(prompt!.receivedAt - hung!.receivedAt).toBeLessThan(TIMEOUT_MS);
    c.requests += 3;

    // The silent receiver: each attempt is cut at the timeout (error timeout, no status), retried on the schedule, then dead.
    const attempts = await silent.receiver.waitFor(SCHEDULE.length, 30_000);
    for (let i = 1; i < attempts.length; i++) {
      expect(attempts[i]!.receivedAt - attempts[i - 1]!.receivedAt).toBeGreaterThanOrEqual(
        TIMEOUT_MS + SCHEDULE[i]! * 1000 * 0.8 - 50,
      );
    }
    const [dead] = await until("the silent receiver's delivery to be dead", async () => {
      const ds = await silent.deliveries();
      return ds[0]?.status === 'dead' && ds;
    });
    expect(dead).toMatchObject({ status: 'dead', attempts: SCHEDULE.length, http_status: null, error: 'timeout' });
    expect(dead!.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(dead!.duration_ms).toBeLessThan(TIMEOUT_MS + 1_000);
    // The dripping receiver answered 200 at once; its body is cut at the timeout and the status stands
    // (docs/webhooks.md): one attempt, ended at the timeout rather than after 4 KB at a byte a second.
    const [dripped] = await until("the dripping receiver's attempt to be recorded", async () => {
      const ds = await dripping.deliveries();
      return (ds[0]?.attempts ?? 0) >= 1 && ds;
    });
    expect(dripped).toMatchObject({ status: 'succeeded', attempts: 1, http_status: 200, error: null });
    expect(dripped!.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(dripped!.duration_ms).toBeLessThan(TIMEOUT_MS + 1_000);
    expect(dripping.receiver.requests).toHaveLength(1);
    expect(healthy.receiver.requests).toHaveLength(1);
    expect(await healthy.deliveries()).toMatchObject([{ status: 'succeeded', attempts: 1, http_status: 204 }]);
    c.faults += SCHEDULE.length + 1;
    c.requests +=
      silent.receiver.requests.length + dripping.receiver.requests.length + healthy.receiver.requests.length;
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toEqual([0, null]);
  });
});

describe('a worker SIGKILLed mid-bulk-replay, with deliveries in flight', { timeout: 90_000 }, () => {
  /**
   * What pg-boss does when a dead worker's claims expire (minutes), made quick on this file's own database:
   * the active jobs of the queue get a 1-second expiry, then pg-boss's own supervision pass retries them.
   */
  async function lapseClaims(queue: string): Promise<void> {
    await t.ctx.db.query(
      `update pgboss.job set expire_seconds = 1, retry_delay = 0 where name = $1 and state = 'active'`,
      [queue],
    );
    await new Promise((r) => setTimeout(r, 1100));
    await until(`the claims of ${queue} to lapse`, async () => {
      await t.ctx.db.query('update pgboss.queue set monitor_claim_on = null, monitor_on = null where name = $1', [
        queue,
      ]);
      await t.ctx.queue.boss.supervise(queue);
      const { rowCount } = await t.ctx.db.query(`select 1 from pgboss.job where name = $1 and state = 'active'`, [
        queue,
      ]);
      return rowCount === 0;
    });
  }

  it('the replay resumes in a new worker: every delivery sent, none twice unless its attempt was in flight at the kill', async () => {
    const c = count('worker killed mid-replay');
    const N = 800;
    const receiver = await startHttpsReceiver({ reply: () => ({ delayMs: 150, reply: { status: 200 } }) });
    afterAll(() => receiver.close());
    const owner = await makeTeam(t, { plan: 'scale' });
    const form = await makePublishedForm(t, owner);
    const hook = await t.http
      .post(`/v1/forms/${form.id}/webhooks`)
      .set(bearer(owner.token))
      .send({ label: 'Replayed', url: `${receiver.localhostUrl}/hook` });
    expect(hook.status, hook.text).toBe(201);
    const webhookId = hook.body.data.id as string;
    // Dead deliveries to replay, as the engine leaves them.
    await t.ctx.db.query(
      `insert into deliveries (id, team_id, webhook_id, event, submission_id, request_body, status, attempts, created_at)
       select 'whd_' || lpad(to_hex(g), 26, '0'), $1, $2, 'submission.created', 'subm_' || lpad(to_hex(g), 26, '0'),
              json_build_object('n', g)::text, 'dead', 7, now() - interval '1 hour'
         from generate_series(1, $3::int) g`,
      [owner.teamId, webhookId, N],
    );
    const queued = await t.http
      .post(`/v1/webhooks/${webhookId}/replay`)
      .set(bearer(owner.token))
      .send({ status: 'dead' });
    expect(queued.status, queued.text).toBe(202);
    const jobId = queued.body.job_id as string;
    const replays = async () =>
      (
        await t.ctx.db.query<{ id: string; status: string; attempts: number }>(
          'select id, status, attempts from deliveries where replay_job_id = $1',
          [jobId],
        )
      ).rows;

    // Unpaced (INTAKE_REPLAY_TEAM_RATE): this case is about the kill, test/webhooks/replay-pace.test.ts about the pace.
    const env = {
      INTAKE_QUEUE_POLL_SECONDS: '0.5',
      INTAKE_DELIVERY_SCHEDULE: '0,1',
      INTAKE_REPLAY_TEAM_RATE: '100000',
    };
    const first = startIntake('worker', env);
    await until('deliveries to be in flight', async () => receiver.requests.length >= 100);
    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual([null, 'SIGKILL']);
    c.faults += 1;
    const atKill = await replays();
    const recorded = new Set(atKill.filter((d) => d.status === 'succeeded').map((d) => d.id));
    const sentBeforeKill = new Set(receiver.requests.map((r) => r.headers['webhook-id']));

    await lapseClaims('replay-webhook');
    await lapseClaims('deliver-webhook');
    const second = startIntake('worker', env);
    const done = await until(
      'the replay to finish and every delivery to succeed',
      async () => {
        const job = (await t.http.get(`/v1/jobs/${jobId}`).set(bearer(owner.token))).body.data as { status: string };
        const rows = await replays();
        return (
          job.status === 'succeeded' &&
          rows.length === N &&
          rows.every((d) => d.status === 'succeeded') && { job, rows }
        );
      },
      60_000,
    );
    expect(done.job).toMatchObject({ status: 'succeeded', total: N, done: N, failed: 0 });
    expect(done.rows.every((d) => d.attempts === 1)).toBe(true);
    const {
      rows: [originals],
    } = await t.ctx.db.query<{ n: number }>(
      'select count(distinct replay_of)::int as n from deliveries where replay_job_id = $1',
      [jobId],
    );
    expect(originals!.n).toBe(N);

    // Requests per delivery at the receiver.
    await new Promise((r) => setTimeout(r, 500));
    const per = new Map<string, number>();
    for (const r of receiver.requests) per.set(r.headers['webhook-id']!, (per.get(r.headers['webhook-id']!) ?? 0) + 1);
    const ids = done.rows.map((d) => d.id);
    const lost = ids.filter((id) => !per.has(id));
    c.lost += lost.length;
    expect(lost).toEqual([]);
    expect([...per.keys()].filter((id) => !ids.includes(id))).toEqual([]);
    // At least once, and twice only where the attempt was sent but not yet recorded when the worker died.
    const twice = ids.filter((id) => per.get(id)! > 1);
    expect(ids.filter((id) => per.get(id)! > 2)).toEqual([]);
    expect(twice.filter((id) => recorded.has(id) || !sentBeforeKill.has(id))).toEqual([]);
    expect(recorded.size).toBeGreaterThan(0);
    c.requests += receiver.requests.length + 2;
    console.log(
      `mid-replay kill: ${N} replays, ${recorded.size} recorded at the kill, ${sentBeforeKill.size} sent by then, ${twice.length} sent twice (in flight at the kill)`,
    );
    second.child.kill('SIGTERM');
    expect(await second.exited).toEqual([0, null]);
  });
});
