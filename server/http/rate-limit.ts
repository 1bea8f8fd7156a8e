import type { NextFunction, Request, Response } from 'express';
import type { RouteMetadata } from '../../contract/index.ts';
import type { AppContext } from '../context.ts';
import type { Caller } from '../domain/caller.ts';
import { chargeApiBudget } from '../domain/rate-windows.ts';

/**
 * Per-token API budget on the routes the contract marks `rateLimited` (submissions and webhooks):
 * `INTAKE_API_RATE_LIMIT` requests a minute, with the IETF RateLimit headers.
 */
export function apiRateLimit(ctx: AppContext) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const route = (req as Request & { tsRestRoute?: { metadata?: RouteMetadata } }).tsRestRoute;
      if (!route?.metadata?.rateLimited) return next();
      const budget = await chargeApiBudget(ctx, (res.locals.caller as Caller).tokenId);
      res.setHeader('RateLimit-Policy', `${budget.limit};w=${budget.windowSeconds}`);
      res.setHeader('RateLimit', `limit=${budget.limit}, remaining=${budget.remaining}, reset=${budget.resetSeconds}`);
      if (budget.exceeded) {
        res.setHeader('Retry-After', String(budget.resetSeconds));
        throw budget.exceeded;
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}
