import express, { type NextFunction, type Request, type Response } from 'express';
import { AppError } from '../../domain/shared/errors.ts';
import { API_INPUT_LIMITS, decodeJsonText, inputProblem, jsonTextProblem } from '../../domain/shared/input-guard.ts';

// Everything the 415 guard lets through must also be parsed, or it would arrive as an empty body.
const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * JSON bodies for the API, through the one input guard (server/domain/shared/input-guard.ts): express would
 * replace invalid UTF-8 with U+FFFD, so decode strictly first; depth and value count are checked on the
 * text before it is parsed, then every string and key of the value; a body with another content type is
 * 415, never silently an empty object.
 *
 * Bodies are parsed before routing, but a bad body (415, malformed JSON, bad UTF-8) is only reported
 * once the caller is authenticated: a missing or invalid token is 401 whatever the body holds (spec,
 * Authentication 1), and an unknown route stays 404. Oversized bodies are refused at once (413), unread.
 */
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
    if (hasBody && !req.is(JSON_TYPES)) {
      res.locals.bodyError = new AppError('unsupported_media_type', 'Send request bodies as application/json.');
      return next();
    }
    parse(req, res, (err?: unknown) => {
      const type = (err as { type?: string } | undefined)?.type;
      if (err && type !== 'entity.too.large' && type !== 'request.aborted') {
        const refused = (err as { refused?: AppError }).refused;
        res.locals.bodyError = refused ?? err;
        return next();
      }
      // One rule for every string of every body, keys included, whatever the route's schema says of it.
      if (!err && req.body !== undefined) res.locals.bodyError = inputProblem(req.body, { in: 'body' }) ?? undefined;
      next(err);
    });
  };
}

/** Throws the body error `jsonBody` held back; called once the caller is known. */
export function throwDeferredBodyError(res: Response): void {
  if (res.locals.bodyError) throw res.locals.bodyError;
}
