/**
 * Noisy neighbour (issue #25, "Prove it under attack"): `node bench/noisy-neighbour.ts [options]`.
 *
 * One `intake serve` process tree (API and worker, default DATABASE_POOL_SIZE=10) shared by two teams.
 * Team B is an ordinary tenant: visitors post to its published form, its integration lists its
 * submissions (bench/lib/tenant-load.ts), and its webhook gets each submission (timed from the post's answer
 * to the receiver, reported beside the verdict; both teams' webhooks reach one receiver, bench/lib/receiver-process.ts,
 * a process of its own). Team A does the worst it can with a viewer token, plus its editor
 * token for bulk replays, which a viewer may not start, and its owner token for erasures, which only an owner
 * or admin may ask for (bench/lib/noisy-attacker.ts, a process of its own).
 *
 *  1. Warm-up: team B's load alone (not measured).
 *  2. Quiet run: team B alone for --duration seconds.
 *  3. Noisy run: team A's attack is started and under way (its exports answered, its MCP sessions
 *     opened, its replays and erasure jobs queued), then a warm-up as in 1 (A keeps on), then the same team B load for
 *     --duration seconds while A keeps on.
 *
 * Target: team B has 0 errors in the noisy run (non-2xx or no answer) and the p99 of its posts and of its
 * lists each stays within 2× of the quiet run's. The verdict is printed; the exit code is 0 whatever it is
 * (1 only when the setup fails). Prints the report and writes bench/results/noisy-neighbour-<date>.json
 * (`--no-save` to skip).
 */
import { execFileSync, fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { pino } from 'pino';
import { loadConfig } from '../server/config.ts';
import type { Caller } from '../server/domain/accounts/caller.ts';
import { createForm, publishForm } from '../server/domain/forms/forms.ts';
import { createTeam } from '../server/domain/accounts/teams.ts';
import { issueToken } from '../server/domain/accounts/tokens.ts';
import { addMember } from '../server/domain/accounts/users.ts';
import { createWebhook } from '../server/domain/webhooks/webhooks.ts';
import { boot } from '../server/main.ts';
import { cleanupAll, installSignalHandlers, onCleanup } from './lib/cleanup.ts';
import { COMPANIES, FIRST, LAST, SENTENCES, SUBJECTS } from './lib/contact-form.ts';
import { scratchDir, startDatabase, startStorage, withClient } from './lib/infra.ts';
import { resetStatements, topStatements } from './lib/pg-stats.ts';
import type { AttackOptions, AttackReport } from './lib/noisy-attacker.ts';
import { diskBetween, diskReading, type DiskReading } from './lib/disk-stats.ts';
import { cpuMs, freePort, startChild, treeCpuMs, waitForHttp } from './lib/processes.ts';
import { runtimeBetween, scrapeRuntime, type RuntimeReport } from './lib/server-runtime.ts';
import { WalTimeline } from './lib/wal-timeline.ts';
import {
  quantile,
  type Accepted,
  type LatencyStats,
  type TenantLoadOptions,
  type TenantLoadResult,
} from './lib/tenant-load.ts';

/** The attacker process's CPU priority (nice): below the service's and B's load generator's (0). */
const ATTACKER_NICE = 10;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const INTAKE = path.join(ROOT, 'cli', 'intake');
const ATTACKER = path.join(ROOT, 'bench', 'lib', 'noisy-attacker.ts');
const RECEIVER = path.join(ROOT, 'bench', 'lib', 'receiver-process.ts');
const TENANT_LOAD = path.join(ROOT, 'bench', 'lib', 'tenant-load-process.ts');
const TARGET = { errors: 0, p99Ratio: 2 };
/** One of team A's MCP reads in this many is abandoned this soon: a client that goes away while it waits. */
const MCP_READ_ABORT_EVERY = 4;
const MCP_READ_ABORT_MS = 50;
/** A large submission: this many fields of this many md5 hex digests (~60 KB each, ~1 MB in all), which compress poorly. */
const LARGE_FIELDS = 16;
const LARGE_FIELD_DIGESTS = 1875;
/** The server's /metrics token: the report reads its GC and event-loop figures (bench/lib/server-runtime.ts). */
const METRICS_TOKEN = `noisy-metrics-${process.pid}`;
const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);

const { values: opts } = parseArgs({
  options: {
    duration: { type: 'string', default: '240' },
    warmup: { type: 'string', default: '5' },
    rows: { type: 'string', default: '50000' },
    deliveries: { type: 'string', default: '10000' },
    posters: { type: 'string', default: '20' },
    'post-interval': { type: 'string', default: '250' },
    listers: { type: 'string', default: '5' },
    'list-interval': { type: 'string', default: '600' },
    exports: { type: 'string', default: '9' },
    'export-hold': { type: 'string', default: '45' },
    'mcp-sessions': { type: 'string', default: '50' },
    'no-mcp-streams': { type: 'boolean', default: false },
    replays: { type: 'string', default: '3' },
    searchers: { type: 'string', default: '4' },
    'deep-bodies': { type: 'string', default: '30' },
    'mcp-reads': { type: 'string', default: '8' },
    erasures: { type: 'string', default: '4' },
    'erasure-jobs': { type: 'string', default: '100' },
    'large-rows': { type: 'string', default: '300' },
    'schema-readers': { type: 'string', default: '4' },
    'delivery-grace': { type: 'string', default: '30' },
    workers: { type: 'string', default: '0' },
    env: { type: 'string', multiple: true, default: [] },
    'no-save': { type: 'boolean', default: false },
    'no-settle': { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    'pg-stats': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (opts.help) {
  console.log(`node bench/noisy-neighbour.ts [options]
  --duration S        seconds of team B's load in each of the quiet and noisy runs (default 240: ~2,000 lists, so their p99 is
                      the 20th slowest, set by twice as many of the rare moments the server keeps a core busy as at 120 s,
                      whose p99 moved ×1.9 between runs of the same code; each run holds the server's major GCs)
  --warmup S          seconds of team B's load before each run, not measured (default 5; before the noisy run, with A's attack under way)
  --rows N            submissions seeded in team A's big form, ~1 KB each (default 50000)
  --deliveries N      delivered webhook deliveries seeded for A's webhook, what a replay sends again (default 10000)
  --posters P         team B's visitors posting at once (default 20)
  --post-interval MS  each visitor posts once per MS (default 250, 80 posts/s in all; 0 = back to back)
  --listers L         team B's API clients listing submissions, one token each (default 5)
  --list-interval MS  each lister lists once per MS (default 600, inside the 120/min per-token budget)
  --exports N         team A's slow-reading exports at once (default 9)
  --export-hold S     an export served is held this long, then reopened (default 45, below the 60 s idle cut-off)
  --mcp-sessions N    MCP sessions team A opens (default 50)
  --no-mcp-streams    do not hold a GET event stream open per session
  --replays N         bulk replays of A's webhook, with A's editor token (default 3)
  --searchers N       team A's concurrent searches, each on a token A mints (default 4)
  --deep-bodies N     unauthenticated 1 MB deeply nested bodies to /mcp in flight at once (default 30)
  --mcp-reads N       team A's stateless MCP resources/read loops, each on a token the viewer mints, back to back; every
                      ${MCP_READ_ABORT_EVERY}th read is abandoned after ${MCP_READ_ABORT_MS} ms (default 8)
  --erasures N        erasure dry-run loops with A's owner token, back to back (default 4)
  --erasure-jobs N    real erasure requests (of addresses no submission holds) A's owner queues as the attack starts (default 100)
  --large-rows N      submissions seeded in team A's second form, ~1 MB of hex text each (default 300)
  --schema-readers N  team A's loops asking the second form's suggested schema, each on a token the viewer mints (default 4)
  --delivery-grace S  after each run, time team B's deliveries have to reach the receiver (default 30)
  --workers N         0: one \`intake serve\` runs the API and the workers (the default, as \`make dev\`); N: \`serve --no-worker\`
                      and N \`intake worker\` processes, the production deployment's shape (compose.yaml)
  --env NAME=VALUE    extra setting for intake serve (repeatable), e.g. DATABASE_POOL_SIZE=20
  --no-settle         skip the checkpoint and sync after seeding (the seed's dirty pages then reach the disk during the runs)
  --no-save           do not write bench/results/noisy-neighbour-<date>.json
  --verbose           echo the server's and the attacker's output
  --pg-stats          report the statements Postgres spent most time on in each run (pg_stat_statements)
Environment: DATABASE_URL (use that server: a fresh database is created on it and dropped afterwards).`);
  process.exit(0);
}

const num = (name: keyof typeof opts) => {
  const n = Number(opts[name]);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a number ≥ 0`);
  return n;
};

const sql = (xs: readonly string[]) => `array[${xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(', ')}]`;

type Setup = {
  a: {
    teamId: string;
    formId: string;
    largeFormId: string;
    webhookId: string;
    viewerToken: string;
    editorToken: string;
    ownerToken: string;
  };
  b: { teamId: string; formId: string; listTokens: string[] };
};

/** Both teams through the domain functions; A's submissions and past deliveries by SQL (tens of thousands). */
async function setup(env: NodeJS.ProcessEnv, receiverUrl: string): Promise<Setup> {
  // No statement timeout: each seed is one statement of tens or hundreds of megabytes, which a busy machine takes over 30 s to write.
  const rt = await boot(loadConfig({ ...env, DATABASE_POOL_SIZE: '4', DATABASE_STATEMENT_TIMEOUT_MS: '0' }), {
    http: false,
    worker: false,
    services: true,
    log: pino({ level: 'silent' }),
  });
  try {
    const member = async (teamId: string, role: 'owner' | 'editor' | 'viewer', tag: string) =>
      (await addMember(rt.ctx, { email: `${role}-${tag}@noisy.example`, name: `${role} ${tag}`, teamId, role })).user;

    // Team A: a big form with a webhook (to a receiver of the bench's own) and members of three roles.
    const teamA = await createTeam(rt.ctx, { name: 'Team A (noisy)', plan: 'scale' });
    const ownerA = await member(teamA.id, 'owner', 'a');
    const viewerA = await member(teamA.id, 'viewer', 'a');
    const editorA = await member(teamA.id, 'editor', 'a');
    const callerA: Caller = {
      userId: ownerA.id,
      teamId: teamA.id,
      role: 'owner',
      tokenId: 'noisy-bench',
      abilities: [],
    };
    const formA = await createForm(rt.ctx, callerA, { name: 'Everything we ever got', notification_emails: [] });
    await publishForm(rt.ctx, callerA, formA.id);
    const hook = await createWebhook(rt.ctx, callerA, formA.id, {
      label: 'Team A receiver',
      url: `${receiverUrl}/a`,
      provider: 'webhook',
      config: {},
      events: ['submission.created'],
      active: true,
    });
    const viewerToken = (await issueToken(rt.ctx, { teamId: teamA.id, userId: viewerA.id, name: 'viewer' })).token;
    const editorToken = (await issueToken(rt.ctx, { teamId: teamA.id, userId: editorA.id, name: 'editor' })).token;
    const ownerToken = (await issueToken(rt.ctx, { teamId: teamA.id, userId: ownerA.id, name: 'owner' })).token;

    const rows = num('rows');
    const started = performance.now();
    await rt.ctx.db.query(
      `insert into submissions (id, team_id, form_id, status, payload, received_at, updated_at)
       select 'subm_noisy' || lpad(i::text, 20, '0'), $1, $2, 'processed',
              jsonb_build_object(
                'name', (${sql(FIRST)})[1 + i % ${FIRST.length}] || ' ' || (${sql(LAST)})[1 + (i / 7) % ${LAST.length}],
                'email', 'visitor' || i || '@example.com',
                'company', (${sql(COMPANIES)})[1 + (i / 3) % ${COMPANIES.length}],
                'subject', (${sql(SUBJECTS)})[1 + (i / 5) % ${SUBJECTS.length}],
                'message', array_to_string(array(select (${sql(SENTENCES)})[1 + (i * 7 + k) % ${SENTENCES.length}] from generate_series(1, 9) k), ' '),
                'consent', 'yes'),
              ts, ts
         from (select i, now() - make_interval(secs => ($3 - i) * 30) as ts from generate_series(1, $3::int) i) g`,
      [teamA.id, formA.id, rows],
    );
    // The fields processing would have learned, so the CSV export has a column each (~1 KB a row, ~50 MB
    // for the default rows: far more than the socket buffers between the server and a client that stops reading).
    await rt.ctx.db.query(
      `insert into form_fields (team_id, form_id, name, ordinal)
       select $3, $1, name, ord from unnest($2::text[]) with ordinality as f(name, ord) on conflict do nothing`,
      [formA.id, ['name', 'email', 'company', 'subject', 'message', 'consent'], teamA.id],
    );
    // What the webhook was sent for the oldest submissions: a bulk replay sends each again.
    const deliveries = Math.min(num('deliveries'), rows);
    await rt.ctx.db.query(
      `insert into deliveries (id, team_id, webhook_id, event, submission_id, status, attempts, http_status, duration_ms, request_body, delivered_at, created_at)
       select 'whd_noisy' || lpad(row_number() over (order by s.id)::text, 20, '0'), s.team_id, $2, 'submission.created', s.id, 'succeeded', 1, 200, 12,
              json_build_object('type', 'submission.created', 'data', json_build_object('id', s.id, 'form_id', s.form_id, 'payload', s.payload))::text,
              s.received_at, s.received_at
         from submissions s where s.form_id = $1 order by s.id limit $3`,
      [formA.id, hook.data.id, deliveries],
    );
    // A second form of ~1 MB submissions (what a suggested schema samples), seeded the same way.
    const largeForm = await createForm(rt.ctx, callerA, { name: 'Attachments pasted inline', notification_emails: [] });
    const largeRows = num('large-rows');
    const largeFields = Array.from({ length: LARGE_FIELDS }, (_, f) => `field_${f + 1}`);
    await rt.ctx.db.query(
      `insert into submissions (id, team_id, form_id, status, payload, received_at, updated_at)
       select 'subm_large' || lpad(i::text, 20, '0'), $1, $2, 'processed',
              (select jsonb_object_agg(name, (select string_agg(md5(i || '.' || name || '.' || k), '') from generate_series(1, $4::int) k))
                 from unnest($5::text[]) name),
              ts, ts
         from (select i, now() - make_interval(secs => ($3 - i) * 30) as ts from generate_series(1, $3::int) i) g`,
      [teamA.id, largeForm.id, largeRows, LARGE_FIELD_DIGESTS, largeFields],
    );
    await rt.ctx.db.query(
      `insert into form_fields (team_id, form_id, name, ordinal)
       select $3, $1, name, ord from unnest($2::text[]) with ordinality as f(name, ord) on conflict do nothing`,
      [largeForm.id, largeFields, teamA.id],
    );
    await rt.ctx.db.query('vacuum analyze submissions');
    await rt.ctx.db.query('vacuum analyze deliveries');
    const { rows: sizes } = await rt.ctx.db.query<{ mb: number }>(
      `select round(coalesce(sum(pg_column_size(payload)), 0) / 1e6)::int as mb from submissions where form_id = $1`,
      [largeForm.id],
    );
    log(
      `seeded team A: ${rows.toLocaleString('en')} submissions, ${deliveries.toLocaleString('en')} deliveries, ` +
        `${largeRows.toLocaleString('en')} large submissions (${sizes[0]!.mb} MB stored) in ${Math.round(performance.now() - started)} ms`,
    );

    // Team B: a published form with a webhook (its deliveries are timed) and one read token per lister.
    const teamB = await createTeam(rt.ctx, { name: 'Team B (quiet)', plan: 'scale' });
    const ownerB = await member(teamB.id, 'owner', 'b');
    const callerB: Caller = {
      userId: ownerB.id,
      teamId: teamB.id,
      role: 'owner',
      tokenId: 'noisy-bench',
      abilities: [],
    };
    const formB = await createForm(rt.ctx, callerB, { name: 'Contact us', notification_emails: [] });
    await publishForm(rt.ctx, callerB, formB.id);
    await createWebhook(rt.ctx, callerB, formB.id, {
      label: 'Team B receiver',
      url: `${receiverUrl}/b`,
      provider: 'webhook',
      config: {},
      events: ['submission.created'],
      active: true,
    });
    const listTokens: string[] = [];
    for (let i = 0; i < num('listers'); i++) {
      listTokens.push(
        (
          await issueToken(rt.ctx, {
            teamId: teamB.id,
            userId: ownerB.id,
            name: `lister ${i}`,
            abilities: ['submissions:read'],
          })
        ).token,
      );
    }
    return {
      a: {
        teamId: teamA.id,
        formId: formA.id,
        largeFormId: largeForm.id,
        webhookId: hook.data.id,
        viewerToken,
        editorToken,
        ownerToken,
      },
      b: { teamId: teamB.id, formId: formB.id, listTokens },
    };
  } finally {
    await rt.close();
  }
}

/**
 * After the seed: a checkpoint, then the OS's own writeback (`sync`), so the tens of megabytes the setup wrote
 * reach the disk before anything is measured rather than during one of the runs.
 */
async function settle(url: string) {
  const started = performance.now();
  await withClient(url, (c) => c.query('checkpoint'));
  execFileSync('sync');
  log(`settled the seed on disk (checkpoint and sync) in ${Math.round(performance.now() - started)} ms`);
}

type Sample = { busy: number; copying: number; connections: number };
type CpuParties = { server: number; postgres: number; attacker: number; loadGenerator: number };
type CpuReading = CpuParties & { backends: Map<number, number>; machine: { busy: number; total: number } };

/** The whole machine's busy and total clock ticks so far (all cores), from /proc/stat. */
function machineTicks(): { busy: number; total: number } {
  try {
    const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = cpu.reduce((a, b) => a + b, 0);
    return { busy: total - cpu[3]! - cpu[4]!, total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

/**
 * During a run: Postgres connections of the database in use (every 100 ms), the server's resident memory,
 * and the CPU each party used (the server, Postgres, team A's attacker, and the load generator: team B's
 * load process with this one, which samples): on a 2-core machine the clients compete for the same cores
 * as the server.
 */
function startSampler(dbUrl: string, serverPids: number[], loadPid: number, postmasterPid: () => number | null) {
  const serverPid = serverPids[0]!;
  const client = new pg.Client({ connectionString: dbUrl, application_name: 'noisy-bench-sampler' });
  const ready = client.connect();
  onCleanup('sampler connection', () => client.end().catch(() => {}));
  let samples: Sample[] = [];
  /** What the backends were running at each tick (epoch ms): set beside the slowest requests. */
  let activity: Array<{ at: number; active: string[]; disk: DiskReading; cpu: CpuParties }> = [];
  let peakRssMb = 0;
  let timer: NodeJS.Timeout | null = null;
  let attackerPid: number | null = null;
  let cpuStart: CpuReading = {
    server: 0,
    postgres: 0,
    attacker: 0,
    loadGenerator: 0,
    backends: new Map(),
    machine: { busy: 0, total: 0 },
  };
  let wallStart = 0;
  const rssMb = (field: 'VmRSS' | 'VmHWM' = 'VmRSS') => {
    try {
      return (
        Number(
          new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${serverPid}/status`, 'utf8'))?.[1] ?? 0,
        ) / 1024
      );
    } catch {
      return 0;
    }
  };
  const cpuNow = (): CpuReading => {
    const pm = postmasterPid();
    const own = process.cpuUsage();
    const backends = pm ? treeCpuMs(pm).byPid : new Map<number, number>();
    // Backends that started during the run count whole; those that ended during it are lost (an undercount).
    let postgres = 0;
    for (const [pid, ms] of backends) postgres += ms - (cpuStart.backends.get(pid) ?? 0);
    return {
      backends,
      machine: machineTicks(),
      server: serverPids.reduce((n, pid) => n + (cpuMs(pid) ?? 0), 0),
      postgres,
      attacker: attackerPid ? (cpuMs(attackerPid) ?? 0) : 0,
      loadGenerator: (own.user + own.system) / 1000 + (cpuMs(loadPid) ?? 0),
    };
  };
  const tick = async () => {
    peakRssMb = Math.max(peakRssMb, rssMb());
    try {
      const at = Date.now();
      const disk = diskReading();
      const now = cpuNow();
      const cpu: CpuParties = {
        server: now.server,
        postgres: now.postgres,
        attacker: now.attacker,
        loadGenerator: now.loadGenerator,
      };
      const { rows } = await client.query<Sample & { active: string[] | null }>(
        `select count(*) filter (where state <> 'idle')::int as busy,
                count(*) filter (where state <> 'idle' and query ilike 'copy%')::int as copying,
                count(*)::int as connections,
                array_agg(regexp_replace(left(query, 70), '\\s+', ' ', 'g') || ' [' || coalesce(wait_event, 'CPU') || ']') filter (where state = 'active')
                  || array_agg(state || ': ' || regexp_replace(left(query, 50), '\\s+', ' ', 'g')) filter (where state like 'idle in%')
                  || array_agg('backend started ' || round(extract(epoch from clock_timestamp() - backend_start) * 1000) || ' ms ago') filter (where backend_start > clock_timestamp() - interval '150 ms')
                  as active
           from pg_stat_activity
          where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()`,
      );
      const { active, ...counts } = rows[0]!;
      samples.push(counts);
      activity.push({ at, active: active ?? [], disk, cpu });
    } catch {
      // the database is going away
    }
  };
  return {
    async start(attacker: number | null = null) {
      await ready;
      attackerPid = attacker;
      samples = [];
      activity = [];
      peakRssMb = rssMb();
      // The backends' readings are the baseline; Postgres's figure is already a difference from them.
      cpuStart = { ...cpuNow(), postgres: 0 };
      wallStart = performance.now();
      timer = setInterval(() => void tick(), 100);
    },
    stop() {
      if (timer) clearInterval(timer);
      const seconds = (performance.now() - wallStart) / 1000;
      const cpuEnd = cpuNow();
      const parties: Array<keyof CpuParties> = ['server', 'postgres', 'attacker', 'loadGenerator'];
      const cpuCores = Object.fromEntries(
        parties.map((k) => [k, Math.round(((cpuEnd[k] - cpuStart[k]) / 1000 / seconds) * 100) / 100]),
      ) as CpuParties;
      const cores = os.cpus().length;
      const machineCores =
        Math.round(
          ((cpuEnd.machine.busy - cpuStart.machine.busy) / Math.max(1, cpuEnd.machine.total - cpuStart.machine.total)) *
            cores *
            100,
        ) / 100;
      const ours = parties.reduce((n, k) => n + cpuCores[k], 0);
      const peak = (k: keyof Sample) => samples.reduce((m, x) => Math.max(m, x[k]), 0);
      const mean = (k: keyof Sample) =>
        Math.round((samples.reduce((n, x) => n + x[k], 0) / Math.max(1, samples.length)) * 10) / 10;
      return {
        samples: samples.length,
        /** Active statements sampled while each of the given requests was in flight. */
        during: (reqs: Array<{ at: number; ms: number }>) =>
          reqs.map((r) => {
            const inFlight = activity.filter((a) => a.at >= r.at && a.at <= r.at + r.ms);
            // The disk from the tick before the request to the tick after it (a window of at least 100 ms).
            const before = activity.findLast((a) => a.at < r.at);
            const after = activity.find((a) => a.at > r.at + r.ms);
            return {
              ...r,
              active: [...new Set(inFlight.flatMap((a) => a.active))],
              disk: before && after ? { ms: after.at - before.at, ...diskBetween(before.disk, after.disk) } : null,
              // Each party's CPU over the same window (ms): 2 cores give at most twice the window to share.
              cpuMs:
                before && after
                  ? (Object.fromEntries(
                      Object.entries(after.cpu).map(([k, v]) => [k, Math.round(v - before.cpu[k as keyof CpuParties])]),
                    ) as CpuParties)
                  : null,
            };
          }),
        postgresConnections: {
          peak: peak('connections'),
          busyPeak: peak('busy'),
          busyMean: mean('busy'),
          copyingPeak: peak('copying'),
        },
        serverRssPeakMb: Math.round(peakRssMb),
        /** The most the server process has held since it started (VmHWM), between the samples too. */
        serverRssHwmMb: Math.round(rssMb('VmHWM')),
        /** Cores each party kept busy on average (CPU seconds per second), the whole machine's, and what the rest of the machine used. */
        cpuCores: {
          ...cpuCores,
          machine: machineCores,
          otherProcesses: Math.max(0, Math.round((machineCores - ours) * 100) / 100),
        },
        loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
      };
    },
  };
}

const ratio = (a: number, b: number) =>
  Number.isFinite(a) && Number.isFinite(b) && b > 0 ? Math.round((a / b) * 100) / 100 : null;

function compare(name: string, quiet: LatencyStats, noisy: LatencyStats) {
  const p99Ratio = ratio(noisy.latencyMs.p99, quiet.latencyMs.p99);
  const problems: string[] = [];
  if (noisy.errors > TARGET.errors)
    problems.push(`${name}: ${noisy.errors} errors under load (${JSON.stringify(noisy.statuses)})`);
  if (p99Ratio === null || p99Ratio > TARGET.p99Ratio)
    problems.push(
      `${name}: p99 ${noisy.latencyMs.p99} ms noisy vs ${quiet.latencyMs.p99} ms quiet (${p99Ratio}×, target ≤ ${TARGET.p99Ratio}×)`,
    );
  if (quiet.errors)
    problems.push(`${name}: ${quiet.errors} errors in the quiet run already (${JSON.stringify(quiet.statuses)})`);
  return { p99Ratio, problems };
}

async function main(): Promise<number> {
  installSignalHandlers();
  const wallStart = Date.now();
  const seconds = num('duration');
  const dir = scratchDir('intake-bench-noisy-');
  const db = await startDatabase(dir, { pgStats: opts['pg-stats'], log });
  // With --pg-stats, what Postgres spent its time on in each run (reset as each starts).
  const statements = db.pgStatStatements ? new pg.Client({ connectionString: db.url }) : null;
  if (statements) {
    await statements.connect();
    onCleanup('pg_stat_statements client', () => statements.end());
  }
  const storageUrl = await startStorage(dir, 'intake-bench');
  // Team A's deliveries are counted; team B's are timed (submission id → when the receiver had it). The
  // receiver runs in a process of its own (bench/lib/receiver-process.ts): in this one, its work delayed
  // team B's requests as this process timed them, and A's replays made that a cost of the noisy run only.
  let received = 0;
  const receiptsB = new Map<string, number>();
  let receiverReady!: (r: { url: string; caBundlePath: string }) => void;
  const receiverStarted = new Promise<{ url: string; caBundlePath: string }>((r) => (receiverReady = r));
  const receiverChild = startChild('receiver', process.execPath, [RECEIVER], {
    env: { PATH: process.env.PATH },
    echo: opts.verbose,
    onSpawn: (proc) => {
      readline.createInterface({ input: proc.stdout! }).on('line', (line) => {
        if (!line.startsWith('{')) return;
        const m = JSON.parse(line) as {
          event: string;
          url: string;
          caBundlePath: string;
          b: Array<[string, number]>;
          others: number;
        };
        if (m.event === 'ready') receiverReady(m);
        if (m.event !== 'received') return;
        received += m.others;
        for (const [id, at] of m.b) receiptsB.set(id, at);
      });
    },
  });
  const receiver = await Promise.race([
    receiverStarted,
    receiverChild.exited.then((code) =>
      Promise.reject(new Error(`the receiver exited (${code}):\n${receiverChild.output()}`)),
    ),
  ]);
  /** Team B's deliveries of one run's accepted posts: waits up to `graceMs` for the last, then post → receiver latency. */
  const deliveriesOf = async (accepted: Accepted, graceMs: number) => {
    const deadline = Date.now() + graceMs;
    const missing = () => [...accepted.keys()].filter((id) => !receiptsB.has(id)).length;
    while (missing() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    const delays = [...accepted]
      .flatMap(([id, at]) => (receiptsB.has(id) ? [receiptsB.get(id)! - at] : []))
      .sort((a, b) => a - b);
    return {
      accepted: accepted.size,
      delivered: delays.length,
      notDeliveredWithinGrace: accepted.size - delays.length,
      graceSeconds: graceMs / 1000,
      latencyMs: {
        p50: quantile(delays, 0.5),
        p90: quantile(delays, 0.9),
        p99: quantile(delays, 0.99),
        max: quantile(delays, 1),
      },
    };
  };

  const extra = Object.fromEntries(opts.env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    DATABASE_URL: db.url,
    STORAGE_URL: storageUrl,
    STORAGE_BUCKET: 'intake-bench',
    INTAKE_DATA_DIR: dir,
    INTAKE_SECRET_KEY: `noisy-${Date.now()}`,
    INTAKE_METRICS_TOKEN: METRICS_TOKEN,
    INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true',
    // Team B's visitors come through a proxy, each from an address of its own (the soak's scheme).
    INTAKE_TRUST_PROXY: 'loopback',
    INTAKE_VERIFY_NOTIFICATION_EMAILS: 'false',
    LOG_LEVEL: 'warn',
    NODE_EXTRA_CA_CERTS: receiver.caBundlePath,
    ...extra,
  };
  const s = await setup(env, receiver.url);
  if (!opts['no-settle']) await settle(db.url);

  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const workers = num('workers');
  const serverEnv = { ...env, PORT: String(port), HOST: '127.0.0.1', INTAKE_BASE_URL: origin };
  const server = startChild('serve', INTAKE, workers ? ['serve', '--no-worker'] : ['serve'], {
    env: serverEnv,
    echo: opts.verbose,
  });
  await waitForHttp(server, `${origin}/healthz`);
  const workerPids = Array.from(
    { length: workers },
    (_, i) => startChild(`worker-${i + 1}`, INTAKE, ['worker'], { env: serverEnv, echo: opts.verbose }).pid,
  );
  // Team B's load runs in a process of its own (bench/lib/tenant-load-process.ts), away from the sampler.
  const loadGenerator = fork(TENANT_LOAD, [], {
    env: { PATH: process.env.PATH },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  onCleanup("team B's load generator", () => void loadGenerator.kill('SIGKILL'));
  const sampler = startSampler(db.url, [server.pid, ...workerPids], loadGenerator.pid!, () => db.postmasterPid());
  const runTenantLoad = (o: TenantLoadOptions) =>
    new Promise<TenantLoadResult & { postsSent: number; accepted: Accepted }>((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`team B's load generator exited (${code})`));
      loadGenerator.once('exit', exited);
      loadGenerator.once(
        'message',
        (m: {
          result?: TenantLoadResult & { postsSent: number; accepted: Array<[string, number]> };
          error?: string;
        }) => {
          loadGenerator.off('exit', exited);
          if (m.result) resolve({ ...m.result, accepted: new Map(m.result.accepted) });
          else reject(new Error(`team B's load failed: ${m.error}`));
        },
      );
      loadGenerator.send({ run: o });
    });

  let firstClient = 0;
  const tenantLoad = async (secs: number, title: string): Promise<TenantLoadResult & { accepted: Accepted }> => {
    log(`${title}: team B for ${secs} s`);
    const r = await runTenantLoad({
      origin,
      seconds: secs,
      formId: s.b.formId,
      listTokens: s.b.listTokens,
      posters: num('posters'),
      postIntervalMs: num('post-interval'),
      listIntervalMs: num('list-interval'),
      healthIntervalMs: 250,
      firstClient,
      postsPerClient: 10,
      timeoutMs: 30_000,
    });
    firstClient += Math.ceil(r.postsSent / 10) + 1;
    log(
      `${title}: posts p50 ${r.posts.latencyMs.p50} p99 ${r.posts.latencyMs.p99} ms, ${r.posts.errors} errors; ` +
        `lists p50 ${r.lists.latencyMs.p50} p99 ${r.lists.latencyMs.p99} ms, ${r.lists.errors} errors; ` +
        `the measuring process's event-loop delay p99 ${r.clientDelayMs.p99} max ${r.clientDelayMs.max} ms`,
    );
    return r;
  };

  const booted = await scrapeRuntime(origin, METRICS_TOKEN);
  if (num('warmup') > 0) await tenantLoad(num('warmup'), 'warm-up');
  // The server's steady state before anything is measured. A fresh process's old space grows to ~300 MB
  // before its first major GC under load, and that GC leaves a limit of ~130 MB, after which a major GC runs
  // every few seconds: measured from start-up, the quiet run had none and the noisy run paid for them all
  // (V8's --trace-gc). Team B's load goes on until the server has run one (at most 3 minutes).
  for (
    let i = 0;
    i < 18 && !(runtimeBetween(booted, await scrapeRuntime(origin, METRICS_TOKEN)).gcSeconds.major > 0);
    i++
  ) {
    await tenantLoad(10, "warm-up (until the server's first major GC)");
  }

  const wal = await WalTimeline.open(db.url);
  onCleanup('WAL timeline connection', () => wal.close());
  await sampler.start();
  if (statements) await resetStatements(statements);
  let runtimeBefore = await scrapeRuntime(origin, METRICS_TOKEN);
  await wal.mark('quiet start');
  const quiet = await tenantLoad(seconds, 'quiet');
  await wal.mark('quiet end');
  const { during: quietDuring, ...quietSampled } = sampler.stop();
  const quietServer = {
    ...quietSampled,
    runtime: runtimeBetween(runtimeBefore, await scrapeRuntime(origin, METRICS_TOKEN)),
  };
  const quietSlowest = { posts: quietDuring(quiet.posts.slowest), lists: quietDuring(quiet.lists.slowest) };
  const quietStatements = statements ? await topStatements(statements) : null;
  const quietDeliveries = await deliveriesOf(quiet.accepted, num('delivery-grace') * 1000);
  log(`quiet: team B's deliveries ${JSON.stringify(quietDeliveries)}`);

  // The noisy run: A's attack first, under way before B's measured load starts.
  const attackOptions: AttackOptions = {
    origin,
    formId: s.a.formId,
    largeFormId: s.a.largeFormId,
    webhookId: s.a.webhookId,
    viewerToken: s.a.viewerToken,
    editorToken: s.a.editorToken,
    ownerToken: s.a.ownerToken,
    exports: num('exports'),
    exportHoldMs: num('export-hold') * 1000,
    exportRetryMs: 2_000,
    mcpSessions: num('mcp-sessions'),
    mcpStreams: !opts['no-mcp-streams'],
    replays: num('replays'),
    searchers: num('searchers'),
    deepBodies: num('deep-bodies'),
    deepBytes: 1_000_000,
    mcpReads: num('mcp-reads'),
    mcpReadAbortEvery: MCP_READ_ABORT_EVERY,
    mcpReadAbortMs: MCP_READ_ABORT_MS,
    erasures: num('erasures'),
    erasureJobs: num('erasure-jobs'),
    schemaReaders: num('schema-readers'),
  };
  const lines: string[] = [];
  let lineArrived: () => void = () => {};
  await wal.mark('attack start');
  const attacker = startChild('attacker', process.execPath, [ATTACKER], {
    env: { PATH: process.env.PATH, NOISY_ATTACK: JSON.stringify(attackOptions) },
    echo: opts.verbose,
    onSpawn: (proc) => {
      readline.createInterface({ input: proc.stdout! }).on('line', (line) => {
        lines.push(line);
        lineArrived();
      });
    },
  });
  // A's clients run on A's machines, not on the service's: here they share its two cores, so the attacker's
  // own client work (building requests, its 1 MB bodies, reading exports) yields the CPU to the server and
  // to B's measuring process. Every request it sends is still served at the server's priority.
  os.setPriority(attacker.pid, ATTACKER_NICE);
  const event = async (name: string, timeoutMs: number): Promise<Record<string, unknown>> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = lines
        .flatMap((l) => (l.startsWith('{') ? [JSON.parse(l) as { event: string }] : []))
        .find((l) => l.event === name);
      if (found) return found;
      if (!attacker.alive())
        throw new Error(`the attacker exited (${await attacker.exited}) before "${name}":\n${attacker.output()}`);
      if (Date.now() > deadline)
        throw new Error(`the attacker did not report "${name}" within ${timeoutMs / 1000} s:\n${attacker.output()}`);
      await Promise.race([new Promise<void>((r) => (lineArrived = r)), new Promise((r) => setTimeout(r, 500))]);
    }
  };
  const rampStart = Date.now();
  await event('ready', 120_000);
  const rampSeconds = (Date.now() - rampStart) / 1000;
  log(`team A's attack under way after ${rampSeconds.toFixed(1)} s`);
  // As before the quiet run: the delivery grace left the server's pool and B's clients idle, and their
  // restart (new backends, new connections) would otherwise be measured as A's doing.
  if (num('warmup') > 0) await tenantLoad(num('warmup'), 'warm-up (attack under way)');
  await sampler.start(attacker.pid);
  if (statements) await resetStatements(statements);
  runtimeBefore = await scrapeRuntime(origin, METRICS_TOKEN);
  await wal.mark('noisy start');
  const fiveSeconds = setTimeout(() => void wal.mark('noisy +5 s'), 5_000);
  const noisy = await tenantLoad(seconds, 'noisy');
  clearTimeout(fiveSeconds);
  await wal.mark('noisy end');
  const walReport = {
    stretches: await wal.stretches(),
    attackFirstSeconds: await wal.breakdown('attack start', 'noisy +5 s').catch(() => null),
  };
  const { during: noisyDuring, ...noisySampled } = sampler.stop();
  const noisyServer = {
    ...noisySampled,
    runtime: runtimeBetween(runtimeBefore, await scrapeRuntime(origin, METRICS_TOKEN)),
  };
  const noisySlowest = { posts: noisyDuring(noisy.posts.slowest), lists: noisyDuring(noisy.lists.slowest) };
  const noisyStatements = statements ? await topStatements(statements) : null;
  const stopping = attacker.stop(90_000);
  let attack: AttackReport | null = null;
  let attackError: string | null = null;
  try {
    attack = (await event('report', 90_000)).report as AttackReport;
  } catch (err) {
    attackError = (err as Error).message;
  }
  await stopping;
  // A's replays go on in the worker after its attacker has stopped: B's deliveries still wait behind them.
  const noisyDeliveries = await deliveriesOf(noisy.accepted, num('delivery-grace') * 1000);
  log(`noisy: team B's deliveries ${JSON.stringify(noisyDeliveries)}`);

  const posts = compare('posts', quiet.posts, noisy.posts);
  const lists = compare('lists', quiet.lists, noisy.lists);
  const problems = [...posts.problems, ...lists.problems];
  const result = {
    benchmark: 'noisy-neighbour',
    at: new Date(wallStart).toISOString(),
    commit: gitHead(),
    target: `team B: ${TARGET.errors} errors in the noisy run, p99 of posts and of lists each ≤ ${TARGET.p99Ratio}× the quiet run's`,
    passed: problems.length === 0,
    problems,
    options: {
      ...attackOptions,
      attackerNice: ATTACKER_NICE,
      viewerToken: undefined,
      editorToken: undefined,
      ownerToken: undefined,
      origin: undefined,
      formId: undefined,
      largeFormId: undefined,
      webhookId: undefined,
      duration: seconds,
      warmup: num('warmup'),
      rows: num('rows'),
      largeRows: num('large-rows'),
      deliveries: num('deliveries'),
      posters: num('posters'),
      postIntervalMs: num('post-interval'),
      listers: num('listers'),
      listIntervalMs: num('list-interval'),
      workers: num('workers'),
    },
    settings: { DATABASE_POOL_SIZE: extra.DATABASE_POOL_SIZE ?? '10 (default)', ...extra },
    teamB: {
      quiet: {
        posts: quiet.posts,
        lists: quiet.lists,
        health: quiet.health,
        clientDelayMs: quiet.clientDelayMs,
        deliveries: quietDeliveries,
        server: quietServer,
        slowest: quietSlowest,
      },
      noisy: {
        posts: noisy.posts,
        lists: noisy.lists,
        health: noisy.health,
        clientDelayMs: noisy.clientDelayMs,
        deliveries: noisyDeliveries,
        server: noisyServer,
        slowest: noisySlowest,
      },
      p99Ratio: {
        posts: posts.p99Ratio,
        lists: lists.p99Ratio,
        health: ratio(noisy.health.latencyMs.p99, quiet.health.latencyMs.p99),
        deliveries: ratio(noisyDeliveries.latencyMs.p99, quietDeliveries.latencyMs.p99),
      },
    },
    teamA: {
      rampSeconds: Math.round(rampSeconds * 10) / 10,
      ...(attack ?? { error: attackError }),
      webhookRequestsReceived: received,
    },
    wal: walReport,
    database: {
      kind: db.kind,
      settings: db.settings,
      statements: statements ? { quiet: quietStatements, noisy: noisyStatements } : undefined,
    },
    wallSeconds: Math.round((Date.now() - wallStart) / 100) / 10,
    machine: { cpus: os.cpus().length, loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100) },
  };
  console.log(JSON.stringify(result, null, 2));
  if (!opts['no-save']) {
    const results = path.join(ROOT, 'bench', 'results');
    fs.mkdirSync(results, { recursive: true });
    const day = new Date().toISOString().slice(0, 10);
    let file = path.join(results, `noisy-neighbour-${day}.json`);
    for (let n = 2; fs.existsSync(file); n++) file = path.join(results, `noisy-neighbour-${day}-${n}.json`);
    fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${path.relative(ROOT, file)}`);
  }

  const line = (label: string, q: LatencyStats, n: LatencyStats, r: number | null) =>
    `  ${label.padEnd(6)} quiet p50 ${q.latencyMs.p50} p99 ${q.latencyMs.p99} ms, ${q.errors} errors | noisy p50 ${n.latencyMs.p50} p99 ${n.latencyMs.p99} ms, ` +
    `${n.errors} errors ${JSON.stringify(n.statuses)} | p99 ×${r}`;
  log('team B, quiet vs noisy:');
  log(line('posts', quiet.posts, noisy.posts, posts.p99Ratio));
  log(line('lists', quiet.lists, noisy.lists, lists.p99Ratio));
  log(line('health', quiet.health, noisy.health, result.teamB.p99Ratio.health));
  log(
    `  deliveries (post → receiver, not in the verdict) quiet p50 ${quietDeliveries.latencyMs.p50} p99 ${quietDeliveries.latencyMs.p99} ms, ${quietDeliveries.notDeliveredWithinGrace} late | ` +
      `noisy p50 ${noisyDeliveries.latencyMs.p50} p99 ${noisyDeliveries.latencyMs.p99} ms, ${noisyDeliveries.notDeliveredWithinGrace} not within ${noisyDeliveries.graceSeconds} s | p99 ×${result.teamB.p99Ratio.deliveries}`,
  );
  const runtime = (r: RuntimeReport) =>
    `GC ${JSON.stringify(r.gcSeconds)} s, pauses > 10 ms ${r.gcPausesOver10Ms}, > 100 ms ${r.gcPausesOver100Ms}; event-loop delay p99 ${r.eventLoopDelayP99Ms} max ${r.eventLoopDelayMaxMs} ms; heap ${r.heapUsedMb} MB`;
  const tail = (l: LatencyStats) =>
    l.tailSeconds
      .slice(0, 8)
      .map(([sec, n]) => `${sec} s: ${n}`)
      .join(', ');
  for (const [run, r] of [
    ['quiet', quiet],
    ['noisy', noisy],
  ] as const) {
    log(
      `  where the slowest 1 % fell (${run}; second of the run: requests, busiest first): posts ${tail(r.posts)}; lists ${tail(r.lists)}`,
    );
  }
  log(`  server runtime quiet: ${runtime(quietServer.runtime)}`);
  log(`  server runtime noisy: ${runtime(noisyServer.runtime)}`);
  log(
    `  WAL: ${walReport.stretches.map((w) => `${w.from} → ${w.to} ${(w.bytes / 1e6).toFixed(1)} MB in ${w.seconds} s (${w.mbPerSecond} MB/s; temp files ${w.tempMb} MB; ${w.checkpoints} checkpoints writing ${w.checkpointMb} MB; disks read ${w.disk.readMb} MB, wrote ${w.disk.writtenMb} MB, ${w.disk.flushes} flushes, weighted I/O ${w.disk.weightedIoMs} ms)`).join('; ')}`,
  );
  if (walReport.attackFirstSeconds) {
    log(`  WAL from the attack's start to 5 s into the noisy run, by relation (MB, of it full-page images, records):`);
    for (const l of walReport.attackFirstSeconds)
      log(
        `    ${(l.bytes / 1e6).toFixed(2).padStart(7)} ${(l.fpiBytes / 1e6).toFixed(2).padStart(7)} ${String(l.records).padStart(7)}  ${l.what}`,
      );
  }
  for (const [run, slowest] of [
    ['quiet', quietSlowest],
    ['noisy', noisySlowest],
  ] as const) {
    for (const kind of ['lists', 'posts'] as const) {
      log(`  slowest ${kind} (${run}), with the statements Postgres was running meanwhile (sampled every 100 ms):`);
      for (const r of slowest[kind].slice(0, 5)) {
        const disk = r.disk
          ? ` {over ${r.disk.ms} ms: CPU ms ${JSON.stringify(r.cpuMs)}; disk read ${r.disk.readMb} MB, wrote ${r.disk.writtenMb} MB, ${r.disk.flushes} flushes, weighted I/O ${r.disk.weightedIoMs} ms}`
          : '';
        log(`    ${new Date(r.at).toISOString().slice(11, 23)} ${r.ms} ms${disk}: ${r.active.join(' | ') || '-'}`);
      }
    }
  }
  if (attack) {
    const a = attack;
    log(
      `team A: exports first answers ${JSON.stringify(a.exports.firstAnswers)} (all ${JSON.stringify(a.exports.answers)}, peak held ${a.exports.peakHeld}); ` +
        `MCP sessions opened ${a.mcp.opened}/${a.mcp.tried} ${JSON.stringify(a.mcp.answers)}; replays ${JSON.stringify(a.replays.answers)}; ` +
        `searches ${JSON.stringify(a.searches.answers)}; deep bodies ${JSON.stringify(a.deepBodies.answers)}; webhook requests received ${received}`,
    );
    log(
      `team A: MCP reads ${JSON.stringify(a.mcpReads.answers)} (served p50 ${a.mcpReads.okLatencyMs.p50} ms); ` +
        `erasure jobs ${JSON.stringify(a.erasures.jobs.answers)}, at the end ${JSON.stringify(a.erasures.jobs.statusAtEnd)}; ` +
        `erasure dry runs ${JSON.stringify(a.erasures.dryRuns.answers)} (served p50 ${a.erasures.dryRuns.okLatencyMs.p50} ms); ` +
        `suggested schemas ${JSON.stringify(a.suggestedSchemas.answers)} (served p50 ${a.suggestedSchemas.okLatencyMs.p50} ms)`,
    );
  } else log(`team A: no report from the attacker (${attackError})`);
  log(
    `server RSS peak: quiet ${quietServer.serverRssPeakMb} MB, noisy ${noisyServer.serverRssPeakMb} MB (sampled every 100 ms); high-water mark since start ${noisyServer.serverRssHwmMb} MB`,
  );
  log(
    `Postgres connections busy: quiet peak ${quietServer.postgresConnections.busyPeak}, noisy peak ${noisyServer.postgresConnections.busyPeak} (COPY ${noisyServer.postgresConnections.copyingPeak})`,
  );
  log(
    `cores busy: quiet ${JSON.stringify(quietServer.cpuCores)}, noisy ${JSON.stringify(noisyServer.cpuCores)} (of ${os.cpus().length})`,
  );
  for (const [run, top] of [
    ['quiet', quietStatements],
    ['noisy', noisyStatements],
  ] as const) {
    if (!top) continue;
    log(`top statements, ${run} run (calls, total ms, mean ms, WAL bytes):`);
    for (const st of top)
      log(
        `  ${String(st.calls).padStart(7)} ${String(st.total_ms).padStart(9)} ${String(st.mean_ms).padStart(8)} ${String(st.wal_bytes).padStart(11)}  ${st.query}`,
      );
  }
  log(`VERDICT: ${result.passed ? 'PASS' : 'FAIL'} — ${result.target}`);
  for (const p of problems) log(`  ${p}`);
  return 0;
}

function gitHead(): string | null {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
}

try {
  process.exitCode = await main();
} catch (err) {
  log(`setup or run failed: ${(err as Error).stack ?? (err as Error).message}`);
  process.exitCode = 1;
} finally {
  await cleanupAll();
}
process.exit();
