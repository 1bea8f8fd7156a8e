import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../../server/config.ts';
import { migrate, openDatabase } from '../../server/infra/db/database.ts';
import { clusterDir, startEmbeddedPostgres, type EmbeddedPostgres } from '../../server/infra/db/embedded-postgres.ts';
import { citusWorkers, createDatabase, dropDatabase } from './databases.ts';
import { startEmbeddedS3, type EmbeddedS3 } from '../../server/infra/storage/embedded-s3.ts';
import { logDir, scanRunLogs } from './secret-scan.ts';

/**
 * One real Postgres (embedded under the system temp dir, or DATABASE_URL) and one real S3-compatible
 * server for the whole run. Every run gets a fresh database; every test makes its own team.
 *
 * The run's logs — each in-process app's (harness.ts), each child process's (processes.ts) and the
 * embedded Postgres's, which logs every statement with its parameters — are scanned for secrets when the
 * run ends, and the run fails naming each one found (secret-scan.ts).
 */
export default async function setup(project: TestProject) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-test-'));
  fs.chmodSync(scratch, 0o755);
  let embedded: EmbeddedPostgres | null = null;
  let baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) {
    // A cluster of the run's own (initdb costs a few seconds): concurrent runs never share, so one
    // run's teardown cannot stop another's database.
    embedded = await startEmbeddedPostgres(path.join(scratch, 'pg'));
    baseUrl = embedded.url;
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    await client.query(`alter system set log_statement = 'all'`);
    await client.query('select pg_reload_conf()');
    await client.end();
  }
  const dbName = `intake_test_${process.pid}_${Date.now()}`;
  const workers = await citusWorkers(baseUrl);
  const databaseUrl = await createDatabase(baseUrl, dbName);

  const config = loadConfig({ DATABASE_URL: databaseUrl, INTAKE_DATA_DIR: scratch });
  const db = await openDatabase(config, { connections: config.databasePoolSize });
  await migrate(db);
  await db.close();

  const s3: EmbeddedS3 = await startEmbeddedS3(scratch, 'intake-test');
  project.provide('databaseUrl', databaseUrl);
  project.provide('storageUrl', s3.url);
  project.provide('scratchDir', scratch);

  return async () => {
    await s3.stop();
    await dropDatabase(baseUrl, dbName, workers).catch(() => {});
    await embedded?.stop();
    const pgLog = path.join(clusterDir(path.join(scratch, 'pg')), 'server.log');
    if (process.env.TEST_KEEP_LOGS) {
      // The logs the scan reads, kept for a look (the run's throw-away secrets among them).
      fs.mkdirSync(process.env.TEST_KEEP_LOGS, { recursive: true });
      if (fs.existsSync(logDir(scratch))) fs.cpSync(logDir(scratch), process.env.TEST_KEEP_LOGS, { recursive: true });
      if (fs.existsSync(pgLog)) fs.cpSync(pgLog, path.join(process.env.TEST_KEEP_LOGS, 'postgres.log'));
    }
    try {
      console.log(
        await scanRunLogs(scratch, {
          postgresLog: pgLog,
          postgresPassword: embedded ? decodeURIComponent(new URL(embedded.url).password) : null,
        }),
      );
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    storageUrl: string;
    scratchDir: string;
  }
}
