import { inject } from 'vitest';
import { citusWorkers, refuseMultiShard } from './databases.ts';
import { startTestApp, type TestApp } from './harness.ts';
import { privateDatabaseUrl, tempDataDir } from './processing.ts';

/** Whether the run's database is a Citus cluster (`make test-citus`). */
export const onCitus = (await citusWorkers(inject('databaseUrl'))) !== null;

/**
 * On Citus, the app on a database of the file's own that refuses every statement touching more than one shard
 * (refuseMultiShard), so a request path not routed by team fails its request; null on plain Postgres.
 */
export async function appRefusingMultiShard(extra: Record<string, string> = {}): Promise<TestApp | null> {
  if (!onCitus) return null;
  const url = await privateDatabaseUrl();
  await refuseMultiShard(url);
  return startTestApp({ DATABASE_URL: url, INTAKE_DATA_DIR: tempDataDir(), ...extra });
}
