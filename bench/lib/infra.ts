import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  clusterDir,
  ensureDatabase,
  startEmbeddedPostgres,
  type EmbeddedPostgres,
} from '../../server/infra/db/embedded-postgres.ts';
import { startEmbeddedS3 } from '../../server/infra/storage/embedded-s3.ts';
import { onCleanup } from './cleanup.ts';

/** A scratch directory under the system temp dir, removed on cleanup. */
export function scratchDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  // Reachable by the postgres user when we run as root, so the cluster can live inside it.
  fs.chmodSync(dir, 0o755);
  onCleanup(
    `remove ${dir}`,
    () => fs.rmSync(dir, { recursive: true, force: true }),
    () => fs.rmSync(dir, { recursive: true, force: true }),
  );
  return dir;
}

export type BenchDatabase = {
  /** The benchmark's own database. */
  url: string;
  kind: 'embedded' | 'external';
  /** The postmaster's pid, when it runs on this machine (embedded): for CPU accounting. */
  postmasterPid(): number | null;
  pgStatStatements: boolean;
  settings: Record<string, string>;
};

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function withPath(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/**
 * DATABASE_URL when set (a fresh database on it, dropped afterwards), else an embedded Postgres in a
 * fresh cluster under `dir`, stopped afterwards. With `pgStats`, pg_stat_statements is preloaded
 * (embedded: by a restart after `ALTER SYSTEM`; external: only if the server already preloads it).
 */
export async function startDatabase(
  dir: string,
  opts: { pgStats: boolean; log: (msg: string) => void },
): Promise<BenchDatabase> {
  const external = process.env.DATABASE_URL;
  let embedded: EmbeddedPostgres | null = null;
  let serverUrl: string;
  const dbName = `intake_bench_${process.pid}_${Date.now()}`;
  let cluster: string | null = null;

  const startEmbedded = async () => {
    embedded = await startEmbeddedPostgres(path.join(dir, 'pg'), opts.log);
    const pgRef = embedded;
    onCleanup(
      'embedded Postgres',
      () => pgRef.stop(),
      () => void pgRef.stop(),
    );
    return embedded.url;
  };

  if (external) {
    serverUrl = external;
  } else {
    cluster = clusterDir(path.join(dir, 'pg'));
    serverUrl = await startEmbedded();
    if (opts.pgStats) {
      opts.log('enabling pg_stat_statements (restarting the embedded Postgres)');
      await withClient(withPath(serverUrl, 'postgres'), async (c) => {
        await c.query(`alter system set shared_preload_libraries = 'pg_stat_statements'`);
        // Planning time too: the driver sends unnamed statements, so every execution is parsed and planned.
        await c.query(`alter system set pg_stat_statements.track_planning = on`);
      });
      await embedded!.stop();
      serverUrl = await startEmbedded();
    }
  }

  await ensureDatabase(withPath(serverUrl, 'postgres'), dbName);
  const url = withPath(serverUrl, dbName);
  if (external) {
    onCleanup(`drop database ${dbName}`, () =>
      withClient(
        withPath(serverUrl, 'postgres'),
        async (c) => void (await c.query(`drop database if exists "${dbName}" with (force)`)),
      ),
    );
  }

  let pgStatStatements = false;
  if (opts.pgStats) {
    try {
      await withClient(url, (c) => c.query('create extension if not exists pg_stat_statements'));
      await withClient(url, (c) => c.query('select pg_stat_statements_reset()'));
      pgStatStatements = true;
    } catch (err) {
      opts.log(`pg_stat_statements unavailable: ${(err as Error).message}`);
    }
  }

  const settings = await withClient(url, async (c) => {
    const { rows } = await c.query<{ name: string; setting: string; unit: string | null }>(
      `select name, setting, unit from pg_settings
        where name in ('server_version', 'shared_buffers', 'synchronous_commit', 'fsync', 'wal_level', 'max_connections',
                       'max_wal_size', 'checkpoint_timeout', 'shared_preload_libraries')`,
    );
    return Object.fromEntries(rows.map((r) => [r.name, r.unit ? `${r.setting} ${r.unit}` : r.setting]));
  });

  return {
    url,
    kind: external ? 'external' : 'embedded',
    pgStatStatements,
    settings,
    postmasterPid() {
      if (!cluster) return null;
      try {
        return Number(fs.readFileSync(path.join(cluster, 'postmaster.pid'), 'utf8').split('\n')[0]) || null;
      } catch {
        return null;
      }
    },
  };
}

/** s3rver in this process (the ingest path only touches it for file uploads). */
export async function startStorage(dir: string, bucket: string): Promise<string> {
  const s3 = await startEmbeddedS3(dir, bucket);
  onCleanup('embedded S3', () => s3.stop());
  return s3.url;
}

export { withClient };
