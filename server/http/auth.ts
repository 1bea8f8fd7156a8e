import type { NextFunction, Request, Response } from 'express';
import type { RouteMetadata } from '../../contract/index.ts';
import type { AppContext } from '../context.ts';
import { requireAbility as requireCallerAbility } from '../domain/caller.ts';
import { AppError } from '../domain/errors.ts';
import { authenticate } from '../domain/tokens.ts';
import { throwDeferredBodyError } from './body-parsing.ts';

/**
 * Resolves `Authorization: Bearer …` to the caller (401 otherwise) and enforces the route's ability
 * from the contract's metadata (403 otherwise). The one place abilities are checked.
 */
export function requireAbility(ctx: AppContext) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const route = (req as Request & { tsRestRoute?: { metadata?: RouteMetadata } }).tsRestRoute;
      const header = req.headers.authorization ?? '';
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="intake"'); // RFC 6750 §3: say how to authenticate
        throw new AppError('unauthenticated', 'Send a token: Authorization: Bearer <token>.');
      }
      const caller = await authenticate(ctx, match[1]!);
      if (!caller) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="intake", error="invalid_token"');
        throw new AppError('unauthenticated', 'The token is invalid or has been revoked.');
      }
      requireCallerAbility(caller, route?.metadata?.ability ?? null);
      res.locals.caller = caller;
      throwDeferredBodyError(res);
      next();
    } catch (err) {
      next(err);
    }
  };
}
