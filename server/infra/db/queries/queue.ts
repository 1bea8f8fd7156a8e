import type { Sql } from '../database.ts';

/** pg-boss's LISTEN channel for a schema (its notifyChannelSql); the queue-wake test fails if it ever differs. */
const channel = (schema: string) =>
  `'pgboss_' || left(encode(sha224('${schema.replace(/'/g, "''")}'::bytea), 'hex'), 24)`;

/** Wakes the workers listening for a queue's jobs. */
export async function notifyQueue(sql: Sql, schema: string, queue: string): Promise<void> {
  await sql.query(`select pg_notify(${channel(schema)}, $1)`, [queue], 'intake_wake_workers');
}

/** Plans (never runs) `insert` as a CTE with its one parameter: throws when it could not be embedded. */
export async function planEmbedded(sql: Sql, insert: string, value: unknown): Promise<void> {
  await sql.query(`explain with job as (${insert}) select 1 from job`, [value]);
}

/** Which of `keys` (singleton keys) still have a job of the queue waiting, retrying or running. */
export async function keysWithLiveJobs(sql: Sql, schema: string, queue: string, keys: string[]): Promise<Set<string>> {
  if (!keys.length) return new Set();
  const { rows } = await sql.query<{ key: string }>(
    `select distinct singleton_key as key from ${schema}.job where name = $1 and singleton_key = any($2::text[]) and state < 'completed'`,
    [queue, keys],
  );
  return new Set(rows.map((r) => r.key));
}
