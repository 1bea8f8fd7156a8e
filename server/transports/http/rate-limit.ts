import type { AppRoute } from '@ts-rest/core';
import type { NextFunction, Request, Response } from 'express';
import type { AppContext } from '../../context.ts';
import type { Caller } from '../../domain/accounts/caller.ts';
import { chargeRateLimit } from '../../operations/invoke.ts';

/**
 * REST's framing of invoke's rate-limit step: the per-token API budget on the routes the contract marks
 * `cost.budget: 'api'` (`INTAKE_API_RATE_LIMIT` requests a minute), answered with the IETF RateLimit headers.
 */
export function apiRateLimit(ctx: AppContext) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const route = (req as Request & { tsRestRoute?: AppRoute }).tsRestRoute;
      await chargeRateLimit(ctx, route, res.locals.caller as Caller, (budget) => {
        res.setHeader('RateLimit-Policy', `${budget.limit};w=${budget.windowSeconds}`);
        res.setHeader('RateLimit', `limit=${budget.limit}, remaining=${budget.remaining}, reset=${budget.resetSeconds}`);
        if (budget.exceeded) res.setHeader('Retry-After', String(budget.resetSeconds));
      });
      next();
    } catch (err) {
      next(err);
    }
  };
}
