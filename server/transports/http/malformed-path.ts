import type { NextFunction, Request, Response } from 'express';
import { validationFailed, type AppError } from '../../domain/shared/errors.ts';

/**
 * A path whose percent-escapes do not decode (`%FF%FE`, `%E0%A4%A`, a lone `%`) is bad input, answered
 * 400 before any route: express would otherwise throw a URIError while matching a route's parameters,
 * which reaches the error handler as a 500. Checked once for every route (REST, MCP, the public endpoint,
 * e-mail and file links, the helper script), so a new route cannot forget it.
 */
export function refuseMalformedPath(req: Request, _res: Response, next: NextFunction) {
  try {
    decodeURIComponent(req.path);
  } catch {
    return next(malformedPath());
  }
  next();
}

export function malformedPath(): AppError {
  return validationFailed(
    [
      {
        in: 'path',
        path: '(path)',
        message: 'The path has a malformed percent-escape (each % takes two hex digits, and the bytes must be UTF-8).',
      },
    ],
    'The request path is malformed.',
  );
}
