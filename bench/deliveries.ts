/**
 * Webhook deliveries benchmark (DESIGN.md "Performance"): `node bench/deliveries.ts [options]`.
 *
 * 1. Throughput, end to end, in each shape of `--webhooks` (default `1,50`: one busy webhook, and the same
 *    N deliveries spread over 50 webhooks on 3 forms): N deliveries of processed submissions, created as
 *    processing creates them (domain function, rows + attempt jobs in one transaction), are sent by a real
 *    `intake worker` to a local HTTPS receiver (self-signed, trusted through NODE_EXTRA_CA_CERTS). Deliveries/s = N ÷ (last row
 *    `succeeded` − first request received). Baseline in the same run: bench/deliveries-baseline.ts, a
 *    `FOR UPDATE SKIP LOCKED` loop POSTing the same bodies, signed, with undici keep-alive at the same
 *    concurrency, updating each row. Target: Intake ≥ 0.8× the baseline in both shapes.
 *    `--pg-stats`: the statements Postgres spent most time on during Intake's run (pg_stat_statements).
 * 2. Latency: `intake serve` (API + worker), M posts to `POST /f/{form}` one after another (spaced out);
 *    p50/p99 from the start of the post to the receiver getting the delivery. Target: p50 < 150 ms.
 *
 * Prints a summary and writes bench/results/deliveries-<date>.json (`--no-save` to skip).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { loadConfig } from '../server/config.ts';
import type { Caller } from '../server/domain/accounts/caller.ts';
import { createSubmissionDeliveries } from '../server/domain/delivery/fan-out.ts';
import { createForm, publishForm } from '../server/domain/forms/forms.ts';
import { createTeam } from '../server/domain/accounts/teams.ts';
import { issueToken } from '../server/domain/accounts/tokens.ts';
import { addMember } from '../server/domain/accounts/users.ts';
import { createWebhook } from '../server/domain/webhooks/webhooks.ts';
import { boot } from '../server/main.ts';
import { startHttpsReceiver } from '../test/support/https-receiver.ts';
import { serverProcessEnv } from '../test/support/tls.ts';
import { cleanupAll, installSignalHandlers } from './lib/cleanup.ts';
import { scratchDir, startDatabase, startStorage, withClient } from './lib/infra.ts';
import { summariseProfile } from './lib/cpuprofile.ts';
import { resetStatements, topStatements } from './lib/pg-stats.ts';
import { freePort, startChild } from './lib/processes.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TARGET = { ratio: 0.8, p50Ms: 50 };
const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;

const { values: opts } = parseArgs({
  options: {
    deliveries: { type: 'string', default: '5000' },
    posts: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '50' },
    webhooks: { type: 'string', default: '1,50' },
    'pg-stats': { type: 'boolean', default: false },
    'cpu-prof': { type: 'boolean', default: false },
    'no-save': { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});
const N = Number(opts.deliveries);
const M = Number(opts.posts);
const CONCURRENCY = Number(opts.concurrency);
const SHAPES = opts.webhooks.split(',').map(Number);
if (SHAPES.some((n) => !Number.isInteger(n) || n < 1 || n > 200))
  throw new Error('--webhooks: comma-separated counts of webhooks, 1–200');

async function waitUntil<T>(
  what: string,
  fn: () => Promise<T>,
  ok: (v: T) => boolean,
  timeoutMs = 600_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline)
      throw new Error(`${what}: not done within ${timeoutMs / 1000} s (last: ${JSON.stringify(v)})`);
    await sleep(25);
  }
}

async function main() {
  installSignalHandlers();
  const dir = scratchDir('intake-bench-deliveries-');
  const db = await startDatabase(dir, { pgStats: opts['pg-stats'], log });
  const storageUrl = await startStorage(dir, 'intake-bench');
  const receiver = await startHttpsReceiver();
  const env = {
    PATH: process.env.PATH,
    DATABASE_URL: db.url,
    STORAGE_URL: storageUrl,
    STORAGE_BUCKET: 'intake-bench',
    INTAKE_DATA_DIR: dir,
    INTAKE_SECRET_KEY: 'bench',
    INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true',
    INTAKE_DELIVERY_CONCURRENCY: String(CONCURRENCY),
    LOG_LEVEL: 'warn',
    ...serverProcessEnv(),
  };

  // Account through the domain functions; each shape then seeds its forms, webhooks and deliveries.
  const config = loadConfig({ ...env, INTAKE_DATA_DIR: dir });
  const rt = await boot(config, { http: false, worker: false, services: true, log: pino({ level: 'silent' }) });
  const team = await createTeam(rt.ctx, { name: 'Bench team', plan: 'scale' });
  const { user } = await addMember(rt.ctx, {
    email: 'owner@bench.example',
    name: 'Bench Owner',
    teamId: team.id,
    role: 'owner',
  });
  await issueToken(rt.ctx, { teamId: team.id, userId: user.id, name: 'bench' });
  const caller: Caller = { userId: user.id, teamId: team.id, role: 'owner', tokenId: 'bench', abilities: [] };

  /**
   * `webhooks` webhooks to the one receiver (at most 20 a form, so over several forms), and processed
   * submissions so that each webhook gets N ÷ webhooks deliveries; the baseline's table the same bodies.
   */
  const seed = async (webhooks: number): Promise<string> => {
    const formsNeeded = Math.ceil(webhooks / 20);
    const perWebhook = Math.max(1, Math.round(N / webhooks));
    const forms: string[] = [];
    for (let f = 0; f < formsNeeded; f++) {
      const form = await createForm(rt.ctx, caller, { name: `Contact us ${webhooks}/${f}`, notification_emails: [] });
      await publishForm(rt.ctx, caller, form.id);
      const hooks = Math.floor(webhooks / formsNeeded) + (f < webhooks % formsNeeded ? 1 : 0);
      for (let h = 0; h < hooks; h++) {
        await createWebhook(rt.ctx, caller, form.id, {
          label: `Bench ${f}.${h}`,
          url: `${receiver.localhostUrl}/hooks/${f}/${h}`,
          provider: 'webhook',
          config: {},
          events: ['submission.created'],
          active: true,
        });
      }
      forms.push(form.id);
      await rt.ctx.db.query(
        `insert into submissions (id, team_id, form_id, status, category, payload, metadata)
         select 'subm_' || lpad(to_hex($4::int), 6, '0') || lpad(to_hex(g), 20, '0'), $1, $2, 'processed', 'sales',
                jsonb_build_object('name', 'Jane Doe ' || g, 'email', 'jane' || g || '@example.com', 'message', repeat('We would like a quote for a new project. ', 6)),
                jsonb_build_object('user_agent', 'Mozilla/5.0', 'referrer', 'https://www.example.com/contact')
           from generate_series(1, $3::int) g`,
        [team.id, form.id, perWebhook, webhooks * 100 + f],
      );
      const { rows: subs } = await rt.ctx.db.query<{ id: string }>(
        'select id from submissions where form_id = $1 order by id',
        [form.id],
      );
      for (let i = 0; i < subs.length; i += 500) {
        await rt.ctx.db.transaction(async (tx) => {
          for (const s of subs.slice(i, i + 500))
            await createSubmissionDeliveries(rt.ctx, tx, { teamId: team.id, id: s.id, formId: form.id });
        });
      }
    }
    log(`${webhooks} webhook(s) on ${forms.length} form(s), ${perWebhook} deliveries each`);
    // The baseline sends the very same bodies. The shape before's rows go, so both targets' completion polls
    // (a count over their table every 25 ms) read as many rows.
    await rt.ctx.db.query(`delete from deliveries where status = 'succeeded'`);
    await rt.ctx.db.query('drop table if exists bench_deliveries');
    await rt.ctx.db
      .query(`create table bench_deliveries (id text primary key, body text not null, status text not null default 'pending',
                             http_status integer, attempts integer not null default 0, updated_at timestamptz)`);
    await rt.ctx.db.query(
      `insert into bench_deliveries (id, body) select id, request_body from deliveries where status = 'pending'`,
    );
    await rt.ctx.db.query('vacuum analyze');
    return forms[0]!;
  };

  const measure = async (
    name: string,
    total: number,
    start: () => ReturnType<typeof startChild>,
    pending: () => Promise<number>,
  ) => {
    receiver.requests.length = 0;
    const started = Date.now();
    const child = start();
    await waitUntil(`${name} deliveries`, pending, (n) => n === 0);
    const end = Date.now();
    const first = receiver.requests[0]?.receivedAt ?? started;
    const seconds = (end - first) / 1000;
    const rate = Math.round(total / seconds);
    log(
      `${name}: ${total} deliveries in ${seconds.toFixed(2)} s → ${rate}/s (${receiver.requests.length} requests received)`,
    );
    await child.stop();
    return { deliveriesPerSecond: rate, seconds, requests: receiver.requests.length };
  };
  const count = (sql: string) =>
    withClient(db.url, async (c) => Number((await c.query<{ n: string }>(sql)).rows[0]!.n));

  const shapes: Array<{
    webhooks: number;
    deliveries: number;
    ratio: number;
    baseline: unknown;
    intake: unknown;
    statements?: unknown;
  }> = [];
  let latencyForm = '';
  for (const webhooks of SHAPES) {
    const formId = await seed(webhooks);
    latencyForm ||= formId;
    const total = await count('select count(*) as n from bench_deliveries');
    const baseline = await measure(
      `baseline, ${webhooks} webhook(s)`,
      total,
      () =>
        startChild('baseline', process.execPath, [path.join(ROOT, 'bench', 'deliveries-baseline.ts')], {
          env: { ...env, RECEIVER_URL: `${receiver.localhostUrl}/hooks`, CONCURRENCY: String(CONCURRENCY) },
          echo: opts.verbose,
        }),
      () => count(`select count(*) as n from bench_deliveries where status <> 'succeeded'`),
    );
    if (opts['pg-stats']) await withClient(db.url, resetStatements);
    const intake = await measure(
      `intake, ${webhooks} webhook(s)`,
      total,
      () =>
        startChild('intake worker', path.join(ROOT, 'cli', 'intake'), ['worker'], {
          env: opts['cpu-prof']
            ? { ...env, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.join(dir, `cpu-${webhooks}`)}` }
            : env,
          echo: opts.verbose,
        }),
      () => count(`select count(*) as n from deliveries where status <> 'succeeded'`),
    );
    if (opts['cpu-prof']) {
      const profDir = path.join(dir, `cpu-${webhooks}`);
      for (const f of fs.existsSync(profDir) ? fs.readdirSync(profDir) : []) {
        const summary = summariseProfile(path.join(profDir, f), ROOT, {
          windowMs: intake.seconds * 1000,
          fromEndMs: 0,
          top: 15,
        });
        log(
          `  worker CPU ${f}: ${JSON.stringify({ sampledMs: summary.sampledMs, idleMs: summary.idleMs, byArea: summary.selfByArea.slice(0, 8), topSelf: summary.topSelf.slice(0, 12), topInclusive: summary.topInclusive.slice(0, 40) })}`,
        );
      }
    }
    const statements = opts['pg-stats'] ? await withClient(db.url, (c) => topStatements(c, 10)) : undefined;
    if (statements)
      for (const st of statements) log(`  ${st.calls} calls, ${st.total_ms} ms, ${st.wal_bytes} B WAL: ${st.query}`);
    const ratio = Math.round((intake.deliveriesPerSecond / baseline.deliveriesPerSecond) * 100) / 100;
    log(`${webhooks} webhook(s): ratio ${ratio}`);
    shapes.push({ webhooks, deliveries: total, baseline, intake, ratio, ...(statements ? { statements } : {}) });
  }
  await rt.close();

  // Latency from the public POST to the receiver, one post at a time.
  const port = await freePort();
  const server = startChild('intake serve', path.join(ROOT, 'cli', 'intake'), ['serve'], {
    env: {
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      INTAKE_BASE_URL: `http://127.0.0.1:${port}`,
      INTAKE_INGEST_RATE_LIMIT: '100000',
      INTAKE_INGEST_FLOOD_LIMIT: '100000',
    },
    echo: opts.verbose,
  });
  await waitUntil(
    'intake serve',
    () =>
      fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      ),
    Boolean,
    60_000,
  );
  receiver.requests.length = 0;
  const latencies: number[] = [];
  for (let i = 0; i < M; i += 1) {
    const started = performance.now();
    const before = receiver.requests.length;
    const res = await fetch(`http://127.0.0.1:${port}/f/${latencyForm}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        name: `Latency ${i}`,
        email: `l${i}@example.com`,
        message: 'Could you send me a quote for twenty units?',
      }).toString(),
    });
    if (res.status !== 201) throw new Error(`post ${i}: ${res.status} ${await res.text()}`);
    await waitUntil(
      'delivery',
      async () => receiver.requests.length,
      (n) => n > before,
      30_000,
    );
    latencies.push(performance.now() - started);
    await sleep(20);
  }
  await server.stop();
  const p50 = Math.round(quantile(latencies, 0.5));
  const p99 = Math.round(quantile(latencies, 0.99));
  log(`latency POST → receiver over ${M} posts: p50 ${p50} ms, p99 ${p99} ms`);

  const report = {
    benchmark: 'deliveries',
    at: new Date().toISOString(),
    deliveries: N,
    concurrency: CONCURRENCY,
    shapes,
    ratios: Object.fromEntries(shapes.map((sh) => [`webhooks_${sh.webhooks}`, sh.ratio])),
    latency: { posts: M, p50Ms: p50, p99Ms: p99 },
    targets: TARGET,
    met: { ratio: shapes.every((sh) => sh.ratio >= TARGET.ratio), p50: p50 < TARGET.p50Ms },
  };
  log(
    `ratios: ${shapes.map((sh) => `${sh.webhooks} webhook(s) ${sh.ratio}`).join(', ')}; POST → receiver p50 ${p50} ms`,
  );
  console.log(JSON.stringify(report, null, 2));
  if (!opts['no-save']) {
    const file = path.join(ROOT, 'bench', 'results', `deliveries-${new Date().toISOString().slice(0, 10)}.json`);
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    log(`wrote ${path.relative(ROOT, file)}`);
  }
  await receiver.close();
}

try {
  await main();
} finally {
  await cleanupAll();
}
