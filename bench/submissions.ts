/**
 * Submissions benchmark (issue #4, DESIGN.md "Performance"): `node bench/submissions.ts [options]`.
 *
 * Seeds one form with 1,000,000 submissions (SQL `insert … select`: ~300-byte contact-form payloads, a
 * year of received_at, 4 % spam, 0.5 % with a file; folder counters set to match; VACUUM ANALYZE), runs
 * `intake serve --no-worker` as a child process and measures, in the same run:
 *
 *  1. CSV export of every row through the API (rows/s, the server's RSS growth sampled from /proc every
 *     10 ms) against the baseline `COPY (SELECT <the same rows and columns>) TO STDOUT WITH CSV` read
 *     through pg-copy-streams and discarded. Runs alternate baseline / API; the medians are compared.
 *     Targets: ≥ 0.4× the baseline's rows/s, RSS growth < 150 MB.
 *  2. List latency (p50/p99 of sequential requests, plus a few concurrent clients) for page 1, page
 *     10,000 (per_page=25) and a deep cursor page (reached by following next_cursor from page 1 once,
 *     and checked to be the same rows as page 10,000). Target: p99 < 50 ms.
 *
 * Prints a summary and writes bench/results/submissions-<date>.json, with EXPLAIN (ANALYZE, BUFFERS) of
 * the queries behind each measurement. Everything it starts (embedded Postgres or a database on
 * DATABASE_URL, s3rver, the server) is stopped and removed on exit, Ctrl-C included.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { pino } from 'pino';
import { loadConfig } from '../server/config.ts';
import type { Caller } from '../server/domain/caller.ts';
import { createForm, publishForm } from '../server/domain/forms.ts';
import { createTeam } from '../server/domain/teams.ts';
import { issueToken } from '../server/domain/tokens.ts';
import { exportSelect } from '../server/db/queries/exports.ts';
import { listPageQuery, type PageSpec } from '../server/db/queries/submissions.ts';
import { addMember } from '../server/domain/users.ts';
import { ensureDatabase, freePort, startEmbeddedPostgres } from '../server/db/embedded-postgres.ts';
import { boot } from '../server/main.ts';
import { startEmbeddedS3 } from '../server/storage/embedded-s3.ts';
import { COMPANIES, FIRST, LAST, SENTENCES, SUBJECTS } from './lib/contact-form.ts';
import { withClient } from './lib/infra.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = path.join(ROOT, 'bench', 'results');
const TARGET = { exportRatio: 0.4, rssGrowthMb: 150, listP99Ms: 50 };
const FIELDS = ['name', 'email', 'phone', 'company', 'subject', 'message', 'consent'];

const HELP = `Usage: node bench/submissions.ts [options]

  --rows N            submissions to seed (default 1000000)
  --runs N            export runs per target, alternating baseline / API (default 3)
  --requests N        sequential list requests per scenario (default 300)
  --page N            the deep page (default 10000; per_page is 25)
  --connections N     concurrent clients for the list "under load" numbers (default 4; 0 skips)
  --duration S        seconds per scenario under load (default 10)
  --only PART         run one part: export or list (the verdict then covers that part only)
  --cpu-prof          write a V8 CPU profile of the server (node --cpu-prof) and print where it goes
  --no-save           do not write bench/results/submissions-<date>.json
  --hold              when done, print the database URL and keep everything running until Ctrl-C
  --verbose           echo the server's output
Environment: DATABASE_URL (use that server: a fresh database is created on it and dropped afterwards).`;

// ---------------------------------------------------------------------------------------------------
// Process plumbing: everything started is undone on exit, Ctrl-C included
// ---------------------------------------------------------------------------------------------------

const cleanups: Array<{ name: string; run: () => Promise<void> | void }> = [];
const onCleanup = (name: string, run: () => Promise<void> | void) => cleanups.push({ name, run });
let interrupted = false;

async function cleanupAll(): Promise<void> {
  while (cleanups.length) {
    const c = cleanups.pop()!;
    try {
      await c.run();
    } catch (err) {
      console.error(`bench: cleanup "${c.name}" failed: ${(err as Error).message}`);
    }
  }
}

function checkInterrupted() {
  if (interrupted) throw new Error('interrupted');
}

const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;


type Server = { child: ChildProcess; pid: number; url: string; output: () => string; stop(): Promise<void> };

async function startServer(env: NodeJS.ProcessEnv, opts: { verbose: boolean; profileDir: string | null }): Promise<Server> {
  const port = await freePort();
  const child = spawn(path.join(ROOT, 'cli', 'intake'), ['serve', '--no-worker'], {
    cwd: ROOT,
    env: {
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      INTAKE_BASE_URL: `http://127.0.0.1:${port}`,
      ...(opts.profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${opts.profileDir}` } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      for (const line of chunk.split('\n').filter(Boolean)) {
        tail.push(line);
        if (tail.length > 40) tail.shift();
        if (opts.verbose) console.error(`[intake] ${line}`);
      }
    });
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  onCleanup('intake serve', stop);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`intake serve exited (${child.exitCode}):\n${tail.join('\n')}`);
    if (Date.now() > deadline) throw new Error(`intake serve not ready within 60 s:\n${tail.join('\n')}`);
    const ok = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false);
    if (ok) break;
    await sleep(100);
  }
  return { child, pid: child.pid!, url, output: () => tail.join('\n'), stop };
}

function procStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
}

/** Peak VmRSS of a process, sampled every 10 ms until stopped. */
function rssSampler(pid: number) {
  const before = procStatusKb(pid, 'VmRSS');
  let peak = before;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, procStatusKb(pid, 'VmRSS'));
    } catch {
      // exited
    }
  }, 10);
  return {
    stop() {
      clearInterval(timer);
      const after = procStatusKb(pid, 'VmRSS');
      peak = Math.max(peak, after);
      return { beforeMb: round(before / 1024), peakMb: round(peak / 1024), afterMb: round(after / 1024), growthMb: round((peak - before) / 1024) };
    },
  };
}

function withPath(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}


// ---------------------------------------------------------------------------------------------------
// Data
// ---------------------------------------------------------------------------------------------------

/** A team on the scale plan, its owner with an API token, a published form — through the domain functions. */
async function seedAccount(dbUrl: string, dataDir: string): Promise<{ teamId: string; formId: string; token: string }> {
  const config = loadConfig({ DATABASE_URL: dbUrl, INTAKE_DATA_DIR: dataDir, INTAKE_SECRET_KEY: 'bench', LOG_LEVEL: 'silent' });
  const rt = await boot(config, { http: false, worker: false, services: false, log: pino({ level: 'silent' }) });
  try {
    const team = await createTeam(rt.ctx, { name: 'Bench team', plan: 'scale' });
    const { user } = await addMember(rt.ctx, { email: 'owner@bench.example', name: 'Bench Owner', teamId: team.id, role: 'owner' });
    const { token } = await issueToken(rt.ctx, { teamId: team.id, userId: user.id, name: 'bench' });
    const caller: Caller = { userId: user.id, teamId: team.id, role: 'owner', tokenId: 'bench', abilities: [] };
    const form = await createForm(rt.ctx, caller, { name: 'Contact us', notification_emails: [] });
    await publishForm(rt.ctx, caller, form.id);
    return { teamId: team.id, formId: form.id, token };
  } finally {
    await rt.close();
  }
}

const SQL_ARRAY = (xs: string[]) => `array[${xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(', ')}]`;
const CATEGORIES = ['support', 'sales', 'partnership', 'bug-report', 'feature-request', 'feedback', 'other'];

/**
 * `rows` submissions for the form, oldest first (as they would have arrived), over the past year.
 * The per-row folder-count trigger is switched off for the bulk insert and the counters are written
 * from the inserted rows in the same transaction, so they match exactly what the trigger would keep.
 */
async function seedSubmissions(c: pg.Client, a: { teamId: string; formId: string; rows: number }): Promise<{ seconds: number }> {
  const started = performance.now();
  const chunk = 100_000;
  const stepUs = Math.floor((365 * 24 * 3600 * 1e6) / a.rows);
  await c.query('begin');
  await c.query('alter table submissions disable trigger user');
  for (let from = 1; from <= a.rows; from += chunk) {
    checkInterrupted();
    const to = Math.min(a.rows, from + chunk - 1);
    await c.query(
      `insert into submissions (id, team_id, form_id, status, spam_reason, category, ai_moderation, payload, metadata, received_at, updated_at)
       select 'subm_' || lpad(upper(to_hex(i)), 10, '0') || upper(substr(md5(i::text), 1, 16)), $1, $2,
              case when h % 25 = 0 then 'spam' when h % 97 = 1 then 'received' else 'processed' end,
              case when h % 25 = 0 then (array['honeypot_filled', 'ai_moderation', 'rule:keyword'])[1 + h % 3] end,
              case when h % 97 <> 1 then (${SQL_ARRAY(CATEGORIES)})[1 + (h / 7) % ${CATEGORIES.length}] end,
              case when h % 97 <> 1 then jsonb_build_object('score', round(((h / 11) % 100) / 100.0, 2),
                     'verdict', case when h % 25 = 0 then 'spam' else 'clean' end, 'reasons', '[]'::jsonb, 'provider', 'local') end,
              jsonb_build_object(
                'name', f || ' ' || l,
                'email', lower(f || '.' || l || '.' || i || '@example.com'),
                'phone', '+1 555 ' || (1000 + h % 9000),
                'company', (${SQL_ARRAY(COMPANIES)})[1 + (h / 13) % ${COMPANIES.length}],
                'subject', (${SQL_ARRAY(SUBJECTS)})[1 + (h / 17) % ${SUBJECTS.length}],
                'message', array_to_string(array[s[1 + (h / 19) % 8], s[1 + (h / 23) % 8], case when h % 3 > 0 then s[1 + (h / 29) % 8] end], ' '),
                'consent', 'yes'),
              jsonb_build_object('ip_hash', substr(md5('ip' || (h % 5000)), 1, 32), 'content_type', 'urlencoded',
                'user_agent', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
                'referrer', 'https://www.example.com/contact'),
              ts, ts
         from (select i, h, ${SQL_ARRAY(SENTENCES)} as s,
                      (${SQL_ARRAY(FIRST)})[1 + h % ${FIRST.length}] as f, (${SQL_ARRAY(LAST)})[1 + (h / 3) % ${LAST.length}] as l,
                      now() - interval '365 days' + make_interval(secs => (i::float8 * $3 + h % 1000000) / 1e6) as ts
                 from (select i, (i::bigint * 2654435761) % 4294967296 as h from generate_series($4::int, $5::int) i) g) x`,
      [a.teamId, a.formId, stepUs, from, to],
    );
    log(`seeded ${to.toLocaleString('en')} / ${a.rows.toLocaleString('en')} submissions`);
  }
  // What the triggers would have counted, compacted: live submissions per folder and day (one shard each).
  await c.query(
    `insert into form_folder_counts (form_id, folder, day, shard, n)
     select form_id, case when status = 'spam' then 'spam' else 'inbox' end, (received_at at time zone 'UTC')::date, 0, count(*)
       from submissions where form_id = $1 group by 1, 2, 3
     on conflict (form_id, folder, day, shard) do update set n = form_folder_counts.n + excluded.n`,
    [a.formId],
  );
  await c.query('alter table submissions enable trigger user');
  // What the search trigger would have kept (processed and spam rows are searchable; received ones not yet).
  log('computing the search column');
  await c.query(`update submissions set search = submission_search(payload, metadata) where form_id = $1 and status <> 'received'`, [a.formId]);
  // 0.5 % of the submissions have an uploaded file (the export links them, the list shows them).
  await c.query(
    `insert into submission_files (id, team_id, form_id, submission_id, field, filename, content_type, size_bytes, storage_key, created_at)
     select 'file_' || substr(s.id, 6), s.team_id, s.form_id, s.id, 'attachment', 'brief.pdf', 'application/pdf', 48213,
            'teams/' || s.team_id || '/forms/' || s.form_id || '/' || s.id || '/file_' || substr(s.id, 6), s.received_at
       from submissions s where s.form_id = $1 and ('x' || substr(md5(s.id), 1, 8))::bit(32)::int % 200 = 0`,
    [a.formId],
  );
  await c.query(
    `insert into form_fields (form_id, name, ordinal) select $1, name, ord from unnest($2::text[]) with ordinality as f(name, ord)
     on conflict do nothing`,
    [a.formId, FIELDS],
  );
  await c.query('commit');
  log('vacuum analyze (visibility map for index-only scans, fresh statistics)');
  await c.query('vacuum (analyze) submissions');
  await c.query('vacuum (analyze) submission_files');
  await c.query('vacuum (analyze) form_folder_counts');
  await c.query('checkpoint');
  return { seconds: round((performance.now() - started) / 1000) };
}

// ---------------------------------------------------------------------------------------------------
// Export: API vs COPY
// ---------------------------------------------------------------------------------------------------

type ExportRun = { seconds: number; rows: number; rowsPerSec: number; mb: number; firstByteMs: number };

function countNewlines(chunk: Buffer): number {
  let n = 0;
  for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) n++;
  return n;
}

/** `COPY (SELECT …) TO STDOUT WITH CSV` of the same rows and columns, through pg-copy-streams, discarded. */
async function copyBaseline(dbUrl: string, sql: string): Promise<ExportRun> {
  return withClient(dbUrl, async (c) => {
    const started = performance.now();
    let bytes = 0;
    let lines = 0;
    let firstByteMs = 0;
    for await (const chunk of c.query(copyTo(sql)) as AsyncIterable<Buffer>) {
      if (!firstByteMs) firstByteMs = performance.now() - started;
      bytes += chunk.length;
      lines += countNewlines(chunk);
    }
    const seconds = (performance.now() - started) / 1000;
    return { seconds: round(seconds, 3), rows: lines, rowsPerSec: Math.round(lines / seconds), mb: round(bytes / 1048576), firstByteMs: round(firstByteMs) };
  });
}

/** GET …/submissions/export?format=csv, read as fast as it comes and discarded (the header line is not a row). */
async function apiExport(server: Server, formId: string, token: string): Promise<ExportRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let bytes = 0;
    let lines = 0;
    let firstByteMs = 0;
    const req = http.get(`${server.url}/v1/forms/${formId}/submissions/export?format=csv`, { agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`export answered ${res.statusCode}`));
        res.resume();
        return;
      }
      res.on('data', (chunk: Buffer) => {
        if (!firstByteMs) firstByteMs = performance.now() - started;
        bytes += chunk.length;
        lines += countNewlines(chunk);
      });
      res.on('end', () => {
        const seconds = (performance.now() - started) / 1000;
        const rows = lines - 1;
        resolve({ seconds: round(seconds, 3), rows, rowsPerSec: Math.round(rows / seconds), mb: round(bytes / 1048576), firstByteMs: round(firstByteMs) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

// ---------------------------------------------------------------------------------------------------
// List latency
// ---------------------------------------------------------------------------------------------------

type Latency = { requests: number; p50: number; p90: number; p99: number; max: number; avg: number };

function percentiles(ms: number[]): Latency {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => round(s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!, 2);
  return { requests: s.length, p50: at(50), p90: at(90), p99: at(99), max: round(s[s.length - 1]!, 2), avg: round(s.reduce((a, b) => a + b, 0) / s.length, 2) };
}

type Page = { data: Array<{ id: string }>; meta: { total: number; current_page: number; next_cursor: string | null } };

async function getPage(url: string, token: string): Promise<{ ms: number; page: Page }> {
  const started = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${body.slice(0, 300)}`);
  return { ms, page: JSON.parse(body) as Page };
}

async function sequential(url: string, token: string, n: number): Promise<Latency> {
  for (let i = 0; i < 20; i++) await getPage(url, token); // warm-up
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    checkInterrupted();
    ms.push((await getPage(url, token)).ms);
  }
  return percentiles(ms);
}

async function concurrent(url: string, token: string, connections: number, seconds: number): Promise<Latency & { reqPerSec: number }> {
  const ms: number[] = [];
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until && !interrupted) ms.push((await getPage(url, token)).ms);
    }),
  );
  return { ...percentiles(ms), reqPerSec: Math.round(ms.length / seconds) };
}

// ---------------------------------------------------------------------------------------------------
// Query plans (the SQL the domain runs, reproduced here; see server/domain/submissions.ts, submission-export.ts)
// ---------------------------------------------------------------------------------------------------

async function explain(c: pg.Client, sql: string, params: unknown[] = []): Promise<{ executionMs: number; plan: string[] }> {
  const { rows } = await c.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers, timing off) ${sql}`, params);
  const plan = rows.map((r) => r['QUERY PLAN']);
  const executionMs = Number(/Execution Time: ([\d.]+) ms/.exec(plan.join('\n'))?.[1] ?? NaN);
  return { executionMs, plan };
}

// ---------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const parsed = parseArgs({
    options: {
      rows: { type: 'string', default: '1000000' },
      runs: { type: 'string', default: '3' },
      requests: { type: 'string', default: '300' },
      page: { type: 'string', default: '10000' },
      connections: { type: 'string', default: '4' },
      duration: { type: 'string', default: '10' },
      only: { type: 'string' },
      'cpu-prof': { type: 'boolean', default: false },
      'no-save': { type: 'boolean', default: false },
      hold: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const { values } = parsed;
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const int = (s: string, name: string, min = 1) => {
    const n = Number(s);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}`);
    return n;
  };
  const opts = {
    rows: int(values.rows, 'rows', 1000),
    runs: int(values.runs, 'runs'),
    requests: int(values.requests, 'requests', 10),
    page: int(values.page, 'page'),
    connections: int(values.connections, 'connections', 0),
    duration: int(values.duration, 'duration'),
    only: (values.only ?? null) as 'export' | 'list' | null,
    cpuProf: values['cpu-prof'],
    hold: values.hold,
    verbose: values.verbose,
  };
  if (opts.only !== null && opts.only !== 'export' && opts.only !== 'list') throw new Error('--only must be export or list');
  const report = await runBench(opts);
  print(report);
  if (!values['no-save']) {
    fs.mkdirSync(RESULTS, { recursive: true });
    const day = new Date().toISOString().slice(0, 10);
    let file = path.join(RESULTS, `submissions-${day}.json`);
    for (let n = 2; fs.existsSync(file); n++) file = path.join(RESULTS, `submissions-${day}-${n}.json`);
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`\nresults: ${path.relative(process.cwd(), file)}`);
  }
  return 0;
}

type Options = {
  rows: number;
  runs: number;
  requests: number;
  page: number;
  connections: number;
  duration: number;
  only: 'export' | 'list' | null;
  cpuProf: boolean;
  hold: boolean;
  verbose: boolean;
};

async function runBench(opts: Options) {
  const perPage = 25;
  if (opts.page * perPage > opts.rows * 0.9) throw new Error(`--page ${opts.page} is beyond the inbox of ${opts.rows} rows`);
  const notes: string[] = [];

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-bench-subm-'));
  fs.chmodSync(dir, 0o755); // the postgres user (when we are root) must reach the cluster inside it
  onCleanup(`remove ${dir}`, () => fs.rmSync(dir, { recursive: true, force: true }));

  // Database: DATABASE_URL (a fresh database on it) or an embedded Postgres in a fresh cluster.
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    log('starting an embedded Postgres in a fresh cluster');
    const embedded = await startEmbeddedPostgres(path.join(dir, 'pg'), opts.verbose ? log : () => {});
    onCleanup('embedded Postgres', () => embedded.stop());
    serverUrl = embedded.url;
  }
  const dbName = `intake_bench_subm_${process.pid}`;
  await ensureDatabase(withPath(serverUrl, 'postgres'), dbName);
  if (process.env.DATABASE_URL) {
    onCleanup(`drop database ${dbName}`, () => withClient(withPath(serverUrl!, 'postgres'), (c) => c.query(`drop database if exists "${dbName}" with (force)`)).then(() => {}));
  }
  const dbUrl = withPath(serverUrl, dbName);
  const s3 = await startEmbeddedS3(dir, 'intake-bench');
  onCleanup('embedded S3', () => s3.stop());

  log('migrating; creating a team, an owner with a token and a published form');
  const account = await seedAccount(dbUrl, path.join(dir, 'seed'));
  const admin = new pg.Client({ connectionString: dbUrl });
  await admin.connect();
  onCleanup('admin connection', () => admin.end());
  log(`seeding ${opts.rows.toLocaleString('en')} submissions`);
  const seeded = await seedSubmissions(admin, { ...account, rows: opts.rows });
  const stats = (
    await admin.query(
      `select count(*)::int as rows, count(*) filter (where status <> 'spam')::int as inbox,
              round(avg(pg_column_size(payload)))::int as payload_bytes, round(avg(length(payload::text)))::int as payload_text_bytes,
              pg_size_pretty(pg_total_relation_size('submissions')) as table_size,
              (select count(*)::int from submission_files where form_id = $1) as files,
              (select sum(n)::int from form_folder_counts where form_id = $1 and folder = 'inbox') as counted_inbox
         from submissions where form_id = $1`,
      [account.formId],
    )
  ).rows[0] as { rows: number; inbox: number; payload_bytes: number; payload_text_bytes: number; table_size: string; files: number; counted_inbox: number };
  if (stats.counted_inbox !== stats.inbox) throw new Error(`folder counters (${stats.counted_inbox}) disagree with the inbox (${stats.inbox})`);
  log(`seeded in ${seeded.seconds} s: ${JSON.stringify(stats)}`);

  const profileDir = opts.cpuProf ? path.join(dir, 'profiles') : null;
  const server = await startServer(
    {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: dbUrl,
      STORAGE_URL: s3.url,
      STORAGE_BUCKET: 'intake-bench',
      INTAKE_DATA_DIR: path.join(dir, 'intake'),
      INTAKE_SECRET_KEY: 'bench',
      INTAKE_API_RATE_LIMIT: '1000000000',
      INTAKE_API_TEAM_RATE_LIMIT: '1000000000',
      LOG_LEVEL: 'warn',
    },
    { verbose: opts.verbose, profileDir },
  );
  const probe = await getPage(`${server.url}/v1/forms/${account.formId}/submissions?per_page=${perPage}`, account.token);
  if (probe.page.meta.total !== stats.inbox) throw new Error(`the API counts ${probe.page.meta.total} inbox submissions, the table ${stats.inbox}`);
  const idleRssMb = round(procStatusKb(server.pid, 'VmRSS') / 1024);

  const fields = (await admin.query<{ name: string }>('select name from form_fields where form_id = $1 order by first_seen_at, ordinal, name', [account.formId])).rows.map((r) => r.name);
  const ctx = { opts, perPage, dbUrl, admin, server, account, fields, stats, idleRssMb, notes };
  const exported = opts.only === 'list' ? null : await measureExport(ctx);
  const list = opts.only === 'export' ? null : await measureList(ctx);
  const cpuProfile = await stopAndProfile(server, profileDir);
  if (opts.hold) {
    log(`holding the database for inspection (Ctrl-C stops and cleans up): ${dbUrl}`);
    while (!interrupted) await new Promise((resolve) => setTimeout(resolve, 500));
  }

  const verdict = {
    exportRatio: exported ? exported.ratio >= TARGET.exportRatio : null,
    rssGrowth: exported ? exported.server.rssGrowthMb < TARGET.rssGrowthMb : null,
    listP99: list ? Object.values(list.scenarios).every((s) => s.sequential.p99 < TARGET.listP99Ms) && list.cursorMatchesOffsetPage : null,
    met: false,
  };
  verdict.met = verdict.exportRatio !== false && verdict.rssGrowth !== false && verdict.listP99 !== false;
  return {
    benchmark: 'submissions',
    date: new Date().toISOString(),
    command: ['node bench/submissions.ts', ...process.argv.slice(2)].join(' '),
    git: gitInfo(),
    machine: {
      node: process.version,
      cpus: os.availableParallelism(),
      cpuModel: os.cpus()[0]?.model ?? '',
      memoryGiB: round(os.totalmem() / 2 ** 30),
      /** Other work on the machine skews every number here: compare ratios from the same run. */
      loadAverage: os.loadavg().map((x) => round(x, 2)),
    },
    postgres: { kind: process.env.DATABASE_URL ? 'external' : 'embedded', version: (await admin.query('show server_version')).rows[0].server_version as string },
    options: opts,
    data: { ...stats, seedSeconds: seeded.seconds, fields },
    export: exported,
    list,
    cpuProfile,
    goal: TARGET,
    verdict,
    notes,
  };
}

type BenchContext = {
  opts: Options;
  perPage: number;
  dbUrl: string;
  admin: pg.Client;
  server: Server;
  account: { teamId: string; formId: string; token: string };
  fields: string[];
  stats: { files: number };
  idleRssMb: number;
  notes: string[];
};

/** Alternating runs of the COPY baseline and the API export; the medians are compared. */
async function measureExport(c: BenchContext) {
  const { opts, admin, account, fields, server } = c;
  const lit = (v: string) => admin.escapeLiteral(v);
  const baselineSelect = `select s.id, s.received_at, s.status, s.category, s.ai_moderation ->> 'score', ${fields.map((f) => `s.payload ->> ${lit(f)}`).join(', ')}
    from submissions s where s.form_id = ${lit(account.formId)} order by s.received_at, s.id`;
  const baselineSql = `copy (${baselineSelect}) to stdout with (format csv)`;
  const runs: Array<{ run: number; baseline: ExportRun; api: ExportRun & { rss: ReturnType<ReturnType<typeof rssSampler>['stop']> } }> = [];
  for (let run = 1; run <= opts.runs; run++) {
    checkInterrupted();
    const baseline = await copyBaseline(c.dbUrl, baselineSql);
    if (baseline.rows !== opts.rows) throw new Error(`COPY returned ${baseline.rows} rows, expected ${opts.rows}`);
    log(`export run ${run}: COPY ${baseline.rowsPerSec.toLocaleString('en')} rows/s (${baseline.seconds} s, ${baseline.mb} MB)`);
    const sampler = rssSampler(server.pid);
    const api = await apiExport(server, account.formId, account.token);
    const rss = sampler.stop();
    if (api.rows !== opts.rows) throw new Error(`the API export returned ${api.rows} rows, expected ${opts.rows}`);
    log(`export run ${run}: API  ${api.rowsPerSec.toLocaleString('en')} rows/s (${api.seconds} s, ${api.mb} MB), server RSS ${rss.beforeMb} → peak ${rss.peakMb} MB (+${rss.growthMb})`);
    runs.push({ run, baseline, api: { ...api, rss } });
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  const baselineRowsPerSec = Math.round(median(runs.map((r) => r.baseline.rowsPerSec)));
  const apiRowsPerSec = Math.round(median(runs.map((r) => r.api.rowsPerSec)));
  const peakRssMb = Math.max(...runs.map((r) => r.api.rss.peakMb));
  // The queries alone (EXPLAIN ANALYZE, no output): what the API's SQL costs Postgres over the baseline's.
  await admin.query(`select set_config('intake.link_key', $1, false)`, [Buffer.alloc(32, 7).toString('hex')]); // only changes the signatures' bytes
  const plans = {
    baselineSelect: await explain(admin, baselineSelect),
    apiSelect: await explain(
      admin,
      exportSelect('csv', {
        formId: account.formId,
        fields,
        fileCount: c.stats.files,
        baseUrl: server.url,
        expires: Math.floor(Date.now() / 1000) + 7 * 24 * 3600,
      }),
    ),
  };
  return {
    baselineDescription:
      'COPY (SELECT id, received_at, status, category, ai_moderation->>score, payload->>field for each known field FROM submissions WHERE form_id = … ORDER BY received_at, id) TO STDOUT WITH CSV, read through pg-copy-streams and discarded',
    runs,
    baselineRowsPerSec,
    apiRowsPerSec,
    ratio: round(apiRowsPerSec / baselineRowsPerSec, 3),
    server: { idleRssMb: c.idleRssMb, peakRssMb, rssGrowthMb: round(peakRssMb - c.idleRssMb), vmHwmMb: round(procStatusKb(server.pid, 'VmHWM') / 1024) },
    plans,
  };
}

/** Page 1, page N by offset and page N by cursor (reached by following next_cursor once). */
async function measureList(c: BenchContext) {
  const { opts, perPage, account, server } = c;
  const base = `${server.url}/v1/forms/${account.formId}/submissions`;
  log(`following next_cursor from page 1 to page ${opts.page.toLocaleString('en')} (per_page=${perPage})`);
  const walkStarted = performance.now();
  const walkMs: number[] = [];
  let cursor: string | null = null;
  let seen = 0;
  for (let p = 1; p < opts.page; p++) {
    checkInterrupted();
    const r: { ms: number; page: Page } = await getPage(`${base}?per_page=${perPage}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, account.token);
    walkMs.push(r.ms);
    seen += r.page.data.length;
    cursor = r.page.meta.next_cursor;
    if (!cursor) throw new Error(`next_cursor ran out on page ${p}`);
    if (p % 2000 === 0) log(`  … page ${p.toLocaleString('en')}`);
  }
  const walk = { pages: opts.page - 1, rows: seen, seconds: round((performance.now() - walkStarted) / 1000), latency: percentiles(walkMs) };
  const byCursor = await getPage(`${base}?per_page=${perPage}&cursor=${encodeURIComponent(cursor!)}`, account.token);
  const byOffset = await getPage(`${base}?per_page=${perPage}&page=${opts.page}`, account.token);
  const sameRows = JSON.stringify(byCursor.page.data.map((s) => s.id)) === JSON.stringify(byOffset.page.data.map((s) => s.id));
  if (!sameRows) c.notes.push(`the cursor page after ${opts.page - 1} pages differs from ?page=${opts.page}`);

  // Full-text search (issue 14), one word each: a unique address (one match), a last name (1 in 12 rows),
  // and the same name as a prefix.
  const [rare] = (await c.admin.query<{ email: string }>(`select payload->>'email' as email from submissions where form_id = $1 and status <> 'spam' order by received_at limit 1 offset 123456`, [account.formId])).rows;
  const scenarios: Record<string, string> = {
    page1: `${base}?per_page=${perPage}`,
    [`page${opts.page}`]: `${base}?per_page=${perPage}&page=${opts.page}`,
    cursorDeep: `${base}?per_page=${perPage}&cursor=${encodeURIComponent(cursor!)}`,
    searchAddress: `${base}?per_page=${perPage}&q=${encodeURIComponent(rare!.email)}`,
    searchName: `${base}?per_page=${perPage}&q=tanaka`,
    searchPrefix: `${base}?per_page=${perPage}&q=tana`,
  };
  const results: Record<string, { url: string; sequential: Latency; concurrent: (Latency & { reqPerSec: number }) | null }> = {};
  for (const [name, url] of Object.entries(scenarios)) {
    checkInterrupted();
    const seq = await sequential(url, account.token, opts.requests);
    log(`list ${name}: sequential p50 ${seq.p50} ms, p99 ${seq.p99} ms (${seq.requests} requests)`);
    const conc = opts.connections ? await concurrent(url, account.token, opts.connections, opts.duration) : null;
    if (conc) log(`list ${name}: ${opts.connections} clients p50 ${conc.p50} ms, p99 ${conc.p99} ms, ${conc.reqPerSec} req/s`);
    results[name] = { url: url.replace(server.url, ''), sequential: seq, concurrent: conc };
  }

  // The page queries exactly as listSubmissions runs them (server/db/queries/submissions.ts).
  const inbox = { formId: account.formId, folder: 'inbox' as const };
  const listPlan = (page: PageSpec) => {
    const q = listPageQuery(inbox, page);
    return explain(c.admin, q.text, q.values);
  };
  const [cursorTs, cursorId] = JSON.parse(Buffer.from(cursor!, 'base64url').toString('utf8')) as [string, string];
  const plans = {
    page1: await listPlan({ limit: perPage + 1, offset: 0 }),
    deepPage: await listPlan({ limit: perPage + 1, offset: (opts.page - 1) * perPage }),
    cursor: await listPlan({ limit: perPage + 1, offset: 0, after: [cursorTs, cursorId] }),
    // The two ways searchPage takes (server/db/queries/submissions.ts): a common word within the newest
    // rows, with its capped count; a rare one (an address) through the GIN index.
    searchNameWindow: await explain(
      c.admin,
      `with recent as materialized (select s.id, s.received_at, s.search from submissions s where s.form_id = $1 and s.status <> 'spam'
         order by s.received_at desc, s.id desc limit 5000)
       select r.id from recent r where r.search @@ submission_search_query($2) order by r.received_at desc, r.id desc limit ${perPage + 1}`,
      [account.formId, 'tanaka'],
    ),
    searchNameCount: await explain(
      c.admin,
      `select count(*) from (select 1 from submissions s where s.form_id = $1 and s.status <> 'spam' and s.search @@ submission_search_query($2)
         order by s.received_at desc, s.id desc limit 1001) m`,
      [account.formId, 'tanaka'],
    ),
    searchAddress: await explain(
      c.admin,
      `with matches as materialized (select s.id, s.received_at from submissions s where s.form_id = $1 and s.status <> 'spam' and s.search @@ submission_search_query($2))
       select m.id from matches m order by m.received_at desc, m.id desc limit ${perPage + 1}`,
      [account.formId, rare!.email],
    ),
  };
  return { perPage, deepPage: opts.page, walk, cursorMatchesOffsetPage: sameRows, scenarios: results, plans };
}

function gitInfo(): { commit: string | null; dirty: boolean | null } {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, stdio: 'pipe' }).toString().trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'server', 'contract', 'cli'], { cwd: ROOT, stdio: 'pipe' }).toString().trim().length > 0;
    return { commit, dirty };
  } catch {
    return { commit: null, dirty: null };
  }
}

/** Stops the server; with --cpu-prof, sums the profile's self time by function (top 20). */
async function stopAndProfile(server: Server, profileDir: string | null) {
  await server.stop();
  if (!profileDir || !fs.existsSync(profileDir)) return null;
  const file = fs.readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) return null;
  type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number } };
  const prof = JSON.parse(fs.readFileSync(path.join(profileDir, file), 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  prof.samples.forEach((id, i) => {
    const dt = prof.timeDeltas[i] ?? 0;
    const n = byId.get(id)!;
    const where = n.callFrame.url ? `${n.callFrame.url.replace(`file://${ROOT}/`, '').replace(/^.*node_modules\//, '')}:${n.callFrame.lineNumber + 1}` : '';
    const key = `${n.callFrame.functionName || '(anonymous)'} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  });
  const busy = total - (self.get('(idle)') ?? 0);
  self.delete('(idle)');
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 20).map(([fn, us]) => ({ fn, ms: Math.round(us / 1000), pct: round((100 * us) / busy) }));
  const kept = path.join(os.tmpdir(), `intake-bench-submissions-${process.pid}.cpuprofile`);
  fs.copyFileSync(path.join(profileDir, file), kept);
  return { file: kept, totalMs: Math.round(total / 1000), busyMs: Math.round(busy / 1000), top };
}

type Report = Awaited<ReturnType<typeof runBench>>;

function print(r: Report) {
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  const ok = (b: boolean | null) => (b === null ? 'not run' : b ? 'met' : 'MISSED');
  console.log(`\nSubmissions benchmark — ${r.data.rows.toLocaleString('en')} submissions (${r.data.inbox.toLocaleString('en')} inbox), payload ~${r.data.payload_text_bytes} B JSON, table ${r.data.table_size}`);
  console.log(`command: ${r.command}   (load average at the end: ${r.machine.loadAverage.join(' ')})`);
  const e = r.export;
  if (e) {
    console.log('\nCSV export of every row');
    console.log(`  ${'run'.padEnd(5)}${pad('COPY rows/s', 14)}${pad('API rows/s', 14)}${pad('ratio', 8)}${pad('API s', 8)}${pad('MB', 8)}${pad('RSS +MB', 9)}`);
    for (const run of e.runs) {
      console.log(
        `  ${String(run.run).padEnd(5)}${pad(run.baseline.rowsPerSec.toLocaleString('en'), 14)}${pad(run.api.rowsPerSec.toLocaleString('en'), 14)}` +
          `${pad((run.api.rowsPerSec / run.baseline.rowsPerSec).toFixed(3), 8)}${pad(run.api.seconds, 8)}${pad(run.api.mb, 8)}${pad(run.api.rss.growthMb, 9)}`,
      );
    }
    console.log(
      `  median: COPY ${e.baselineRowsPerSec.toLocaleString('en')} rows/s, API ${e.apiRowsPerSec.toLocaleString('en')} rows/s → ` +
        `ratio ${e.ratio} (target ≥ ${r.goal.exportRatio}: ${ok(r.verdict.exportRatio)})`,
    );
    console.log(
      `  server RSS: idle ${e.server.idleRssMb} MB, peak ${e.server.peakRssMb} MB → growth ${e.server.rssGrowthMb} MB ` +
        `(target < ${r.goal.rssGrowthMb}: ${ok(r.verdict.rssGrowth)}); VmHWM ${e.server.vmHwmMb} MB`,
    );
    console.log(`  the queries alone (EXPLAIN ANALYZE): baseline ${e.plans.baselineSelect.executionMs} ms, API ${e.plans.apiSelect.executionMs} ms`);
  }
  const l = r.list;
  if (l) {
    console.log(`\nList latency (per_page=${l.perPage}), ms`);
    console.log(`  ${'scenario'.padEnd(14)}${pad('p50', 8)}${pad('p90', 8)}${pad('p99', 8)}${pad('max', 8)}   ${'concurrent clients: p50 / p99 / req/s'}`);
    for (const [name, s] of Object.entries(l.scenarios)) {
      const q = s.sequential;
      const c = s.concurrent ? `${s.concurrent.p50} / ${s.concurrent.p99} / ${s.concurrent.reqPerSec} (${r.options.connections} clients)` : '-';
      console.log(`  ${name.padEnd(14)}${pad(q.p50, 8)}${pad(q.p90, 8)}${pad(q.p99, 8)}${pad(q.max, 8)}   ${c}`);
    }
    console.log(
      `  cursor walk to page ${l.deepPage.toLocaleString('en')}: ${l.walk.pages.toLocaleString('en')} requests in ${l.walk.seconds} s ` +
        `(p50 ${l.walk.latency.p50} ms, p99 ${l.walk.latency.p99} ms); same rows as ?page=${l.deepPage}: ${l.cursorMatchesOffsetPage}`,
    );
    console.log(`  sequential p99 < ${r.goal.listP99Ms} ms: ${ok(r.verdict.listP99)}`);
    console.log(`  the queries alone (EXPLAIN ANALYZE): page 1 ${l.plans.page1.executionMs} ms, page ${l.deepPage} ${l.plans.deepPage.executionMs} ms, cursor ${l.plans.cursor.executionMs} ms`);
  }
  if (r.cpuProfile) {
    console.log(`\nServer CPU profile (${r.cpuProfile.file}): ${r.cpuProfile.busyMs} ms busy of ${r.cpuProfile.totalMs} ms; top self time (% of busy):`);
    for (const f of r.cpuProfile.top.slice(0, 15)) console.log(`  ${pad(f.pct, 5)} %  ${pad(f.ms, 6)} ms  ${f.fn}`);
  }
  for (const n of r.notes) console.log(`note: ${n}`);
  console.log(`\nall targets met: ${r.verdict.met}`);
}

process.on('SIGINT', () => {
  if (interrupted) process.exit(130);
  interrupted = true;
  log('interrupted, cleaning up (again to force)');
});
process.on('SIGTERM', () => {
  interrupted = true;
});

main().then(
  async (code) => {
    await cleanupAll();
    process.exit(code);
  },
  async (err: unknown) => {
    console.error(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    await cleanupAll();
    process.exit(interrupted ? 130 : 1);
  },
);
