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
 * The server is configured as an operator would for a load test from one token: the API budgets (token and
 * team) and the team's search budgets (INTAKE_SEARCH_TEAM_RATE_LIMIT, INTAKE_SEARCH_TEAM_TIME_MS) raised out of
 * the way (LOAD_TEST_BUDGETS in bench/lib/submissions-run.ts, printed with the report); the team's lane runs
 * as configured by default.
 *
 * The parts live in bench/lib/submissions-*.ts (seed, export, list, run, print); infrastructure, processes
 * and cleanup are bench/lib's. Prints a summary and writes bench/results/submissions-<date>.json, with EXPLAIN (ANALYZE, BUFFERS) of
 * the queries behind each measurement. Everything it starts (embedded Postgres or a database on
 * DATABASE_URL, s3rver, the server) is stopped and removed on exit, Ctrl-C included.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cleanupAll, installSignalHandlers, isInterrupted } from './lib/cleanup.ts';
import { ROOT } from './lib/submissions-context.ts';
import { printReport } from './lib/submissions-print.ts';
import { runBench } from './lib/submissions-run.ts';

const RESULTS = path.join(ROOT, 'bench', 'results');

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
  if (opts.only !== null && opts.only !== 'export' && opts.only !== 'list')
    throw new Error('--only must be export or list');
  const report = await runBench(opts);
  printReport(report);
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

installSignalHandlers();
main().then(
  async (code) => {
    await cleanupAll();
    process.exit(code);
  },
  async (err: unknown) => {
    console.error(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    await cleanupAll();
    process.exit(isInterrupted() ? 130 : 1);
  },
);
