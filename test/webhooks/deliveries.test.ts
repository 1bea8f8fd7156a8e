import fs from 'node:fs';
import path from 'node:path';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../sdk/webhooks.ts';
import { maintainDeliveries } from '../../server/domain/delivery/maintenance.ts';
import * as jobs from '../../server/infra/queue/definitions.ts';
import { newId } from '../../server/domain/shared/ids.ts';
import { bearer } from '../support/harness.ts';
import { bigBody, redirectReply, type HttpsReceiver } from '../support/https-receiver.ts';
import { deadDeliverySeeder } from '../support/dead-deliveries.ts';
import { hookedForms, type HookedForm } from '../support/hooked-forms.ts';
import { postForm, startProcessingApp } from '../support/processing.ts';
import { eventually as waitUntil, workerProcesses, type WorkerProcess } from '../support/worker-process.ts';

// The API and ingest run here; deliveries go out from real `intake worker` processes, which alone trust the
// receivers' self-signed certificate (NODE_EXTRA_CA_CERTS, appended to the machine's bundle).
const t = await startProcessingApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' }, { worker: false });
/** Short schedule: 7 attempts; the third slot is longer so a Retry-After between them can be seen. */
const SCHEDULE = [0, 0.3, 1.5, 0.3, 0.3, 0.3, 0.3];

const workers = workerProcesses({
  databaseUrl: t.databaseUrl,
  dataDir: t.dataDir,
  // The team's replay pace is tested in replay-pace.test.ts; here 1,500 replays must not take 75 s.
  env: {
    INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true',
    INTAKE_DELIVERY_SCHEDULE: SCHEDULE.join(','),
    INTAKE_DELIVERY_TIMEOUT_MS: '1500',
    INTAKE_REPLAY_TEAM_RATE: '100000',
  },
});
const startWorker = (env: Record<string, string> = {}) => workers.start(env);
const kill = (w: WorkerProcess) => w.kill();

let worker = startWorker();

function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  return waitUntil(fn, ok, timeoutMs, () => `worker output:\n${worker.output()}`);
}

/**
 * What pg-boss does when a dead worker's claims expire (the queues' expiry is minutes), made quick: the
 * killed worker's active jobs are given a 1-second expiry on this file's private database (pg-boss's own
 * tables), then pg-boss's own supervision pass puts them back for a retry.
 */
async function lapseClaims(queue: string): Promise<void> {
  const { rows } = await t.ctx.db.query<{ id: string }>(
    `update pgboss.job set expire_seconds = 1, retry_delay = 0 where name = $1 and state = 'active' returning id::text`,
    [queue],
  );
  const held = rows.map((r) => r.id);
  await new Promise((r) => setTimeout(r, 1100));
  // pg-boss supervises a queue at most once a monitor interval (a minute), and the killed worker's own
  // supervisor may just have done so: clear that mark, then run the pass until the claims are released.
  await eventually(
    async () => {
      await t.ctx.db.query('update pgboss.queue set monitor_claim_on = null, monitor_on = null where name = $1', [
        queue,
      ]);
      await t.ctx.queue.boss.supervise(queue);
      const { rows: left } = await t.ctx.db.query(
        `select id::text, state::text, started_on::text, expire_seconds, now()::text as now from pgboss.job where id = any($1::uuid[]) and state = 'active'`,
        [held],
      );
      return left;
    },
    (left) => left.length === 0,
  );
}

/** Waits for `count` requests; a timeout also shows the unfinished attempt jobs and the worker's output. */
async function arrived(receiver: HttpsReceiver, count: number, timeoutMs: number) {
  try {
    return await receiver.waitFor(count, timeoutMs);
  } catch (err) {
    const { rows } = await t.ctx.db.query(
      `select state::text, retry_count, count(*)::int as n from pgboss.job where name = $1 and state < 'completed' group by 1, 2`,
      [jobs.deliverWebhook.name],
    );
    throw new Error(
      `${(err as Error).message}\nunfinished attempt jobs: ${JSON.stringify(rows)}\nworker output:\n${worker.output()}`,
      { cause: err },
    );
  }
}

type Hook = HookedForm;
const hookedForm = hookedForms(t);

const seedDead = deadDeliverySeeder(t, 'dl');
/** `n` dead deliveries of the webhook (test/support/dead-deliveries.ts), answering their ids. */
const deadDeliveries = (
  h: { owner: { teamId: string }; webhookId: string },
  n: number,
  opts?: { ago?: string; submissionsOf?: string[] },
) => seedDead(h.owner.teamId, h.webhookId, n, opts);

const CONTACT = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  message: 'Could you send me a quote for twenty units?',
};

async function deliveriesOf(h: Hook) {
  const res = await t.http
    .get(`/v1/forms/${h.formId}/webhooks/${h.webhookId}/deliveries?per_page=100`)
    .set(bearer(h.owner.token));
  expect(res.status, res.text).toBe(200);
  return res.body.data as Array<Record<string, unknown> & { id: string; status: string; attempts: number }>;
}

/** The messages in the mail folder (the mailer's transport without SMTP) that contain `text`. */
async function mailWith(text: string): Promise<string[]> {
  const dir = path.join(t.dataDir, 'mail');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    .filter((m) => m.includes(text));
}

const settled = (ds: Array<{ status: string }>) =>
  ds.length > 0 && ds.every((d) => d.status === 'succeeded' || d.status === 'dead');

describe('webhook deliveries', { timeout: 60_000 }, () => {
  it('delivers a processed submission once, signed (Standard Webhooks and X-Service headers), and logs the attempt', async () => {
    const h = await hookedForm();
    const submissionId = await postForm(t, h.endpoint, CONTACT);
    const [req] = await h.receiver.waitFor(1);
    expect(req!.method).toBe('POST');
    expect(req!.path).toBe('/hooks/intake');
    expect(req!.headers['content-type']).toBe('application/json');
    const event = JSON.parse(req!.body);
    expect(event).toMatchObject({
      type: 'submission.created',
      submission_id: submissionId,
      form_id: h.formId,
      form_name: 'Contact',
      payload: CONTACT,
      files: [],
    });
    expect(Object.keys(event)).toEqual([
      'type',
      'submission_id',
      'form_id',
      'form_name',
      'received_at',
      'payload',
      'files',
      'meta',
      'tags',
      'stage',
      'assignee',
    ]);
    // Verified with the Standard Webhooks library and the SDK, from the secret shown at creation.
    expect(new StandardWebhook(h.secret).verify(req!.body, req!.headers)).toEqual(event);
    expect(verifyWebhook(h.secret, req!.headers, req!.body)).toEqual(event);
    expect(() => verifyWebhook(h.secret, req!.headers, req!.body.replace('Ada', 'Eve'))).toThrow();
    expect(Math.abs(Number(req!.headers['x-service-timestamp']) - Date.now() / 1000)).toBeLessThan(10);

    const [d] = await eventually(() => deliveriesOf(h), settled);
    expect(d).toMatchObject({
      id: req!.headers['webhook-id'],
      status: 'succeeded',
      attempts: 1,
      http_status: 200,
      submission_id: submissionId,
      event: 'submission.created',
      request_body: event,
      response_body: '{"ok":true}',
      error: null,
      next_attempt_at: null,
      replay_of: null,
    });
    expect(d!.delivered_at).toEqual(expect.any(String));
    expect(d!.duration_ms).toEqual(expect.any(Number));
    await new Promise((r) => setTimeout(r, 500));
    expect(h.receiver.requests).toHaveLength(1);
  });

  it('retries a failing receiver on the schedule and gives up after exactly 7 requests (dead)', async () => {
    const h = await hookedForm(() => ({ status: 500, body: 'boom' }));
    await postForm(t, h.endpoint, CONTACT);
    const reqs = await h.receiver.waitFor(7, 30_000);
    const [d] = await eventually(() => deliveriesOf(h), settled);
    expect(d).toMatchObject({
      status: 'dead',
      attempts: 7,
      http_status: 500,
      response_body: 'boom',
      next_attempt_at: null,
    });
    for (let i = 1; i < 7; i += 1) {
      const gap = (reqs[i]!.receivedAt - reqs[i - 1]!.receivedAt) / 1000;
      expect(gap, `gap before attempt ${i + 1}`).toBeGreaterThanOrEqual(SCHEDULE[i]! * 0.8 - 0.05);
    }
    // Each attempt is signed anew: the same delivery id, a fresh timestamp.
    expect(new Set(reqs.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(reqs.map((r) => r.body)).size).toBe(1);
    await new Promise((r) => setTimeout(r, 1000));
    expect(h.receiver.requests).toHaveLength(7);
  });

  it('succeeds on a later attempt, and waits as long as a Retry-After asks (up to the next slot)', async () => {
    const h = await hookedForm((req) =>
      req.n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : req.n === 2 ? { status: 503 } : { status: 204 },
    );
    await postForm(t, h.endpoint, CONTACT);
    const reqs = await h.receiver.waitFor(3);
    expect(reqs[1]!.receivedAt - reqs[0]!.receivedAt).toBeGreaterThanOrEqual(950);
    const [d] = await eventually(() => deliveriesOf(h), settled);
    // The 429 paused the webhook for its Retry-After without spending an attempt (docs/webhooks.md, 429).
    expect(d).toMatchObject({ status: 'succeeded', attempts: 2, http_status: 204 });
  });

  it('a 410 deactivates the webhook at once and tells the owners by e-mail', async () => {
    const h = await hookedForm(() => ({ status: 410 }));
    await postForm(t, h.endpoint, CONTACT);
    const [d] = await eventually(() => deliveriesOf(h), settled);
    expect(d).toMatchObject({ status: 'dead', attempts: 1, http_status: 410 });
    const shown = await t.http.get(`/v1/forms/${h.formId}/webhooks/${h.webhookId}`).set(bearer(h.owner.token));
    expect(shown.body.data).toMatchObject({ active: false, deactivated_reason: 'gone' });
    const mail = await eventually(
      () => mailWith('Subject: Webhook deactivated: Receiver'),
      (m) => m.length === 1,
    );
    expect(mail[0]).toMatch(/Subject: Webhook deactivated: Receiver/);
    // An inactive webhook gets no new deliveries.
    await postForm(t, h.endpoint, CONTACT);
    await new Promise((r) => setTimeout(r, 1500));
    expect(h.receiver.requests).toHaveLength(1);
    expect(await deliveriesOf(h)).toHaveLength(1);
  });

  it('records timeouts, redirects (not followed) and 4 KB of a long answer cut on a character boundary', async () => {
    const big = bigBody(10_240);
    const h = await hookedForm((req) =>
      req.n === 1
        ? { hang: true }
        : req.n === 2
          ? redirectReply('https://127.0.0.1:1/elsewhere')
          : { status: 200, body: big },
    );
    await postForm(t, h.endpoint, CONTACT);
    await h.receiver.waitFor(3);
    const [d] = await eventually(() => deliveriesOf(h), settled);
    expect(d).toMatchObject({ status: 'succeeded', attempts: 3, http_status: 200, error: null });
    const body = d!.response_body as string;
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(4096);
    expect(Buffer.byteLength(body)).toBeGreaterThan(4090);
    expect(big.startsWith(body)).toBe(true);
    expect(h.receiver.requests.every((r) => r.path === '/hooks/intake')).toBe(true);
    // The intermediate outcomes, as the log held them, are checked through a failing receiver of their own.
    const timeouts = await hookedForm(() => ({ hang: true }));
    await postForm(t, timeouts.endpoint, CONTACT);
    await timeouts.receiver.waitFor(2, 20_000);
    const [late] = await eventually(
      () => deliveriesOf(timeouts),
      (ds) => (ds[0]?.attempts ?? 0) >= 1,
    );
    expect(late).toMatchObject({ status: 'failed', http_status: null, error: 'timeout' });
    const redirects = await hookedForm(() => redirectReply('https://127.0.0.1:1/elsewhere'));
    await postForm(t, redirects.endpoint, CONTACT);
    const [moved] = await eventually(
      () => deliveriesOf(redirects),
      (ds) => (ds[0]?.attempts ?? 0) >= 1,
    );
    expect(moved).toMatchObject({ status: 'failed', http_status: 302, error: null });
  });

  it('replays one delivery: a new row with the same body bytes, a new id and signature, the original untouched', async () => {
    const h = await hookedForm();
    await postForm(t, h.endpoint, CONTACT);
    const [first] = await h.receiver.waitFor(1);
    const [original] = await eventually(() => deliveriesOf(h), settled);

    const byPath = await t.http
      .post(`/v1/forms/${h.formId}/webhooks/${h.webhookId}/deliveries/${original!.id}/replay`)
      .set(bearer(h.owner.token));
    expect(byPath.status, byPath.text).toBe(200);
    expect(byPath.body).toEqual({ ok: true, delivery_id: expect.stringMatching(/^whd_/) });
    const byId = await t.http.post(`/v1/deliveries/${original!.id}/replay`).set(bearer(h.owner.token));
    expect(byId.status, byId.text).toBe(202);
    expect(byId.body).toEqual({ delivery_id: expect.stringMatching(/^whd_/), status: 'queued' });

    const reqs = await h.receiver.waitFor(3);
    for (const r of reqs.slice(1)) {
      expect(r.body).toBe(first!.body);
      expect(r.headers['webhook-id']).not.toBe(first!.headers['webhook-id']);
      expect(r.headers['webhook-signature']).not.toBe(first!.headers['webhook-signature']);
      expect(verifyWebhook(h.secret, r.headers, r.body)).toEqual(JSON.parse(first!.body));
    }
    const all = await eventually(
      () => deliveriesOf(h),
      (ds) => ds.length === 3 && settled(ds),
    );
    const replays = all.filter((d) => d.replay_of === original!.id);
    expect(replays.map((d) => d.id).sort()).toEqual([byPath.body.delivery_id, byId.body.delivery_id].sort());
    expect(replays.every((d) => d.attempts === 1 && d.submission_id === original!.submission_id)).toBe(true);
    expect(all.find((d) => d.id === original!.id)).toEqual(original);
  });

  it('a rotated secret: both the new and the old secret verify for 24 hours', async () => {
    const h = await hookedForm();
    const rotated = await t.http
      .put(`/v1/forms/${h.formId}/webhooks/${h.webhookId}`)
      .set(bearer(h.owner.token))
      .send({ rotate_secret: true });
    await postForm(t, h.endpoint, CONTACT);
    const [req] = await h.receiver.waitFor(1);
    expect(req!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verifyWebhook(rotated.body.secret, req!.headers, req!.body)).toBeTruthy();
    expect(verifyWebhook(h.secret, req!.headers, req!.body)).toBeTruthy();
    expect(new StandardWebhook(h.secret).verify(req!.body, req!.headers)).toBeTruthy();
  });

  it('deleting the submission redacts its deliveries; replaying one then answers 409 submission_deleted', async () => {
    const h = await hookedForm();
    const id = await postForm(t, h.endpoint, CONTACT);
    await h.receiver.waitFor(1);
    const [d] = await eventually(() => deliveriesOf(h), settled);
    expect((await t.http.delete(`/v1/forms/${h.formId}/submissions/${id}`).set(bearer(h.owner.token))).status).toBe(
      200,
    );
    const [redacted] = await deliveriesOf(h);
    expect(redacted).toMatchObject({
      id: d!.id,
      status: 'succeeded',
      request_body: null,
      response_body: null,
      submission_id: id,
    });
    const replay = await t.http.post(`/v1/deliveries/${d!.id}/replay`).set(bearer(h.owner.token));
    expect(replay.status).toBe(409);
    expect(replay.body.error).toBe('submission_deleted');
  });

  it('a worker killed while a delivery is in flight: after restart the delivery completes, logged once', async () => {
    const h = await hookedForm((req) => (req.n === 1 ? { hang: true } : { status: 200 }));
    await postForm(t, h.endpoint, CONTACT);
    await h.receiver.waitFor(1);
    await kill(worker);
    await lapseClaims(jobs.deliverWebhook.name);
    worker = startWorker();
    await arrived(h.receiver, 2, 30_000);
    const ds = await eventually(() => deliveriesOf(h), settled, 30_000);
    expect(ds).toHaveLength(1);
    expect(ds[0]).toMatchObject({ status: 'succeeded', attempts: 1, http_status: 200 });
    expect(new Set(h.receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
  });

  it(
    'bulk replay runs in the background, survives a worker killed half-way, and replays each delivery once',
    { timeout: 150_000 },
    async () => {
      const h = await hookedForm();
      const N = 1500;
      // Dead deliveries to replay, written as the engine leaves them.
      await deadDeliveries(h, N);
      await kill(worker);
      const queued = await t.http
        .post(`/v1/webhooks/${h.webhookId}/replay`)
        .set(bearer(h.owner.token))
        .send({ status: 'dead' });
      expect(queued.status, queued.text).toBe(202);
      const jobId = queued.body.job_id as string;
      const progress = async () => (await t.http.get(`/v1/jobs/${jobId}`).set(bearer(h.owner.token))).body.data;
      expect(await progress()).toMatchObject({ status: 'queued', total: N, done: 0 });

      worker = startWorker();
      const half = await eventually(progress, (j) => j.done > 0, 30_000);
      await kill(worker);
      const atKill = half.done as number;
      await lapseClaims(jobs.replayWebhook.name);
      await lapseClaims(jobs.deliverWebhook.name);
      worker = startWorker();

      const done = await eventually(progress, (j) => j.status === 'succeeded', 60_000);
      expect(done).toMatchObject({ total: N, done: N, failed: 0, errors: [] });
      expect(atKill).toBeGreaterThan(0);
      const { rows } = await t.ctx.db.query<{ n: number; originals: number }>(
        'select count(*)::int as n, count(distinct replay_of)::int as originals from deliveries where replay_job_id = $1',
        [jobId],
      );
      expect(rows[0]).toEqual({ n: N, originals: N });
      await arrived(h.receiver, N, 60_000);
      // N requests may hold a repeat (below) while the last distinct one is still on its way.
      const distinct = () => new Set(h.receiver.requests.map((r) => r.headers['webhook-id']));
      const received = await eventually(
        async () => distinct(),
        (ids) => ids.size >= N,
        60_000,
      );
      expect(received.size).toBe(N);
      // At least once: an attempt in flight when the worker died may arrive again (same webhook-id, for receivers to dedupe).
      expect(h.receiver.requests.length - N).toBeLessThanOrEqual(50);
    },
  );

  it(
    'a bulk replay replays the deliveries it counted when asked for, whatever deliveries come after',
    { timeout: 60_000 },
    async () => {
      const h = await hookedForm();
      const N = 20;
      const counted = await deadDeliveries(h, N);
      await kill(worker);
      const queued = await t.http
        .post(`/v1/webhooks/${h.webhookId}/replay`)
        .set(bearer(h.owner.token))
        .send({ status: 'dead' });
      expect(queued.status, queued.text).toBe(202);
      const jobId = queued.body.job_id as string;
      // After the job was asked for, every submission gets a newer delivery (as another replay's would be).
      await deadDeliveries(h, N, { ago: '0 s', submissionsOf: counted });
      worker = startWorker();
      const done = await eventually(
        async () => (await t.http.get(`/v1/jobs/${jobId}`).set(bearer(h.owner.token))).body.data,
        (j) => j.status === 'succeeded',
        30_000,
      );
      expect(done).toMatchObject({ total: N, done: N, failed: 0 });
      const { rows } = await t.ctx.db.query<{ replay_of: string }>(
        'select replay_of from deliveries where replay_job_id = $1 order by replay_of',
        [jobId],
      );
      expect(rows.map((r) => r.replay_of)).toEqual([...counted].sort());
    },
  );

  it('lists deliveries newest first, filtered by status and submission, a page at a time on the cursor', async () => {
    const h = await hookedForm((req) => (req.n === 1 ? { status: 410 } : { status: 200 }));
    const first = await postForm(t, h.endpoint, CONTACT);
    await eventually(() => deliveriesOf(h), settled);
    // The 410 deactivated the webhook: switch it back on for the second submission.
    expect(
      (
        await t.http
          .put(`/v1/forms/${h.formId}/webhooks/${h.webhookId}`)
          .set(bearer(h.owner.token))
          .send({ active: true })
      ).status,
    ).toBe(200);
    const second = await postForm(t, h.endpoint, CONTACT);
    const all = await eventually(
      () => deliveriesOf(h),
      (ds) => ds.length === 2 && settled(ds),
    );
    expect(all.map((d) => [d.submission_id, d.status])).toEqual([
      [second, 'succeeded'],
      [first, 'dead'],
    ]);
    const list = async (query: string) => {
      const res = await t.http
        .get(`/v1/forms/${h.formId}/webhooks/${h.webhookId}/deliveries?${query}`)
        .set(bearer(h.owner.token));
      expect(res.status, res.text).toBe(200);
      return res.body as { data: Array<{ id: string }>; meta: { next_cursor: string | null } };
    };
    expect((await list('status=dead')).data.map((d) => d.id)).toEqual([all[1]!.id]);
    expect((await list(`submission_id=${second}`)).data.map((d) => d.id)).toEqual([all[0]!.id]);
    const page1 = await list('per_page=1');
    expect(page1.data.map((d) => d.id)).toEqual([all[0]!.id]);
    expect(page1.meta.next_cursor).toBe(all[0]!.id);
    const page2 = await list(`per_page=1&cursor=${page1.meta.next_cursor}`);
    expect(page2).toMatchObject({ data: [{ id: all[1]!.id }], meta: { next_cursor: null } });
    expect(
      (
        await t.http
          .get(`/v1/forms/${h.formId}/webhooks/${h.webhookId}/deliveries?status=lost`)
          .set(bearer(h.owner.token))
      ).status,
    ).toBe(400);
  });

  it('a webhook whose deliveries have failed for 5 days is deactivated, its retries stop and the owners are e-mailed', async () => {
    const h = await hookedForm(() => ({ status: 503 }), { label: 'Failing for days' });
    await postForm(t, h.endpoint, CONTACT);
    await h.receiver.waitFor(1);
    // The first failure started the clock; move its start back past the 5 days.
    await eventually(
      async () =>
        (
          await t.ctx.db.query<{ n: number }>(
            'select count(*)::int as n from webhooks where id = $1 and failing_since is not null',
            [h.webhookId],
          )
        ).rows[0]!.n,
      (n) => n === 1,
    );
    await t.ctx.db.query(`update webhooks set failing_since = now() - interval '5 days 1 minute' where id = $1`, [
      h.webhookId,
    ]);
    const shown = await eventually(
      async () =>
        (await t.http.get(`/v1/forms/${h.formId}/webhooks/${h.webhookId}`).set(bearer(h.owner.token))).body.data,
      (w) => w.active === false,
    );
    expect(shown.deactivated_reason).toBe('failing');
    const [d] = await eventually(() => deliveriesOf(h), settled);
    expect(d).toMatchObject({ status: 'dead', next_attempt_at: null });
    expect(['webhook_inactive', null]).toContain(d!.error);
    const sent = h.receiver.requests.length;
    expect(sent).toBeLessThan(SCHEDULE.length);
    const mail = await eventually(
      () => mailWith('Subject: Webhook deactivated: Failing for days'),
      (m) => m.length === 1,
    );
    // Quoted-printable soft line breaks joined again.
    expect(mail[0]!.replaceAll(/=\r?\n/g, '')).toContain('every delivery attempt has failed for 5 days');
    await new Promise((r) => setTimeout(r, 1000));
    expect(h.receiver.requests).toHaveLength(sent);
  });

  it('deactivating a webhook stops its queued retries (dead, webhook_inactive) without another request', async () => {
    // The 503 asks for 5 s; the retry waits up to the next slot (1.5 s): time to deactivate the webhook.
    // (Deleting one does not stop them: test/webhooks/events.test.ts.)
    const h = await hookedForm(() => ({ status: 503, headers: { 'retry-after': '5' } }));
    await postForm(t, h.endpoint, CONTACT);
    await h.receiver.waitFor(1);
    await eventually(
      () => deliveriesOf(h),
      (ds) => ds[0]?.status === 'failed',
    );
    expect(
      (
        await t.http
          .put(`/v1/forms/${h.formId}/webhooks/${h.webhookId}`)
          .set(bearer(h.owner.token))
          .send({ active: false })
      ).status,
    ).toBe(200);
    const row = await eventually(
      async () =>
        (
          await t.ctx.db.query<{ status: string; error: string | null; attempts: number }>(
            'select status, error, attempts from deliveries where webhook_id = $1',
            [h.webhookId],
          )
        ).rows[0]!,
      (r) => r.status === 'dead',
    );
    expect(row).toEqual({ status: 'dead', error: 'webhook_inactive', attempts: 1 });
    expect(h.receiver.requests).toHaveLength(1);
  });

  it('a spam submission marked not spam is delivered once it is processed', async () => {
    const h = await hookedForm();
    const id = await postForm(t, h.endpoint, { ...CONTACT, _gotcha: 'I am a bot' });
    await new Promise((r) => setTimeout(r, 1000));
    expect(h.receiver.requests).toHaveLength(0);
    const bulk = await t.http
      .post(`/v1/forms/${h.formId}/submissions/bulk`)
      .set(bearer(h.owner.token))
      .send({ ids: [id], action: 'mark_not_spam' });
    expect(bulk.body).toMatchObject({ affected: 1 });
    const [req] = await h.receiver.waitFor(1);
    expect(JSON.parse(req!.body)).toMatchObject({ submission_id: id, payload: CONTACT });
  });

  it('checks every address again at connect time: a private one is refused (blocked_address) unless private webhooks are allowed', async () => {
    const h = await hookedForm();
    await kill(worker);
    const strict = startWorker({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'false' });
    try {
      await postForm(t, h.endpoint, CONTACT);
      const [d] = await eventually(
        () => deliveriesOf(h),
        (ds) => (ds[0]?.attempts ?? 0) >= 1,
      );
      expect(d).toMatchObject({ status: 'failed', http_status: null, error: 'blocked_address' });
      expect(h.receiver.requests).toHaveLength(0);
    } finally {
      await kill(strict);
      worker = startWorker();
    }
    // The retry, from a worker that allows them, goes through.
    await h.receiver.waitFor(1);
    await eventually(() => deliveriesOf(h), settled);
  });

  it('an attempt job fetched before its delivery row is visible is made once the row is there; an old one is skipped', async () => {
    // On Citus a job (a coordinator table) commits before the delivery's shard row (two-phase commit).
    const h = await hookedForm();
    const queue = (deliveryId: string) =>
      t.ctx.db.transaction((tx) =>
        t.ctx.queue.insert(jobs.deliverWebhook, [{ data: { deliveryId, attempt: 1, teamId: h.owner.teamId } }], {
          tx,
        }),
      );
    const jobsOf = async (deliveryId: string) =>
      (
        await t.ctx.db.query<{ state: string }>(
          `select state::text from pgboss.job where name = $1 and data->>'deliveryId' = $2 order by created_on`,
          [jobs.deliverWebhook.name, deliveryId],
        )
      ).rows.map((j) => j.state);
    const late = newId('whd');
    const gone = 'whd_01h00000000000000000000000';
    await queue(late);
    await queue(gone);
    // The new delivery's attempt is queued again while its row is not found; the old one's job just settles.
    await eventually(
      () => jobsOf(late),
      (states) => states.length >= 2,
    );
    await eventually(
      () => jobsOf(gone),
      (states) => states.join() === 'completed',
    );
    await t.ctx.db.query(
      `insert into deliveries (id, team_id, webhook_id, event, request_body, status, attempts, next_attempt_at)
       values ($1, $2, $3, 'submission.created', '{"late":true}', 'pending', 0, now())`,
      [late, h.owner.teamId, h.webhookId],
    );
    const [req] = await arrived(h.receiver, 1, 10_000);
    expect(req!.headers['webhook-id']).toBe(late);
    expect(await eventually(() => deliveriesOf(h), settled)).toMatchObject([
      { id: late, status: 'succeeded', attempts: 1 },
    ]);
    expect(await jobsOf(gone)).toEqual(['completed']);
    await new Promise((r) => setTimeout(r, 500));
    expect(h.receiver.requests).toHaveLength(1);
  });

  it('maintenance requeues a delivery whose job was lost and prunes settled deliveries past the retention window', async () => {
    const h = await hookedForm();
    await t.ctx.db.query(
      `insert into deliveries (id, team_id, webhook_id, event, submission_id, request_body, status, attempts, next_attempt_at, created_at) values
         ('whd_lost0000000000000000000000', $1, $2, 'submission.created', null, '{"lost":true}', 'failed', 2, now() - interval '20 minutes', now() - interval '1 hour'),
         ('whd_old00000000000000000000000', $1, $2, 'submission.created', null, '{"old":true}', 'succeeded', 1, null, now() - interval '31 days'),
         ('whd_oldpending0000000000000000', $1, $2, 'submission.created', null, '{"pending":true}', 'pending', 0, now() + interval '1 hour', now() - interval '31 days')`,
      [h.owner.teamId, h.webhookId],
    );
    const done = await maintainDeliveries(t.ctx);
    expect(done.requeued).toBeGreaterThanOrEqual(1);
    expect(done.pruned).toBeGreaterThanOrEqual(1);
    const [req] = await h.receiver.waitFor(1);
    expect(req!.body).toBe('{"lost":true}');
    const ds = await eventually(
      () => deliveriesOf(h),
      (list) => list.some((d) => d.id === 'whd_lost0000000000000000000000' && d.status === 'succeeded'),
    );
    expect(ds.find((d) => d.id === 'whd_lost0000000000000000000000')).toMatchObject({ attempts: 3 });
    // Settled and old: gone. Old but still pending: kept (its attempts are not over).
    expect(ds.map((d) => d.id)).not.toContain('whd_old00000000000000000000000');
    expect(ds.map((d) => d.id)).toContain('whd_oldpending0000000000000000');
    // Run again: nothing left to requeue (its job is live or done) — no second send.
    await maintainDeliveries(t.ctx);
    await new Promise((r) => setTimeout(r, 1000));
    expect(h.receiver.requests).toHaveLength(1);
  });
});
