import express, { type NextFunction, type Request, type Response } from 'express';
import { AppError } from '../../domain/shared/errors.ts';
import { API_INPUT_LIMITS, decodeJsonText, jsonTextProblem } from '../../domain/shared/input-guard.ts';

// Everything the 415 guard lets through must also be parsed, or it would arrive as an empty body.
const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * JSON bodies for the API: decoded as strict UTF-8 (express would replace bad bytes with U+FFFD), depth and
 * value count checked on the text before it is parsed; another content type is 415, never an empty object.
 * A refused body is held in `res.locals.bodyError` for the pipeline's guard step, so a missing token is 401
 * whatever the body holds and an unknown route stays 404. An oversized body is refused at once (413), unread.
 */
export const unsupportedBody = () => new AppError('unsupported_media_type', 'Send request bodies as application/json.');

export function jsonBody(limit = API_INPUT_LIMITS.maxBytes) {
  const parse = express.json({
    limit,
    type: JSON_TYPES,
    strict: false,
    verify: (_req, _res, buf) => {
      let text: string;
      try {
        text = decodeJsonText(buf);
      } catch {
        throw Object.assign(new Error('invalid utf-8'), { code: 'invalid_utf8', status: 400 });
      }
      // Refused before JSON.parse builds it: parsing a value 300,000 deep alone costs a quarter second.
      // (A plain error: body-parser decorates what verify throws, which an AppError's read-only status forbids.)
      const refused = jsonTextProblem(text);
      if (refused) throw Object.assign(new Error('input refused'), { code: 'input_refused', refused, status: 400 });
    },
  });
  return (req: Request, res: Response, next: NextFunction) => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (hasBody && req.is('multipart/form-data')) {
      // Left unread: a route that takes uploads streams it (api.ts); any other refuses it.
      res.locals.multipart = true;
      return next();
    }
    if (hasBody && !req.is(JSON_TYPES)) {
      res.locals.bodyError = unsupportedBody();
      return next();
    }
    parse(req, res, (err?: unknown) => {
      const type = (err as { type?: string } | undefined)?.type;
      if (err && type !== 'entity.too.large' && type !== 'request.aborted') {
        const refused = (err as { refused?: AppError }).refused;
        res.locals.bodyError = refused ?? err;
        return next();
      }
      next(err);
    });
  };
}
