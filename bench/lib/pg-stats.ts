import type pg from 'pg';

/** The benchmark's own statements (samplers, snapshots), left out of what the server is charged for. */
const NOT_THE_BENCH = `dbid = (select oid from pg_database where datname = current_database())
  and query not ilike '%pg_stat_activity%' and query not ilike '%pg_current_wal_lsn%' and query not ilike '%pg_stat_statements%'`;

export type StatementStat = {
  calls: number;
  total_ms: number;
  mean_ms: number;
  mean_plan_ms: number;
  wal_bytes: number;
  query: string;
};

/** The statements that took the most time since the last reset (pg_stat_statements), with the WAL each wrote. */
export async function topStatements(c: pg.Client, limit = 12): Promise<StatementStat[]> {
  const { rows } = await c.query<Omit<StatementStat, 'calls' | 'wal_bytes'> & { calls: string; wal_bytes: string }>(
    `select calls, round(total_exec_time::numeric, 1)::float8 as total_ms, round(mean_exec_time::numeric, 3)::float8 as mean_ms,
            round(mean_plan_time::numeric, 3)::float8 as mean_plan_ms, wal_bytes::bigint::text as wal_bytes,
            left(regexp_replace(query, '\\s+', ' ', 'g'), 160) as query
       from pg_stat_statements where ${NOT_THE_BENCH}
      order by total_exec_time + total_plan_time desc limit $1`,
    [limit],
  );
  return rows.map((r) => ({ ...r, calls: Number(r.calls), wal_bytes: Number(r.wal_bytes) }));
}

export async function resetStatements(c: pg.Client): Promise<void> {
  await c.query('select pg_stat_statements_reset()');
}
