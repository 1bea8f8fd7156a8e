import express, { type NextFunction, type Request, type Response } from 'express';
import { AppError, validationFailed } from '../domain/errors.ts';
import { TEXT_MESSAGE } from '../../contract/common.ts';
import { printable, unstorableText } from '../domain/field-types.ts';
import { jsonShape, jsonTextTooDeep } from '../domain/json-walk.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
// Everything the 415 guard lets through must also be parsed, or it would arrive as an empty body.
const JSON_TYPES = ['application/json', 'application/*+json'];
/** No API body nests deeper or holds more values; checked without recursion before anything walks it. */
export const API_BODY_LIMITS = { maxDepth: 32, maxNodes: 20_000 };

/**
 * JSON bodies for the API: express would replace invalid UTF-8 with U+FFFD, so decode strictly first;
 * a body with another content type is 415, never silently an empty object.
 *
 * Bodies are parsed before routing, but a bad body (415, malformed JSON, bad UTF-8) is only reported
 * once the caller is authenticated: a missing or invalid token is 401 whatever the body holds (spec,
 * Authentication 1), and an unknown route stays 404. Oversized bodies are refused at once (413), unread.
 */
function tooDeepBody(): AppError {
  return validationFailed(
    [{ in: 'body', path: '(root)', message: `JSON bodies are limited to ${API_BODY_LIMITS.maxDepth} levels and ${API_BODY_LIMITS.maxNodes} values.` }],
    'The JSON body is nested too deeply or holds too many values.',
  );
}

export function jsonBody(limit = '1mb') {
  const parse = express.json({
    limit,
    type: JSON_TYPES,
    strict: false,
    verify: (_req, _res, buf) => {
      let text: string;
      try {
        text = strictUtf8.decode(buf);
      } catch {
        throw Object.assign(new Error('invalid utf-8'), { code: 'invalid_utf8', status: 400 });
      }
      // Refused before JSON.parse builds it: parsing a value 300,000 deep alone costs a quarter second.
      // (A plain error: body-parser decorates what verify throws, which an AppError's read-only status forbids.)
      if (jsonTextTooDeep(text, API_BODY_LIMITS.maxDepth)) throw Object.assign(new Error('too deep'), { code: 'json_too_deep', status: 400 });
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
        res.locals.bodyError = (err as { code?: string }).code === 'json_too_deep' ? tooDeepBody() : err;
        return next();
      }
      if (!err && req.body !== undefined) {
        const shape = jsonShape(req.body, API_BODY_LIMITS);
        if (shape.depth > API_BODY_LIMITS.maxDepth || shape.nodes > API_BODY_LIMITS.maxNodes) {
          res.locals.bodyError = tooDeepBody();
        } else {
          // One rule for every string of every body, keys included, whatever the route's schema says of it.
          const bad = unstorableText(req.body);
          if (bad) res.locals.bodyError = validationFailed([{ in: 'body', path: printable(bad), message: TEXT_MESSAGE }]);
        }
      }
      next(err);
    });
  };
}

/** Throws the body error `jsonBody` held back; called once the caller is known. */
export function throwDeferredBodyError(res: Response): void {
  if (res.locals.bodyError) throw res.locals.bodyError;
}
