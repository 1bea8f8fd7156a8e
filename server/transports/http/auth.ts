import type { AppRoute } from '@ts-rest/core';
import type { NextFunction, Request, Response } from 'express';
import type { AppContext } from '../../context.ts';
import type { Caller } from '../../domain/accounts/caller.ts';
import { AppError } from '../../domain/shared/errors.ts';
import { authenticateBearer, bearerChallenge, checkAbility } from '../../operations/invoke.ts';
import { refuseFailedAuth, type AuthFailures } from './auth-failures.ts';
import { throwDeferredBodyError } from './body-parsing.ts';

/**
 * REST's framing of invoke's first steps (server/operations/invoke.ts): the caller of
 * `Authorization: Bearer …` (401 with `WWW-Authenticate` otherwise), the route's ability from the
 * contract's metadata (403), then the body guard's verdict, held back until the caller was known. Past
 * INTAKE_AUTH_FAILURE_LIMIT failures from one address a minute, a request without a valid token is refused
 * as at /mcp (server/transports/http/auth-failures.ts).
 */
export function requireAbility(ctx: AppContext, failures: AuthFailures) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const route = (req as Request & { tsRestRoute?: AppRoute }).tsRestRoute;
      const header = req.headers.authorization;
      let caller: Caller;
      try {
        caller = await authenticateBearer(ctx, header);
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'unauthenticated') throw err;
        // The same per-address bound as /mcp: one count of failed authentications for every transport.
        const refused = failures.hit(req.ip);
        if (refused) return void refuseFailedAuth(failures, req, res, refused);
        res.setHeader('WWW-Authenticate', bearerChallenge(header));
        throw err;
      }
      checkAbility(caller, route);
      res.locals.caller = caller;
      throwDeferredBodyError(res);
      next();
    } catch (err) {
      next(err);
    }
  };
}
