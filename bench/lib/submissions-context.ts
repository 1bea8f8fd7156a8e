import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { Interrupted, isInterrupted } from './cleanup.ts';

/** The submissions benchmark's shared parts (bench/submissions.ts): its options, what a run holds, small helpers. */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TARGET = { exportRatio: 0.4, rssGrowthMb: 150, listP99Ms: 50 };

export type Options = {
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

/** `intake serve --no-worker`, started by the run. */
export type BenchServer = { pid: number; url: string; stop(): Promise<void> };

export type BenchContext = {
  opts: Options;
  perPage: number;
  dbUrl: string;
  admin: pg.Client;
  server: BenchServer;
  account: { teamId: string; formId: string; token: string };
  fields: string[];
  stats: { files: number };
  idleRssMb: number;
  notes: string[];
};

export const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);
export const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

export function checkInterrupted() {
  if (isInterrupted()) throw new Interrupted();
}

/** EXPLAIN (ANALYZE, BUFFERS) of a query, with its execution time. */
export async function explain(
  c: pg.Client,
  sql: string,
  params: unknown[] = [],
): Promise<{ executionMs: number; plan: string[] }> {
  const { rows } = await c.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers, timing off) ${sql}`, params);
  const plan = rows.map((r) => r['QUERY PLAN']);
  const executionMs = Number(/Execution Time: ([\d.]+) ms/.exec(plan.join('\n'))?.[1] ?? NaN);
  return { executionMs, plan };
}

export function gitInfo(): { commit: string | null; dirty: boolean | null } {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, stdio: 'pipe' })
      .toString()
      .trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--', 'server', 'contract', 'cli'], { cwd: ROOT, stdio: 'pipe' })
        .toString()
        .trim().length > 0;
    return { commit, dirty };
  } catch {
    return { commit: null, dirty: null };
  }
}
