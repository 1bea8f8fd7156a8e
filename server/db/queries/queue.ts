import type { Sql } from '../database.ts';

/** pg-boss's LISTEN channel for a schema (its notifyChannelSql); the queue-wake test fails if it ever differs. */
const channel = (schema: string) => `'pgboss_' || left(encode(sha224('${schema.replace(/'/g, "''")}'::bytea), 'hex'), 24)`;

/** Wakes the workers listening for a queue's jobs. */
export async function notifyQueue(sql: Sql, schema: string, queue: string): Promise<void> {
  await sql.query(`select pg_notify(${channel(schema)}, $1)`, [queue], 'intake_wake_workers');
}

/** Plans (never runs) `insert` as a CTE with its one parameter: throws when it could not be embedded. */
export async function planEmbedded(sql: Sql, insert: string, value: unknown): Promise<void> {
  await sql.query(`explain with job as (${insert}) select 1 from job`, [value]);
}
