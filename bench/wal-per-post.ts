/**
 * Where each post's WAL goes (issue #30): `node bench/wal-per-post.ts [--posts 2000] [--concurrency 4]`.
 *
 * WAL bytes per post do not depend on CPU load, so this measures them without saturating the machine: the
 * same two servers as the ingest bench (bench/ingest.ts: Intake's `serve --no-worker` and the bare-insert
 * baseline) on one embedded Postgres, N posts each at low concurrency, after a CHECKPOINT (so full-page
 * images are counted as in a real run, where a checkpoint comes every few minutes). Before/after
 * `pg_current_wal_lsn()` gives the bytes; pg_walinspect (`pg_get_wal_block_info`, `pg_get_wal_records_info`)
 * splits them by relation (each record goes to the relation of its first block; TOAST tables are named
 * after their owner) and by record kind, with the full-page images apart. What no record holds (page
 * headers, alignment) is the remainder.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { BASELINE_SCHEMA } from './ingest-baseline-server.ts';
import { ingestTargets, seed, type TargetDef } from './ingest.ts';
import { cleanupAll, installSignalHandlers } from './lib/cleanup.ts';
import { BROWSER_HEADERS, contactFormBodies } from './lib/contact-form.ts';
import { scratchDir, startDatabase, startStorage, withClient } from './lib/infra.ts';
import { freePort, waitForHttp } from './lib/processes.ts';
import { walBreakdown, walTable, type WalLine } from './wal-breakdown.ts';

export type WalReport = {
  target: string;
  posts: number;
  concurrency: number;
  walBytesPerPost: number;
  lines: WalLine[];
};

function log(msg: string) {
  process.stderr.write(`wal: ${msg}\n`);
}

async function post(url: string, bodies: string[], count: number, concurrency: number, offset = 0): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const res = await fetch(url, {
        method: 'POST',
        headers: BROWSER_HEADERS,
        body: bodies[(i + offset) % bodies.length],
      });
      await res.arrayBuffer();
      if (res.status !== 201) throw new Error(`post ${i}: ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function measure(
  admin: pg.Client,
  target: TargetDef,
  url: string,
  bodies: string[],
  posts: number,
  concurrency: number,
  byRecord: boolean,
): Promise<WalReport> {
  // Warm the server, its pool and its prepared statements; then start from a checkpoint, as a run does.
  await post(url, bodies, 200, concurrency, posts);
  // Nothing owed by the other target (an autovacuum of its rows would land in this one's WAL).
  await admin.query('vacuum (analyze)');
  await admin.query('checkpoint');
  const before = (await admin.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows[0]!.lsn;
  await post(url, bodies, posts, concurrency);
  const after = (await admin.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows[0]!.lsn;
  const total = Number(
    (await admin.query<{ n: string }>('select $2::pg_lsn - $1::pg_lsn as n', [before, after])).rows[0]!.n,
  );
  const lines = await walBreakdown(admin, before, after, total, byRecord);
  return { target: target.name, posts, concurrency, walBytesPerPost: Math.round(total / posts), lines };
}

export function printWal(reports: WalReport[]): void {
  const base = reports.find((r) => r.target === 'baseline');
  for (const r of reports) {
    console.log(
      `\n${r.target}: ${r.walBytesPerPost} WAL bytes/post (${r.posts} posts, ${r.concurrency} at a time)` +
        (base && r !== base ? ` — ${(r.walBytesPerPost / base.walBytesPerPost).toFixed(2)}× the baseline` : ''),
    );
    for (const line of walTable(r.lines, r.posts)) console.log(line);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      posts: { type: 'string', default: '2000' },
      concurrency: { type: 'string', default: '4' },
      only: { type: 'string' },
      verbose: { type: 'boolean', default: false },
      'by-record': { type: 'boolean', default: false },
    },
  });
  const posts = Number(values.posts);
  const concurrency = Number(values.concurrency);
  installSignalHandlers();
  const dir = scratchDir('intake-wal-');
  const db = await startDatabase(dir, { pgStats: false, log });
  const storageUrl = await startStorage(dir, 'intake-bench');
  const { formId } = await seed(db.url, path.join(dir, 'seed'));
  await withClient(db.url, (c) => c.query(`${BASELINE_SCHEMA}; create extension if not exists pg_walinspect`));
  const poolSize = Number(process.env.DATABASE_POOL_SIZE ?? 10);
  const targets = ingestTargets({ db, storageUrl, dir, formId, poolSize, verbose: values.verbose }).filter(
    (t) => !values.only || t.name === values.only,
  );
  const bodies = contactFormBodies(200);
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  const reports: WalReport[] = [];
  try {
    for (const target of targets) {
      const port = await freePort();
      const child = target.start(port, 1);
      try {
        await waitForHttp(child, `http://127.0.0.1:${port}/healthz`);
        log(`${target.name}: ${posts} posts, ${concurrency} at a time`);
        const report = await measure(
          admin,
          target,
          `http://127.0.0.1:${port}${target.path}`,
          bodies,
          posts,
          concurrency,
          values['by-record'],
        );
        printWal([report]);
        reports.push(report);
      } finally {
        await child.stop();
      }
    }
  } finally {
    await admin.end();
  }
  if (reports.length > 1) printWal(reports);
}

if (import.meta.main) {
  main().then(
    () => cleanupAll().then(() => process.exit(0)),
    async (err: unknown) => {
      console.error(`wal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      await cleanupAll();
      process.exit(1);
    },
  );
}
