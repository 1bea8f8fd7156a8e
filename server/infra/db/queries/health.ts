import type { Sql } from '../database.ts';

/** A round trip to Postgres through the pool. */
export async function ping(sql: Sql): Promise<void> {
  await sql.query('select 1');
}
