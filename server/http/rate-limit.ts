import type { NextFunction, Request, Response } from 'express';
import type { RouteMetadata } from '../../contract/index.ts';
import type { AppContext } from '../context.ts';
import type { Caller } from '../domain/caller.ts';
import { AppError } from '../domain/errors.ts';
import { hitWindow } from '../domain/rate-windows.ts';

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
