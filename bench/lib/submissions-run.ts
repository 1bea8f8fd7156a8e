import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { isInterrupted, onCleanup } from './cleanup.ts';
import { scratchDir, startDatabase, startStorage } from './infra.ts';
import { freePort, startChild, waitForHttp } from './processes.ts';
import { procStatusKb } from './rss.ts';
import { gitInfo, log, ROOT, round, TARGET, type BenchServer, type Options } from './submissions-context.ts';
import { measureExport } from './submissions-export.ts';
import { getPage, measureList } from './submissions-list.ts';
import { stopAndProfile } from './submissions-profile.ts';
import { seedAccount, seedSubmissions } from './submissions-seed.ts';

/** One run of the submissions benchmark (bench/submissions.ts): infrastructure, data, server, the parts, the report. */

/**
 * The budgets an operator raises for a load test: one team's one token sends every request, so the per-token
 * and per-team API budgets and the team's search budgets (count and database time) would refuse most of them.
 * Everything else (the team's lane, the guards) runs as configured by default; the report prints these.
 */
export const LOAD_TEST_BUDGETS = {
  INTAKE_API_RATE_LIMIT: '1000000000',
  INTAKE_API_TEAM_RATE_LIMIT: '1000000000',
  INTAKE_SEARCH_TEAM_RATE_LIMIT: '1000000000',
  INTAKE_SEARCH_TEAM_TIME_MS: '1000000000',
};

/** `intake serve --no-worker` as a child process, ready once /healthz answers. */
async function startServer(
  env: NodeJS.ProcessEnv,
  opts: { verbose: boolean; profileDir: string | null },
): Promise<BenchServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = startChild('intake', path.join(ROOT, 'cli', 'intake'), ['serve', '--no-worker'], {
    cwd: ROOT,
    echo: opts.verbose,
    env: {
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      INTAKE_BASE_URL: url,
      ...(opts.profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${opts.profileDir}` } : {}),
    },
  });
  await waitForHttp(child, `${url}/healthz`);
  return { pid: child.pid, url, stop: async () => void (await child.stop()) };
}

/** The account, then `rows` submissions checked against their counters; `admin` stays open for the plans. */
async function seedData(dbUrl: string, dir: string, rows: number) {
  log('migrating; creating a team, an owner with a token and a published form');
  const account = await seedAccount(dbUrl, path.join(dir, 'seed'));
  const admin = new pg.Client({ connectionString: dbUrl });
  await admin.connect();
  onCleanup('admin connection', () => admin.end());
  log(`seeding ${rows.toLocaleString('en')} submissions`);
  const seeded = await seedSubmissions(admin, { ...account, rows: rows });
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
  ).rows[0] as {
    rows: number;
    inbox: number;
    payload_bytes: number;
    payload_text_bytes: number;
    table_size: string;
    files: number;
    counted_inbox: number;
  };
  if (stats.counted_inbox !== stats.inbox)
    throw new Error(`folder counters (${stats.counted_inbox}) disagree with the inbox (${stats.inbox})`);
  log(`seeded in ${seeded.seconds} s: ${JSON.stringify(stats)}`);
  return { account, admin, seeded, stats };
}

/** Each target met, missed, or not run (null), and all of them. */
function verdictOf(
  exported: Awaited<ReturnType<typeof measureExport>> | null,
  list: Awaited<ReturnType<typeof measureList>> | null,
) {
  const verdict = {
    exportRatio: exported ? exported.ratio >= TARGET.exportRatio : null,
    rssGrowth: exported ? exported.server.rssGrowthMb < TARGET.rssGrowthMb : null,
    listP99: list
      ? Object.values(list.scenarios).every((s) => s.sequential.p99 < TARGET.listP99Ms) && list.cursorMatchesOffsetPage
      : null,
    met: false,
  };
  verdict.met = verdict.exportRatio !== false && verdict.rssGrowth !== false && verdict.listP99 !== false;
  return verdict;
}

export type Report = Awaited<ReturnType<typeof runBench>>;

export async function runBench(opts: Options) {
  const perPage = 25;
  if (opts.page * perPage > opts.rows * 0.9)
    throw new Error(`--page ${opts.page} is beyond the inbox of ${opts.rows} rows`);
  const notes: string[] = [];

  const dir = scratchDir('intake-bench-subm-');
  // Database: DATABASE_URL (a fresh database on it) or an embedded Postgres in a fresh cluster.
  if (!process.env.DATABASE_URL) log('starting an embedded Postgres in a fresh cluster');
  const database = await startDatabase(dir, { pgStats: false, log: opts.verbose ? log : () => {} });
  const dbUrl = database.url;
  const storageUrl = await startStorage(dir, 'intake-bench');

  const { account, admin, seeded, stats } = await seedData(dbUrl, dir, opts.rows);

  const profileDir = opts.cpuProf ? path.join(dir, 'profiles') : null;
  const server = await startServer(
    {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: dbUrl,
      STORAGE_URL: storageUrl,
      STORAGE_BUCKET: 'intake-bench',
      INTAKE_DATA_DIR: path.join(dir, 'intake'),
      INTAKE_SECRET_KEY: 'bench',
      ...LOAD_TEST_BUDGETS,
      LOG_LEVEL: 'warn',
    },
    { verbose: opts.verbose, profileDir },
  );
  const probe = await getPage(
    `${server.url}/v1/forms/${account.formId}/submissions?per_page=${perPage}`,
    account.token,
  );
  if (probe.page.meta.total !== stats.inbox)
    throw new Error(`the API counts ${probe.page.meta.total} inbox submissions, the table ${stats.inbox}`);
  const idleRssMb = round(procStatusKb(server.pid, 'VmRSS') / 1024);

  const fields = (
    await admin.query<{ name: string }>(
      'select name from form_fields where form_id = $1 order by first_seen_at, ordinal, name',
      [account.formId],
    )
  ).rows.map((r) => r.name);
  const ctx = { opts, perPage, dbUrl, admin, server, account, fields, stats, idleRssMb, notes };
  const exported = opts.only === 'list' ? null : await measureExport(ctx);
  const list = opts.only === 'export' ? null : await measureList(ctx);
  const cpuProfile = await stopAndProfile(server, profileDir);
  if (opts.hold) {
    log(`holding the database for inspection (Ctrl-C stops and cleans up): ${dbUrl}`);
    while (!isInterrupted()) await new Promise((resolve) => setTimeout(resolve, 500));
  }

  const verdict = verdictOf(exported, list);
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
    postgres: {
      kind: database.kind,
      version: (await admin.query('show server_version')).rows[0].server_version as string,
    },
    options: opts,
    serverEnv: LOAD_TEST_BUDGETS,
    data: { ...stats, seedSeconds: seeded.seconds, fields },
    export: exported,
    list,
    cpuProfile,
    goal: TARGET,
    verdict,
    notes,
  };
}
