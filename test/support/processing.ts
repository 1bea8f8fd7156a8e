import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, inject } from 'vitest';
import { citusWorkers, createDatabase, dropDatabase } from './databases.ts';
import { startTestApp, type TestApp } from './harness.ts';
import type { StoredSubmission } from './forms.ts';

/**
 * A database of this test file's own (created empty; boot migrates it), dropped after the file.
 * pg-boss queues live in the database, so a worker started on the shared run database would also
 * take the jobs of every other test file running beside it (and they assert `received`).
 */
export async function privateDatabaseUrl(): Promise<string> {
  const shared = inject('databaseUrl');
  const name = `${new URL(shared).pathname.slice(1)}_${randomBytes(4).toString('hex')}`;
  const workers = await citusWorkers(shared);
  const url = await createDatabase(shared, name);
  // Registered before the app's own afterAll, so it runs after the app has closed its pools.
  afterAll(() => dropDatabase(shared, name, workers));
  return url;
}

/** A fresh temporary directory for INTAKE_DATA_DIR (mail files, secret key), removed after the file. */
export function tempDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-data-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The app with a pg-boss worker consuming its jobs, as `intake serve` runs, on a private database and
 * data directory. `worker: false` gives the same isolation for tests that drive jobs themselves.
 */
export async function startProcessingApp(
  env: Record<string, string> = {},
  opts: { worker?: boolean } = {},
): Promise<TestApp & { dataDir: string; databaseUrl: string }> {
  const databaseUrl = await privateDatabaseUrl();
  const dataDir = env.INTAKE_DATA_DIR ?? tempDataDir();
  const t = await startTestApp(
    { DATABASE_URL: databaseUrl, INTAKE_DATA_DIR: dataDir, ...env },
    { worker: opts.worker ?? true },
  );
  return { ...t, dataDir, databaseUrl };
}

export async function submission(t: TestApp, id: string): Promise<StoredSubmission & { updated_at: string }> {
  const { rows } = await t.ctx.db.query<StoredSubmission & { updated_at: string }>(
    'select id, status, spam_reason, category, ai_moderation, payload, metadata, updated_at::text from submissions where id = $1',
    [id],
  );
  if (!rows[0]) throw new Error(`no submission ${id}`);
  return rows[0];
}

/** Polls until the submission leaves `received` (the worker is woken by NOTIFY, so this is quick). */
export async function waitForProcessing(
  t: TestApp,
  id: string,
  timeoutMs = 10_000,
): Promise<StoredSubmission & { updated_at: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await submission(t, id);
    if (s.status !== 'received') return s;
    if (Date.now() > deadline) throw new Error(`submission ${id} still received after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export type QueuedJob = { id: string; name: string; state: string; retry_count: number };

/** The pg-boss jobs (any state) whose payload names this submission. */
export async function jobsFor(t: TestApp, submissionId: string, name?: string): Promise<QueuedJob[]> {
  const { rows } = await t.ctx.db.query<QueuedJob>(
    `select id::text, name, state::text, retry_count from pgboss.job
      where data->>'submissionId' = $1 and ($2::text is null or name = $2) order by created_on`,
    [submissionId, name ?? null],
  );
  return rows;
}

/** Posts a urlencoded form the way a browser does, asking for JSON back; returns the submission id. */
export async function postForm(
  t: TestApp,
  endpoint: string,
  fields: Record<string, string | string[]>,
): Promise<string> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const value of [v].flat()) body.append(k, value);
  const res = await t.http.post(endpoint).type('form').set('Accept', 'application/json').send(body.toString());
  if (res.status !== 201) throw new Error(`post failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}
