import type { NextFunction, Request, Response } from 'express';
import type { RouteMetadata } from '../../contract/index.ts';
import type { AppContext } from '../context.ts';
import type { Caller } from '../domain/caller.ts';
import { AppError } from '../domain/errors.ts';

export type WindowHit = { hits: number; resetSeconds: number };

/**
 * A fixed-window counter in Postgres, so every process on the database shares one budget.
 * Returns the hit count in the current window (this hit included) and the seconds until it resets.
 */
export async function hitWindow(ctx: AppContext, key: string, windowSeconds: number): Promise<WindowHit> {
  const { rows } = await ctx.pool.query<{ hits: number; reset: string }>({
    name: 'intake_hit_window',
    text: `insert into rate_limit_windows as w (key, window_start, hits)
     values ($1, to_timestamp(floor(extract(epoch from now()) / $2) * $2), 1)
     on conflict (key, window_start) do update set hits = w.hits + 1
     returning w.hits, ceil(extract(epoch from (w.window_start + make_interval(secs => $2) - now()))) as reset`,
    values: [key, windowSeconds],
  });
  if (Math.random() < 0.001) {
    // Old windows are garbage: prune now and then rather than on a schedule.
    void ctx.pool.query(`delete from rate_limit_windows where window_start < now() - interval '1 hour'`).catch(() => {});
  }
  return { hits: rows[0]!.hits, resetSeconds: Math.max(1, Number(rows[0]!.reset)) };
}

/**
 * Per-token API budget on the routes the contract marks `rateLimited` (submissions and webhooks):
 * `INTAKE_API_RATE_LIMIT` requests a minute, with the IETF RateLimit headers.
 */
export function apiRateLimit(ctx: AppContext) {
  const limit = ctx.config.apiRateLimit;
  const windowSeconds = 60;
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const route = (req as Request & { tsRestRoute?: { metadata?: RouteMetadata } }).tsRestRoute;
      if (!route?.metadata?.rateLimited) return next();
      const caller = res.locals.caller as Caller;
      const { hits, resetSeconds } = await hitWindow(ctx, `api:${caller.tokenId}`, windowSeconds);
      const remaining = Math.max(0, limit - hits);
      res.setHeader('RateLimit-Policy', `${limit};w=${windowSeconds}`);
      res.setHeader('RateLimit', `limit=${limit}, remaining=${remaining}, reset=${resetSeconds}`);
      if (hits > limit) {
        res.setHeader('Retry-After', String(resetSeconds));
        throw new AppError('rate_limited', `Rate limit of ${limit} requests per minute reached.`, { retry_after: resetSeconds });
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}
