/**
 * Soak with an audit (issue #15): `node bench/soak.ts [--posts 100000] [--concurrency 50]`.
 *
 * N posts to `POST /f/{form}` on `intake serve --no-worker` while an `intake worker` delivers each to a local
 * HTTPS receiver; at N/2 the worker is SIGKILLed and a new one started. Then: accepted = stored = delivered
 * (by submission id), no duplicate delivery, no 5xx; it reports the posts/s held, p50/p99 latency and errors.
 * What is checked and why: bench/lib/soak.ts. Exits 1 when the audit fails.
 *
 * Prints the report and writes bench/results/soak-<date>.json (`--no-save` to skip).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cleanupAll, installSignalHandlers } from './lib/cleanup.ts';
import { scratchDir, startDatabase, startStorage } from './lib/infra.ts';
import { runSoak, soakProblems } from './lib/soak.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);

const { values: opts } = parseArgs({
  options: {
    posts: { type: 'string', default: '100000' },
    concurrency: { type: 'string', default: '50' },
    'posts-per-client': { type: 'string', default: '10' },
    'worker-concurrency': { type: 'string', default: '8' },
    'restart-after': { type: 'string' },
    claims: { type: 'string', default: 'expire' },
    'drain-timeout': { type: 'string', default: '900' },
    env: { type: 'string', multiple: true, default: [] },
    'no-save': { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (opts.help) {
  console.log(`node bench/soak.ts [options]
  --posts N             posts to make (default 100000)
  --concurrency C       connections posting at once (default 50)
  --posts-per-client K  posts per simulated visitor address (default 10; 20 a minute is the rate limit)
  --worker-concurrency W  the worker's processing slots, INTAKE_WORKER_CONCURRENCY (default 8; Intake's default is 4)
  --restart-after M     SIGKILL the worker after M posts (default N/2)
  --claims expire|lapse the killed worker's jobs come back when their claims expire (default, up to ~6 min)
                        or are lapsed at once through pg-boss's supervision pass (as the test does)
  --drain-timeout S     seconds the queues have to empty after the load (default 900)
  --env NAME=VALUE      extra setting for the intake processes (repeatable), e.g. DATABASE_POOL_SIZE=20
  --no-save             do not write bench/results/soak-<date>.json
  --verbose             echo the child processes' output`);
  process.exit(0);
}
if (opts.claims !== 'expire' && opts.claims !== 'lapse') throw new Error('--claims is expire or lapse');

async function main(): Promise<number> {
  installSignalHandlers();
  const dir = scratchDir('intake-bench-soak-');
  const db = await startDatabase(dir, { pgStats: false, log });
  const storageUrl = await startStorage(dir, 'intake-bench');
  const report = await runSoak({
    posts: Number(opts.posts),
    concurrency: Number(opts.concurrency),
    postsPerClient: Number(opts['posts-per-client']),
    ...(opts['restart-after'] ? { restartAfter: Number(opts['restart-after']) } : {}),
    claims: opts.claims as 'expire' | 'lapse',
    drainTimeoutMs: Number(opts['drain-timeout']) * 1000,
    databaseUrl: db.url,
    storageUrl,
    bucket: 'intake-bench',
    dataDir: dir,
    env: {
      INTAKE_WORKER_CONCURRENCY: opts['worker-concurrency'],
      ...Object.fromEntries(opts.env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)])),
    },
    log,
    echo: opts.verbose,
  });
  const problems = soakProblems(report);
  const result = {
    ...report,
    database: { kind: db.kind, settings: db.settings },
    passed: problems.length === 0,
    problems,
  };
  console.log(JSON.stringify(result, null, 2));
  if (!opts['no-save']) {
    const results = path.join(ROOT, 'bench', 'results');
    fs.mkdirSync(results, { recursive: true });
    const day = new Date().toISOString().slice(0, 10);
    let file = path.join(results, `soak-${day}.json`);
    for (let n = 2; fs.existsSync(file); n++) file = path.join(results, `soak-${day}-${n}.json`);
    fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${path.relative(ROOT, file)}`);
  }
  const a = report.audit;
  log(
    `${report.posts} posts at ${report.load.postsPerSecond}/s, p99 ${report.load.latencyMs.p99} ms; accepted ${a.accepted}, stored ${a.stored}, ` +
      `delivered ${a.delivered}, duplicates ${a.duplicates}, redeliveries ${a.redeliveries}, 5xx ${report.load.fiveXx}, errors ${report.load.errors}`,
  );
  for (const p of problems) log(`FAILED: ${p}`);
  return problems.length ? 1 : 0;
}

try {
  process.exitCode = await main();
} finally {
  await cleanupAll();
}
process.exit();
