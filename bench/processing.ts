/**
 * Processing benchmark: `node bench/processing.ts [--before DIR] [options]`.
 *
 * N submissions (default 3,000) are accepted as the public endpoint accepts them — `POST /f/{form}` on
 * `intake serve --no-worker`, so each statement of the group commit carries its process-submission job — with
 * no worker running, on one form (`--forms 1`) and spread over several forms of one team (`--forms 8`). Then a
 * real `intake worker` (default processing concurrency, INTAKE_WORKER_CONCURRENCY) is started and the bench
 * waits until every one has left `received`. Processed/s = N ÷ (last settle − first settle), from the rows'
 * `updated_at` (the settling transaction's start). Each form has one webhook to a local HTTPS receiver, so each
 * settle creates its delivery in the same transaction; the worker sends those meanwhile, as it would in
 * production (`--no-webhook`: none). WAL per submission: `pg_current_wal_lsn()` from the worker's start to the
 * last settle (the deliveries sent meanwhile included; the breakdown, from pg_walinspect, shows them apart).
 *
 * `--before DIR`: another checkout of Intake (a git worktree with node_modules linked), measured in the same
 * run on a database of its own in the same Postgres, each shape alternating between the two codes round by
 * round; its forms are made by its own domain functions (this file run with `--seed` in a child process) and
 * its own `intake serve` and `intake worker` run. The report gives every round, each code's median and worst,
 * and the median of the per-round ratios current ÷ before. Target: ≥ 0.9 on one form.
 *
 * Prints a summary and writes bench/results/processing-<date>.json (`--no-save` to skip).
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { pino } from 'pino';
import type * as AccountsTeams from '../server/domain/accounts/teams.ts';
import type * as AccountsUsers from '../server/domain/accounts/users.ts';
import type * as Config from '../server/config.ts';
import type * as Forms from '../server/domain/forms/forms.ts';
import type * as Main from '../server/main.ts';
import type * as Webhooks from '../server/domain/webhooks/webhooks.ts';
import { startHttpsReceiver } from '../test/support/https-receiver.ts';
import { serverProcessEnv } from '../test/support/tls.ts';
import { cleanupAll, installSignalHandlers, onCleanup } from './lib/cleanup.ts';
import { BROWSER_HEADERS, contactFormBodies } from './lib/contact-form.ts';
import { scratchDir, startDatabase, startStorage, withClient } from './lib/infra.ts';
import { freePort, startChild, waitForHttp, type Child } from './lib/processes.ts';
import { startWaitSampler } from './lib/wait-sampler.ts';
import { walBreakdown, walTable, type WalLine } from './wal-breakdown.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TARGET = { ratioOneForm: 0.9 };
const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round3 = (x: number) => Math.round(x * 1000) / 1000;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : round3((s[s.length / 2 - 1]! + s[s.length / 2]!) / 2);
};

const { values: opts } = parseArgs({
  options: {
    submissions: { type: 'string', default: '3000' },
    forms: { type: 'string', default: '1,8' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '20' },
    before: { type: 'string' },
    'no-webhook': { type: 'boolean', default: false },
    'no-wal-breakdown': { type: 'boolean', default: false },
    'no-save': { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    seed: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (opts.help) {
  process.stdout.write(`node bench/processing.ts [options]
  --submissions N     submissions per measurement (default 3000)
  --forms 1,8         shapes: the N submissions on this many forms of one team (default 1,8)
  --rounds R          rounds of every shape (default 3); with --before each round runs both codes
  --connections C     concurrent posts while accepting (default 20)
  --before DIR        another checkout of Intake to measure beside this one (node_modules linked)
  --no-webhook        forms without a webhook (processing then creates no delivery)
  --no-wal-breakdown  skip pg_walinspect's split of each run's WAL
  --no-save           do not write bench/results/processing-<date>.json
  --verbose           echo the servers' output
`);
  process.exit(0);
}

/** What the seeding child makes: per measurement, a team on the `scale` plan with its forms (and webhooks). */
type SeedPlan = { forms: number[]; receiverUrl: string | null };
type Seeded = { teamId: string; formIds: string[] };

/**
 * `--seed`: the checkout at BENCH_ROOT makes the plan's teams, forms and webhooks through its own domain
 * functions (migrating the database first, as boot does) and prints them as JSON.
 */
async function seedMode(): Promise<void> {
  const root = process.env.BENCH_ROOT!;
  const plan = JSON.parse(process.env.BENCH_SEED!) as SeedPlan;
  const load = (rel: string) => import(pathToFileURL(path.join(root, rel)).href);
  const { loadConfig } = (await load('server/config.ts')) as typeof Config;
  const { boot } = (await load('server/main.ts')) as typeof Main;
  const { createTeam } = (await load('server/domain/accounts/teams.ts')) as typeof AccountsTeams;
  const { addMember } = (await load('server/domain/accounts/users.ts')) as typeof AccountsUsers;
  const { createForm, publishForm } = (await load('server/domain/forms/forms.ts')) as typeof Forms;
  const { createWebhook } = (await load('server/domain/webhooks/webhooks.ts')) as typeof Webhooks;
  const rt = await boot(loadConfig(process.env), {
    http: false,
    worker: false,
    services: true,
    log: pino({ level: 'silent' }),
  });
  const seeded: Seeded[] = [];
  try {
    for (const [i, count] of plan.forms.entries()) {
      const team = await createTeam(rt.ctx, { name: `Bench team ${i}`, plan: 'scale' });
      const { user } = await addMember(rt.ctx, {
        email: `owner${i}@bench.example`,
        name: 'Bench Owner',
        teamId: team.id,
        role: 'owner',
      });
      const caller = { userId: user.id, teamId: team.id, role: 'owner' as const, tokenId: 'bench', abilities: [] };
      const formIds: string[] = [];
      for (let f = 0; f < count; f++) {
        const form = await createForm(rt.ctx, caller, { name: `Contact us ${f}`, notification_emails: [] });
        await publishForm(rt.ctx, caller, form.id);
        if (plan.receiverUrl)
          await createWebhook(rt.ctx, caller, form.id, {
            label: `Bench ${f}`,
            url: `${plan.receiverUrl}/hooks/${i}/${f}`,
            provider: 'webhook',
            config: {},
            events: ['submission.created'],
            active: true,
          });
        formIds.push(form.id);
      }
      seeded.push({ teamId: team.id, formIds });
    }
  } finally {
    await rt.close();
  }
  process.stdout.write(`${JSON.stringify(seeded)}\n`);
}

type Code = {
  name: 'current' | 'before';
  root: string;
  dbUrl: string;
  env: NodeJS.ProcessEnv;
  seeded: Seeded[];
  git: { commit: string | null; dirty: boolean | null; streamHeads: boolean };
};

type Run = {
  round: number;
  forms: number;
  code: Code['name'];
  submissions: number;
  /** process-submission jobs the posts made (a group-commit statement's job covers its posts). */
  jobs: number;
  processedPerSecond: number;
  /** First to last settle (the rows' updated_at), s. */
  settleSeconds: number;
  /** From the worker's spawn to the last settle seen, s (includes the worker's start). */
  wallSeconds: number;
  statuses: { processed: number; spam: number; failed: number };
  deliveries: { created: number; sentByLastSettle: number };
  walBytesPerSubmission: number;
  walBreakdown: WalLine[] | null;
  /** Share of sampled active backends (every 100 ms) per wait event while processing. */
  waitEvents: Array<{ event: string; pct: number }>;
  machine: { busyPct: number; loadAverage: number[] };
  postsPerSecond: number;
};

function machineTicks(): { busy: number; total: number } {
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = cpu.reduce((a, b) => a + b, 0);
  return { busy: total - cpu[3]! - cpu[4]!, total };
}

async function postAll(url: string, formIds: string[], bodies: string[], count: number, connections: number) {
  let next = 0;
  const failures: string[] = [];
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const res = await fetch(`${url}/f/${formIds[i % formIds.length]}`, {
        method: 'POST',
        headers: BROWSER_HEADERS,
        body: bodies[i % bodies.length],
      });
      const text = await res.text();
      if (res.status !== 201 && failures.length < 5) failures.push(`${res.status} ${text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  if (failures.length) throw new Error(`posts refused: ${failures.join('; ')}`);
}

function gitState(root: string): { commit: string | null; dirty: boolean | null } {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root }).toString().trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root }).toString().trim() !== '';
    return { commit, dirty };
  } catch {
    return { commit: null, dirty: null };
  }
}

async function main(): Promise<void> {
  const N = Number(opts.submissions);
  const ROUNDS = Number(opts.rounds);
  const CONNECTIONS = Number(opts.connections);
  const SHAPES = opts.forms.split(',').map(Number);
  if (SHAPES.some((n) => !Number.isInteger(n) || n < 1 || n > 100)) throw new Error('--forms: counts of forms, 1–100');
  const beforeRoot = opts.before ? path.resolve(opts.before) : null;
  if (beforeRoot && !fs.existsSync(path.join(beforeRoot, 'cli', 'intake')))
    throw new Error(`--before ${beforeRoot}: not a checkout of Intake`);

  installSignalHandlers();
  const dir = scratchDir('intake-bench-processing-');
  const db = await startDatabase(dir, { pgStats: false, log });
  const storageUrl = await startStorage(dir, 'intake-bench');
  const receiver = opts['no-webhook'] ? null : await startHttpsReceiver();
  const measurements = Array.from({ length: ROUNDS }, () => SHAPES).flat();

  const codeEnv = (dbUrl: string, dataDir: string): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: dbUrl,
    STORAGE_URL: storageUrl,
    STORAGE_BUCKET: 'intake-bench',
    INTAKE_DATA_DIR: dataDir,
    INTAKE_SECRET_KEY: 'bench',
    INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true',
    INTAKE_VERIFY_NOTIFICATION_EMAILS: 'false',
    INTAKE_INGEST_RATE_LIMIT: '1000000000',
    INTAKE_INGEST_FLOOD_LIMIT: '1000000000',
    LOG_LEVEL: 'warn',
    ...serverProcessEnv(),
  });

  const prepare = async (name: Code['name'], root: string, dbUrl: string): Promise<Code> => {
    const env = codeEnv(dbUrl, path.join(dir, `data-${name}`));
    log(`${name} (${root}): migrating and seeding ${measurements.length} teams`);
    const { stdout } = await promisify(execFile)(process.execPath, [fileURLToPath(import.meta.url), '--seed'], {
      env: {
        ...env,
        BENCH_ROOT: root,
        BENCH_SEED: JSON.stringify({ forms: measurements, receiverUrl: receiver?.localhostUrl ?? null }),
      },
      maxBuffer: 16 * 1024 * 1024,
    });
    const seeded = JSON.parse(stdout.trim().split('\n').pop()!) as Seeded[];
    const streamHeads = await withClient(dbUrl, async (c) => {
      await c.query('create extension if not exists pg_walinspect').catch(() => {});
      return (await c.query<{ t: string | null }>(`select to_regclass('stream_heads')::text as t`)).rows[0]!.t !== null;
    });
    return { name, root, dbUrl, env, seeded, git: { ...gitState(root), streamHeads } };
  };

  const codes: Code[] = [];
  if (beforeRoot) {
    const u = new URL(db.url);
    const beforeDb = `${u.pathname.slice(1)}_before`;
    const admin = new URL(db.url);
    admin.pathname = '/postgres';
    await withClient(admin.toString(), (c) => c.query(`create database "${beforeDb}"`));
    onCleanup(`drop database ${beforeDb}`, () =>
      withClient(
        admin.toString(),
        async (c) => void (await c.query(`drop database if exists "${beforeDb}" with (force)`)),
      ),
    );
    u.pathname = `/${beforeDb}`;
    codes.push(await prepare('before', beforeRoot, u.toString()));
  }
  codes.push(await prepare('current', ROOT, db.url));
  const walInspect = await withClient(db.url, (c) =>
    c.query(`select 1 from pg_extension where extname = 'pg_walinspect'`).then((r) => r.rowCount === 1),
  );
  const bodies = contactFormBodies(200);

  const measure = async (code: Code, index: number, round: number, forms: number): Promise<Run> => {
    const label = `round ${round}/${ROUNDS}, ${forms} form(s), ${code.name}`;
    const { teamId, formIds } = code.seeded[index]!;
    const intake = path.join(code.root, 'cli', 'intake');
    const admin = new pg.Client({ connectionString: code.dbUrl });
    await admin.connect();
    let worker: Child | null = null;
    try {
      // Accept with no worker anywhere: the jobs wait in the queue.
      const port = await freePort();
      const server = startChild(`intake serve (${code.name})`, intake, ['serve', '--no-worker'], {
        cwd: code.root,
        env: {
          ...code.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          INTAKE_BASE_URL: `http://127.0.0.1:${port}`,
        },
        echo: opts.verbose,
      });
      let postsPerSecond: number;
      try {
        await waitForHttp(server, `http://127.0.0.1:${port}/healthz`);
        const started = performance.now();
        await postAll(`http://127.0.0.1:${port}`, formIds, bodies, N, CONNECTIONS);
        postsPerSecond = Math.round(N / ((performance.now() - started) / 1000));
      } finally {
        await server.stop();
      }
      const received = Number(
        (
          await admin.query<{ n: string }>(
            `select count(*) as n from submissions where team_id = $1 and status = 'received'`,
            [teamId],
          )
        ).rows[0]!.n,
      );
      if (received !== N) throw new Error(`${label}: ${received} submissions received, expected ${N}`);
      const jobs = Number(
        (
          await admin.query<{ n: string }>(
            `select count(*) as n from pgboss.job where name = 'process-submission' and state = 'created' and data->>'teamId' = $1`,
            [teamId],
          )
        ).rows[0]!.n,
      );

      // Same start for every run: nothing owed to vacuum (in either database), no dirty buffers.
      for (const c of codes) await withClient(c.dbUrl, (cl) => cl.query('vacuum (analyze)'));
      await admin.query('checkpoint');
      const lsn0 = (await admin.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows[0]!.lsn;
      const ticks0 = machineTicks();
      const stopSampler = startWaitSampler(code.dbUrl, log, 8);
      const spawnedAt = Date.now();
      worker = startChild(`intake worker (${code.name})`, intake, ['worker'], {
        cwd: code.root,
        env: code.env,
        echo: opts.verbose,
      });
      const deadline = Date.now() + 600_000;
      for (;;) {
        const { rows } = await admin.query<{ n: number }>(
          `select count(*)::int as n from submissions where team_id = $1 and status <> 'received'`,
          [teamId],
        );
        if (rows[0]!.n === N) break;
        if (!worker.alive())
          throw new Error(`${label}: the worker exited (${await worker.exited}):\n${worker.output()}`);
        if (Date.now() > deadline) throw new Error(`${label}: ${rows[0]!.n} of ${N} settled after 600 s`);
        await sleep(25);
      }
      const wallSeconds = (Date.now() - spawnedAt) / 1000;
      const lsn1 = (await admin.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows[0]!.lsn;
      const ticks1 = machineTicks();
      const waitEvents = await stopSampler();
      const walBytes = Number(
        (await admin.query<{ n: string }>('select $2::pg_lsn - $1::pg_lsn as n', [lsn0, lsn1])).rows[0]!.n,
      );
      const s = (
        await admin.query<{ processed: number; spam: number; failed: number; span: number }>(
          `select count(*) filter (where status = 'processed')::int as processed, count(*) filter (where status = 'spam')::int as spam,
                  count(*) filter (where status = 'failed')::int as failed,
                  extract(epoch from max(updated_at) - min(updated_at))::float8 as span
             from submissions where team_id = $1`,
          [teamId],
        )
      ).rows[0]!;
      const d = (
        await admin.query<{ created: number; sent: number }>(
          `select count(*)::int as created, count(*) filter (where status = 'succeeded')::int as sent from deliveries where team_id = $1`,
          [teamId],
        )
      ).rows[0]!;
      const breakdown =
        walInspect && !opts['no-wal-breakdown'] ? await walBreakdown(admin, lsn0, lsn1, walBytes) : null;
      // The next run starts with no delivery of this one left to send.
      if (receiver) {
        const until = Date.now() + 180_000;
        while (Date.now() < until) {
          const { rows } = await admin.query<{ n: number }>(
            `select count(*)::int as n from deliveries where team_id = $1 and status <> 'succeeded'`,
            [teamId],
          );
          if (rows[0]!.n === 0) break;
          await sleep(100);
        }
      }
      const run: Run = {
        round,
        forms,
        code: code.name,
        submissions: N,
        jobs,
        processedPerSecond: Math.round(N / Math.max(s.span, 0.001)),
        settleSeconds: round3(s.span),
        wallSeconds: round3(wallSeconds),
        statuses: { processed: s.processed, spam: s.spam, failed: s.failed },
        deliveries: { created: d.created, sentByLastSettle: d.sent },
        walBytesPerSubmission: Math.round(walBytes / N),
        walBreakdown: breakdown,
        waitEvents,
        machine: {
          busyPct: Math.round((100 * (ticks1.busy - ticks0.busy)) / Math.max(1, ticks1.total - ticks0.total)),
          loadAverage: os.loadavg().map((x) => Math.round(x * 100) / 100),
        },
        postsPerSecond,
      };
      log(
        `${label}: ${run.processedPerSecond} processed/s (${N} in ${run.settleSeconds} s, ${jobs} jobs; worker start → last settle ${run.wallSeconds} s); ` +
          `WAL ${run.walBytesPerSubmission} B/submission; deliveries ${d.created} (${d.sent} sent by the last settle); machine ${run.machine.busyPct}% busy`,
      );
      if (opts.verbose && breakdown) for (const line of walTable(breakdown, N)) log(line);
      if (opts.verbose) log(`  waits: ${waitEvents.map((w) => `${w.event} ${w.pct}%`).join(', ')}`);
      return run;
    } finally {
      await worker?.stop();
      await admin.end();
    }
  };

  const runs: Run[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [s, forms] of SHAPES.entries()) {
      const index = (round - 1) * SHAPES.length + s;
      // Alternate which code goes first, so drift over the run favours neither.
      const order = round % 2 ? codes : [...codes].reverse();
      for (const code of order) runs.push(await measure(code, index, round, forms));
    }
  }
  receiver?.requests.splice(0);
  await receiver?.close();

  const shapes = SHAPES.map((forms) => {
    const of = (name: Code['name']) => {
      const rs = runs.filter((r) => r.forms === forms && r.code === name);
      if (!rs.length) return null;
      const rates = rs.map((r) => r.processedPerSecond);
      return {
        processedPerSecond: rates,
        median: median(rates),
        worst: Math.min(...rates),
        walBytesPerSubmission: median(rs.map((r) => r.walBytesPerSubmission)),
      };
    };
    const current = of('current')!;
    const before = of('before');
    const roundRatios = before
      ? Array.from({ length: ROUNDS }, (_, i) => round3(current.processedPerSecond[i]! / before.processedPerSecond[i]!))
      : [];
    const ratio = before ? median(roundRatios) : null;
    return { forms, current, before, roundRatios, ratio };
  });
  const oneForm = shapes.find((s) => s.forms === 1);
  const report = {
    benchmark: 'processing',
    date: new Date().toISOString(),
    command: `node bench/processing.ts ${process.argv.slice(2).join(' ')}`.trim(),
    codes: codes.map((c) => ({ name: c.name, root: c.root, ...c.git })),
    machine: {
      node: process.version,
      cpus: os.availableParallelism(),
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    },
    postgres: { kind: db.kind, settings: db.settings },
    options: {
      submissions: N,
      forms: SHAPES,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      webhook: !opts['no-webhook'],
      workerConcurrency: 'default (INTAKE_WORKER_CONCURRENCY)',
    },
    shapes,
    target: TARGET,
    met: oneForm?.ratio == null ? null : oneForm.ratio >= TARGET.ratioOneForm,
    runs,
  };
  for (const sh of shapes) {
    const fmt = (x: typeof sh.current | null) =>
      x
        ? `${x.processedPerSecond.join(', ')}/s (median ${x.median}, worst ${x.worst}; WAL ${x.walBytesPerSubmission} B)`
        : '–';
    log(
      `${sh.forms} form(s): current ${fmt(sh.current)}` +
        (sh.before ? `; before ${fmt(sh.before)}; ratios ${sh.roundRatios.join(', ')} → ${sh.ratio}` : ''),
    );
  }
  if (!opts['no-save']) {
    const file = path.join(ROOT, 'bench', 'results', `processing-${new Date().toISOString().slice(0, 10)}.json`);
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    log(`wrote ${path.relative(ROOT, file)}`);
  }
}

if (opts.seed) {
  await seedMode();
} else {
  try {
    await main();
  } finally {
    await cleanupAll();
  }
}
