import type { NextFunction, Request, Response } from 'express';
import { assertPathIds } from '../domain/ids.ts';

/**
 * Ids in the path are checked by shape (prefix + ULID) before any query: what cannot be an id is a record
 * that does not exist (404), and never reaches SQL. After authentication, so 401 and 403 come first.
 */
export function checkPathIds(req: Request, _res: Response, next: NextFunction) {
  try {
    assertPathIds(req.params ?? {});
    next();
  } catch (err) {
    next(err);
  }
}
