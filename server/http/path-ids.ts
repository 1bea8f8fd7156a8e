import type { NextFunction, Request, Response } from 'express';
import { notFound } from '../domain/errors.ts';
import { isId, type IdPrefix } from '../domain/ids.ts';

/** Path parameters that name a record, with the id prefix and the name of what they name. */
export const PATH_IDS: Record<string, [IdPrefix, string]> = {
  form: ['frm', 'Form'],
  submission: ['subm', 'Submission'],
  file: ['file', 'File'],
  token: ['tok', 'Token'],
  webhook: ['wh', 'Webhook'],
  webhook_id: ['wh', 'Webhook'],
  delivery: ['whd', 'Delivery'],
  delivery_id: ['whd', 'Delivery'],
  job_id: ['job', 'Job'],
};

/**
 * Ids in the path are checked by shape (prefix + ULID) before any query: what cannot be an id is a record
 * that does not exist (404), and never reaches SQL. After authentication, so 401 and 403 come first.
 */
export function checkPathIds(req: Request, _res: Response, next: NextFunction) {
  for (const [param, value] of Object.entries(req.params ?? {})) {
    const expected = PATH_IDS[param];
    if (expected && !isId(expected[0], value)) return next(notFound(expected[1]));
  }
  next();
}
