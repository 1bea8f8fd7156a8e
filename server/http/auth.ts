import type { AppRoute } from '@ts-rest/core';
import type { NextFunction, Request, Response } from 'express';
import type { AppContext } from '../context.ts';
import { AppError } from '../domain/shared/errors.ts';
import { authenticateBearer, bearerChallenge, checkAbility } from '../operations/invoke.ts';
import { throwDeferredBodyError } from './body-parsing.ts';

/**
 * REST's framing of invoke's first steps (server/operations/invoke.ts): the caller of
 * `Authorization: Bearer …` (401 with `WWW-Authenticate` otherwise), the route's ability from the
 * contract's metadata (403), then the body guard's verdict, held back until the caller was known.
 */
export function requireAbility(ctx: AppContext) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const route = (req as Request & { tsRestRoute?: AppRoute }).tsRestRoute;
      const header = req.headers.authorization;
      const caller = await authenticateBearer(ctx, header).catch((err: unknown) => {
        if (err instanceof AppError && err.code === 'unauthenticated') res.setHeader('WWW-Authenticate', bearerChallenge(header));
        throw err;
      });
      checkAbility(caller, route);
      res.locals.caller = caller;
      throwDeferredBodyError(res);
      next();
    } catch (err) {
      next(err);
    }
  };
}
