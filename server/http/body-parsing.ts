import express, { type NextFunction, type Request, type Response } from 'express';
import { AppError } from '../domain/errors.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * JSON bodies for the API: express would replace invalid UTF-8 with U+FFFD, so decode strictly first;
 * a body with another content type is 415, never silently an empty object.
 */
export function jsonBody(limit = '1mb') {
  const parse = express.json({
    limit,
    strict: false,
    verify: (_req, _res, buf) => {
      try {
        strictUtf8.decode(buf);
      } catch {
        throw Object.assign(new Error('invalid utf-8'), { code: 'invalid_utf8', status: 400 });
      }
    },
  });
  return (req: Request, res: Response, next: NextFunction) => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (hasBody && !req.is('application/json') && !req.is('application/*+json')) {
      return next(new AppError('unsupported_media_type', 'Send request bodies as application/json.'));
    }
    parse(req, res, next);
  };
}
