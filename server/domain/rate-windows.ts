import type { AppContext } from '../context.ts';

export type WindowHit = { hits: number; resetSeconds: number };

/**
 * The upsert of a fixed-window counter in Postgres (so every process on the database shares one
 * budget), returning the window's hit count with this hit and the seconds until it resets. `key` and
 * `seconds` are SQL expressions (parameters); `from` optionally restricts the hit to a row source.
 */
export function windowHitSql(key: string, seconds: string, from = ''): string {
  return `insert into rate_limit_windows as w (key, window_start, hits)
     select ${key}, to_timestamp(floor(extract(epoch from now()) / ${seconds}) * ${seconds}), 1 ${from}
     on conflict (key, window_start) do update set hits = w.hits + 1
     returning w.hits, ceil(extract(epoch from (w.window_start + make_interval(secs => ${seconds}) - now())))::int as reset`;
}

export async function hitWindow(ctx: AppContext, key: string, windowSeconds: number): Promise<WindowHit> {
  const { rows } = await ctx.pool.query<{ hits: number; reset: number }>({
    name: 'intake_hit_window',
    text: windowHitSql('$1::text', '$2::int'),
    values: [key, windowSeconds],
  });
  pruneWindows(ctx);
  return { hits: rows[0]!.hits, resetSeconds: Math.max(1, rows[0]!.reset) };
}

/** Old windows are garbage: pruned now and then rather than on a schedule. */
export function pruneWindows(ctx: AppContext): void {
  if (Math.random() < 0.001) {
    void ctx.pool.query(`delete from rate_limit_windows where window_start < now() - interval '1 hour'`).catch(() => {});
  }
}
