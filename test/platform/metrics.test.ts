import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { once } from 'node:events';
import net from 'node:net';
import parsePrometheus, { type MetricFamily } from 'parse-prometheus-text-format';
import pg from 'pg';
import supertest from 'supertest';
import { ulid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../../server/config.ts';
import { freePort } from '../../server/infra/db/embedded-postgres.ts';
import { createApp } from '../../server/transports/http/app.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, testEnv } from '../support/harness.ts';
import { hookedForms } from '../support/hooked-forms.ts';
import { listenLocally } from '../support/live-server.ts';
import { postForm, startProcessingApp } from '../support/processing.ts';
import { eventually, workerProcesses } from '../support/worker-process.ts';

// GET /metrics (docs/operations.md "Metrics"): the API's port with INTAKE_METRICS_TOKEN, a worker's own
// INTAKE_METRICS_PORT. Scrapes are read by a Prometheus text-format parser, as a scraper would read them.
// No worker in this process: the queue's jobs wait here, and a real `intake worker` runs them.
const TOKEN = `metrics-${randomBytes(12).toString('hex')}`;
const t = await startProcessingApp(
  { INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true', INTAKE_METRICS_TOKEN: TOKEN },
  { worker: false },
);
const hookedForm = hookedForms(t);

type Labels = Record<string, string>;

/**
 * A scrape as a scraper reads it: the whole text must parse. This parser flattens a histogram with labels
 * into one sample without them (it follows prom2json, which handles unlabelled ones), so lookups read each
 * histogram's `_bucket`, `_sum` and `_count` lines as plain series, their TYPE line set aside.
 */
function parse(text: string): MetricFamily[] {
  const histograms = new Set(
    parsePrometheus(text)
      .filter((f) => f.type === 'HISTOGRAM')
      .map((f) => f.name),
  );
  return parsePrometheus(
    text
      .split('\n')
      .filter((line) => !(line.startsWith('# TYPE ') && histograms.has(line.split(' ')[2]!)))
      .join('\n'),
  );
}

async function scrape(http = t.http, token = TOKEN): Promise<MetricFamily[]> {
  const res = await http.get('/metrics').set(bearer(token));
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return parse(res.text);
}

/** Every sample of a metric (a histogram's series come apart per label set: `name_count`, …). */
function samples(families: MetricFamily[], name: string): Array<{ labels?: Labels; value?: string }> {
  const found = families.filter((f) => f.name === name);
  if (!found.length)
    throw new Error(`no metric ${name} in the scrape (has: ${[...new Set(families.map((f) => f.name))].join(', ')})`);
  return found.flatMap((f) => f.metrics);
}

const matches = (sample: { labels?: Labels }, labels: Labels) =>
  Object.entries(labels).every(([k, v]) => (sample.labels?.[k] ?? '') === v);

/** The sum of the samples of a counter or gauge (or a histogram's `_count`) that carry `labels`. */
function value(families: MetricFamily[], name: string, labels: Labels = {}): number {
  return samples(families, name)
    .filter((m) => matches(m, labels))
    .reduce((n, m) => n + Number(m.value ?? 0), 0);
}

const labelSets = (families: MetricFamily[], name: string) =>
  samples(families, name).map((m) => JSON.stringify(m.labels ?? {}));

describe('access', () => {
  it('is off by default: without INTAKE_METRICS_TOKEN or INTAKE_METRICS_PORT, /metrics on the API port is an unknown route', async () => {
    const defaults = loadConfig(testEnv());
    expect(defaults.metrics).toEqual({ token: undefined, port: undefined });
    const off = supertest(createApp({ ...t.ctx, config: defaults }));
    const res = await off.get('/metrics').set(bearer(TOKEN));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'not_found' });
  });

  it('with a token, answers 401 in the API error shape without it or with a wrong one, and the metrics with it', async () => {
    for (const auth of [
      undefined,
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      'Bearer ',
      TOKEN,
      `Basic ${TOKEN}`,
    ]) {
      const req = t.http.get('/metrics');
      const res = await (auth === undefined ? req : req.set('Authorization', auth));
      expect(res.status, `Authorization: ${auth}`).toBe(401);
      expect(res.body).toEqual({ error: 'unauthenticated', message: expect.any(String) });
      expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
      expect(res.text).not.toContain('intake_');
    }
    const families = await scrape();
    // prom-client's process metrics, and the pool's gauges read at the scrape.
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'intake_http_requests_total',
    ]) {
      expect(families.map((f) => f.name)).toContain(name);
    }
    expect(value(families, 'intake_db_pool_connections', { state: 'max' })).toBe(t.config.databasePoolSize);
    expect(value(families, 'intake_db_pool_waiting')).toBe(0);
  });
});

describe('HTTP requests', () => {
  /** Requests whose paths carry fresh ids and random segments: what a crawler or an attacker sends. */
  async function wanderingRequests(token: string, formId: string): Promise<string[]> {
    const sent: string[] = [];
    for (let i = 0; i < 15; i++) {
      const id = `frm_${ulid()}`;
      const junk = randomBytes(6).toString('hex');
      sent.push(id, junk);
      expect((await t.http.get(`/v1/forms/${id}`).set(bearer(token))).status).toBe(404);
      expect((await t.http.get(`/v1/forms/${junk}`).set(bearer(token))).status).toBe(404);
      expect((await t.http.get(`/${junk}/${id}`)).status).toBe(404);
      expect((await t.http.get(`/v1/${junk}`).set(bearer(token))).status).toBe(404);
      expect((await t.http.post(`/f/${id}`).set('Accept', 'application/json').send({ a: junk })).status).toBe(404);
      expect((await t.http.get(`/v1/forms/${formId}`).set(bearer(token))).status).toBe(200);
    }
    return sent;
  }

  it('are labelled by route template, never by path: label sets do not grow with distinct ids or random 404 paths', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    await scrape(); // the scrape's own label set exists before the first count

    const first = await wanderingRequests(owner.token, form.id);
    const before = await scrape();
    const second = await wanderingRequests(owner.token, form.id);
    const after = await scrape();

    for (const name of ['intake_http_requests_total', 'intake_http_request_duration_seconds_count']) {
      expect(labelSets(after, name).sort()).toEqual(labelSets(before, name).sort());
      const routes = new Set(samples(after, name).map((m) => m.labels!.route!));
      for (const part of [...first, ...second, form.id]) for (const route of routes) expect(route).not.toContain(part);
    }
    const get = { method: 'GET', route: '/v1/forms/:form' };
    expect(
      value(after, 'intake_http_requests_total', { ...get, status: '404' }) -
        value(before, 'intake_http_requests_total', { ...get, status: '404' }),
    ).toBe(30);
    expect(
      value(after, 'intake_http_requests_total', { ...get, status: '200' }) -
        value(before, 'intake_http_requests_total', { ...get, status: '200' }),
    ).toBe(15);
    expect(
      value(after, 'intake_http_requests_total', { method: 'POST', route: '/f/:form', status: '404' }),
    ).toBeGreaterThanOrEqual(30);
    // Both the unknown top-level paths and the unknown /v1 ones: one label.
    expect(
      value(after, 'intake_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }) -
        value(before, 'intake_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }),
    ).toBe(30);
    expect(
      value(after, 'intake_http_request_duration_seconds_count', get) -
        value(before, 'intake_http_request_duration_seconds_count', get),
    ).toBe(45);
  });
});

describe('public posts, jobs, deliveries', () => {
  it('counts posts by outcome: accepted, spam by reason, refused by error code', async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const form = await makePublishedForm(t, owner);
    const before = await scrape();
    await postForm(t, form.endpoint, { email: 'ada@example.com', message: 'Hello there, a quote please.' });
    await postForm(t, form.endpoint, { email: 'ada@example.com', message: 'Hello again.' });
    await postForm(t, form.endpoint, { email: 'bot@example.com', message: 'Buy now', _gotcha: 'filled' });
    expect((await t.http.post(`/f/frm_${ulid()}`).set('Accept', 'application/json').send({ a: 1 })).status).toBe(404);
    const after = await scrape();
    const moved = (labels: Labels) =>
      value(after, 'intake_public_posts_total', labels) - value(before, 'intake_public_posts_total', labels);
    expect(moved({ outcome: 'accepted' })).toBe(2);
    expect(moved({ outcome: 'spam', reason: 'honeypot_filled' })).toBe(1);
    expect(moved({ outcome: 'refused', reason: 'not_found' })).toBeGreaterThanOrEqual(1);
  });

  it("shows jobs waiting per queue and the oldest one's age, read from the queue tables at the scrape", async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const form = await makePublishedForm(t, owner);
    await postForm(t, form.endpoint, { email: 'ada@example.com', message: 'Waiting for a worker.' });
    // A bulk replay's attempt, due an hour ago: paced on purpose, it counts as waiting but not in the age.
    await t.ctx.queue.boss.insert('deliver-webhook', [
      { data: { deliveryId: `whd_${ulid()}`, attempt: 1 }, priority: -1, startAfter: new Date(Date.now() - 3_600_000) },
    ]);
    // Figures are cached for a few seconds between scrapes.
    const families = await eventually(
      () => scrape(),
      (f) =>
        value(f, 'intake_jobs_waiting', { queue: 'process-submission' }) >= 1 &&
        value(f, 'intake_jobs_waiting', { queue: 'deliver-webhook' }) === 1,
      15_000,
    );
    expect(value(families, 'intake_jobs_running', { queue: 'process-submission' })).toBe(0);
    expect(value(families, 'intake_jobs_oldest_waiting_seconds', { queue: 'process-submission' })).toBeGreaterThan(0);
    expect(value(families, 'intake_jobs_oldest_waiting_seconds', { queue: 'deliver-webhook' })).toBe(0);
    // Every queue is listed, with or without jobs: a queue's series does not vanish when it is empty.
    expect(samples(families, 'intake_jobs_waiting').map((m) => m.labels!.queue)).toContain('deliver-webhook');
  });

  it('a scrape does not wait for a database that does not answer: the queue figures are left out, the rest is served', async () => {
    await scrape();
    await new Promise((r) => setTimeout(r, 5_100)); // past the figures' cache
    // The queue table locked by another session: the figures' read waits, up to its statement timeout.
    const locker = new pg.Client({ connectionString: t.databaseUrl });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table pgboss.job in access exclusive mode');
      const started = performance.now();
      const families = await scrape();
      expect(performance.now() - started).toBeLessThan(1_900);
      expect(samples(families, 'intake_jobs_waiting')).toEqual([]);
      expect(value(families, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
      expect(value(families, 'intake_db_pool_connections', { state: 'max' })).toBe(t.config.databasePoolSize);
      await new Promise((r) => setTimeout(r, 1_000)); // held past the read's 2 s statement timeout
    } finally {
      await locker.query('rollback');
      await locker.end();
    }
    // The read cut by its statement timeout is counted; once the table is free, scrapes have the figures again.
    const after = await eventually(
      () => scrape(),
      (f) => samples(f, 'intake_jobs_waiting').length > 0,
      15_000,
    );
    expect(value(after, 'intake_queue_stats_errors_total')).toBe(1);
  });

  it('a worker serves /metrics on INTAKE_METRICS_PORT (no token, nothing else): the jobs it ran, the deliveries it made, its AI calls', async () => {
    const hook = await hookedForm();
    const id = await postForm(t, hook.endpoint, {
      email: 'ada@example.com',
      message: 'Could you send me a quote for twenty units?',
    });
    const port = await freePort();
    const workers = workerProcesses({
      databaseUrl: t.databaseUrl,
      dataDir: t.dataDir,
      env: { INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' },
    });
    const worker = workers.start({ INTAKE_METRICS_PORT: String(port), HOST: '127.0.0.1' });
    const delivered = await hook.receiver.waitFor(1, 60_000).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}\nworker output:\n${worker.output()}`);
    });
    expect(delivered[0]!.body).toContain(id);

    const metrics = supertest(`http://127.0.0.1:${port}`);
    const families = await eventually(
      async () => parse((await metrics.get('/metrics')).text),
      (f) =>
        f.some((m) => m.name === 'intake_delivery_attempts_total') &&
        value(f, 'intake_delivery_attempts_total', { outcome: 'succeeded', attempt: '1' }) >= 1,
      15_000,
      () => worker.output(),
    );
    expect(
      value(families, 'intake_jobs_processed_total', { queue: 'process-submission', outcome: 'completed' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      value(families, 'intake_job_duration_seconds_count', { queue: 'process-submission' }),
    ).toBeGreaterThanOrEqual(1);
    expect(value(families, 'intake_delivery_duration_seconds_count', { outcome: 'succeeded' })).toBeGreaterThanOrEqual(
      1,
    );
    expect(value(families, 'intake_submissions_processed_total', { verdict: 'processed' })).toBeGreaterThanOrEqual(1);
    expect(
      value(families, 'intake_ai_calls_total', { provider: 'local', operation: 'analyze' }),
    ).toBeGreaterThanOrEqual(1);
    expect(value(families, 'intake_ai_errors_total')).toBe(0);
    expect(families.map((f) => f.name)).toContain('process_cpu_user_seconds_total');
    // A worker has the queue: its scrape reads the queue tables too.
    expect(samples(families, 'intake_jobs_waiting').map((m) => m.labels!.queue)).toContain('process-submission');

    for (const path of ['/', '/v1/me', '/metrics/x', '/healthz']) {
      const res = await metrics.get(path);
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ error: 'not_found', message: expect.any(String) });
    }
    expect((await metrics.post('/metrics')).status).toBe(404);
    await worker.kill();
  }, 90_000);
});

describe('long-lived work', () => {
  it('counts the event streams open in this process', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const { baseUrl: base } = await listenLocally(t.app, 'test');
    const before = value(await scrape(), 'intake_event_streams_open');
    const controller = new AbortController();
    const res = await fetch(`${base}/v1/forms/${form.id}/submissions/stream`, {
      headers: { ...bearer(owner.token), accept: 'text/event-stream' },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(value(await scrape(), 'intake_event_streams_open')).toBe(before + 1);
    controller.abort();
    await eventually(
      async () => value(await scrape(), 'intake_event_streams_open'),
      (n) => n === before,
      10_000,
    );
  });

  it('counts the exports open in this process, while a client holds one', { timeout: 60_000 }, async () => {
    const owner = await makeTeam(t);
    const big = await makePublishedForm(t, owner);
    // Far more than the socket buffers hold, so the export stays open while its client reads nothing.
    await t.ctx.db.query(
      `insert into submissions (id, team_id, form_id, status, payload)
       select 'subm_mx' || lpad(g::text, 24, '0'), $1, $2, 'processed', jsonb_build_object('message', repeat('z', 10000))
         from generate_series(1, 2000) g`,
      [owner.teamId, big.id],
    );
    const { port } = await listenLocally(t.app, 'test');
    const socket = net.connect({ host: '127.0.0.1', port });
    try {
      await once(socket, 'connect');
      socket.on('error', () => {});
      const before = value(await scrape(), 'intake_exports_open');
      socket.pause();
      socket.write(
        `GET /v1/forms/${big.id}/submissions/export?format=json HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${owner.token}\r\n\r\n`,
      );
      await eventually(
        async () => value(await scrape(), 'intake_exports_open'),
        (n) => n === before + 1,
        10_000,
      );
      socket.destroy();
      await eventually(
        async () => value(await scrape(), 'intake_exports_open'),
        (n) => n === before,
        10_000,
      );
    } finally {
      socket.destroy();
    }
  });
});

describe('alert rules', () => {
  type Rule = { alert: string; expr: string; for?: string; labels: { severity: string } };
  const rulesIn = (text: string): Rule[] =>
    (parseYaml(text) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((g) => g.rules);

  it('deploy/prometheus/alerts.yml and the rules in docs/operations.md name only metrics a scrape exposes', async () => {
    const file = rulesIn(fs.readFileSync(new URL('../../deploy/prometheus/alerts.yml', import.meta.url), 'utf8'));
    const docs = fs.readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const documented = [...docs.matchAll(/```yaml\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .filter((block) => block.includes('groups:'))
      .flatMap(rulesIn);
    expect(file.map((r) => r.alert)).toEqual(
      expect.arrayContaining([
        'IntakeQueueBacklog',
        'IntakeDeliveriesDead',
        'IntakeDatabasePoolWaiting',
        'IntakeHttp5xxRate',
      ]),
    );
    expect(documented.length).toBeGreaterThan(0);
    for (const rule of documented)
      expect(
        file
          .find((r) => r.alert === rule.alert)
          ?.expr.replace(/\s+/g, ' ')
          .trim(),
      ).toBe(rule.expr.replace(/\s+/g, ' ').trim());

    const res = await t.http.get('/metrics').set(bearer(TOKEN));
    const exposed = new Set(parsePrometheus(res.text).map((f) => f.name));
    for (const rule of file) {
      expect(['warning', 'critical'], rule.alert).toContain(rule.labels.severity);
      const names = rule.expr.match(/\b(?:intake|nodejs|process)_[a-z0-9_]+/g) ?? [];
      if (rule.alert !== 'IntakeProcessDown') expect(names.length, rule.alert).toBeGreaterThan(0);
      for (const name of names) expect(exposed, `${rule.alert}: ${name}`).toContain(name);
    }
  });
});
