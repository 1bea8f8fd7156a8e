import { inject } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { migrate, openDatabase } from '../../server/infra/db/database.ts';
import { citusWorkers, refuseMultiShard } from './databases.ts';
import { startTestApp, type TestApp } from './harness.ts';
import { privateDatabaseUrl, tempDataDir } from './processing.ts';

/** Whether the run's database is a Citus cluster (`make test-citus`). */
export const onCitus = (await citusWorkers(inject('databaseUrl'))) !== null;

/**
 * On Citus, the app on a database of the file's own that refuses every statement touching more than one shard
 * (refuseMultiShard), so a request path not routed by team fails its request; null on plain Postgres. The
 * migrations run first: they are no request path (a backfill spans every shard).
 */
export async function appRefusingMultiShard(extra: Record<string, string> = {}): Promise<TestApp | null> {
  if (!onCitus) return null;
  const url = await privateDatabaseUrl();
  const dataDir = tempDataDir();
  const db = await openDatabase(loadConfig({ DATABASE_URL: url, INTAKE_DATA_DIR: dataDir }), { connections: 2 });
  await migrate(db).finally(() => db.close());
  await refuseMultiShard(url);
  return startTestApp({ DATABASE_URL: url, INTAKE_DATA_DIR: dataDir, ...extra });
}
