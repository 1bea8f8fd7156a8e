import type { NextFunction, Request, Response } from 'express';
import type { AppRoute } from '@ts-rest/core';
import { isZodType } from '@ts-rest/core';
import type { Logger } from 'pino';
import { ErrorBody } from '../../../contract/common.ts';

/** Checks every JSON response against the contract; a mismatch becomes a 500 `response_invalid`, so tests catch drift. */
export function responseValidation(log: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      const route = res.locals.route as AppRoute | undefined;
      const problem = check(route, res.statusCode, body);
      if (problem) {
        log.error(
          { method: req.method, path: req.path, status: res.statusCode, problem, body },
          'response does not match the contract',
        );
        res.status(500);
        return json({ error: 'response_invalid', message: `Response does not match the contract: ${problem}` });
      }
      return json(body);
    };
    next();
  };
}

function check(route: AppRoute | undefined, status: number, body: unknown): string | null {
  // Any route can fail on our side, or be cut off for a crawling body (408); the contract cannot usefully
  // declare those. Keep the error body (and its request id) instead of masking it as `response_invalid`.
  if (!route || status >= 500 || status === 408) {
    if (status < 400) return `no contract route for a ${status} response`;
    const r = ErrorBody.safeParse(body);
    return r.success ? null : r.error.message;
  }
  const schema = (route.responses as Record<number, unknown>)[status];
  if (schema === undefined) return `status ${status} is not declared for ${route.method} ${route.path}`;
  if (!isZodType(schema)) return null;
  const r = schema.safeParse(body);
  return r.success ? null : JSON.stringify(r.error.issues);
}
