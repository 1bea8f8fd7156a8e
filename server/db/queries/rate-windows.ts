import type { Sql } from '../database.ts';

export type WindowRow = { hits: number; reset: number };

/**
 * The upsert of a fixed-window counter (rate_limit_windows is UNLOGGED: a hit costs no WAL flush, and a
 * crash merely forgets a minute of counts), returning the window's hits with this one and the seconds
 * until it resets. `key` and `seconds` are SQL expressions over the statement's parameters.
 */
export function windowHit(key: string, seconds: string, from = ''): string {
  return `insert into rate_limit_windows as w (key, window_start, hits)
     select ${key}, to_timestamp(floor(extract(epoch from now()) / ${seconds}) * ${seconds}), 1 ${from}
     on conflict (key, window_start) do update set hits = w.hits + 1
     returning w.hits, ceil(extract(epoch from (w.window_start + make_interval(secs => ${seconds}) - now())))::int as reset`;
}

export async function hitWindow(sql: Sql, key: string, windowSeconds: number): Promise<WindowRow> {
  const { rows } = await sql.query<WindowRow>(windowHit('$1::text', '$2::int'), [key, windowSeconds], 'intake_hit_window');
  return rows[0]!;
}

export async function pruneWindows(sql: Sql): Promise<void> {
  await sql.query(`delete from rate_limit_windows where window_start < now() - interval '1 hour'`);
}
