import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../../domain/shared/errors.ts';
import { errorAnswer } from '../../operations/errors.ts';
import { lingeringClose } from './lingering-close.ts';
import { malformedPath } from './malformed-path.ts';

/** Turns anything thrown into the error body: HTTP's own parse errors here, the rest as every transport does. */
export function errorHandler(log: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const appError =
      parseError(err) ??
      errorAnswer(err, log, { requestId: res.locals.requestId, method: req.method, path: loggedPath(req) });
    if (!appError) return void res.end();
    if (res.headersSent) return res.end();
    closeUnreadBody(req, res);
    if (typeof appError.extra.retry_after === 'number')
      res.setHeader('Retry-After', String(appError.extra.retry_after));
    res.status(appError.status).json(appError.toBody());
  };
}

/**
 * The path as logged: the matched route's pattern when there is one, since some paths carry a secret (a signed
 * link's token in `/a/:token`, a file link's signature); the raw path only for a request no route took.
 */
function loggedPath(req: Request): string {
  const route = (req.route as { path?: unknown } | undefined)?.path;
  return typeof route === 'string' ? `${req.baseUrl}${route}` : req.path;
}

/** What express and its body parser throw for a request they could not read. */
function parseError(err: unknown): AppError | null {
  const e = err as { type?: string; status?: number; code?: string } | null;
  // Express decodes route parameters itself and throws a URIError (status 400) on a bad escape; the early
  // path check answers first, this keeps any route mounted before it from answering 500.
  if (err instanceof URIError && e?.status === 400) return malformedPath();
  if (e?.type === 'entity.parse.failed') return new AppError('invalid_json', 'The request body is not valid JSON.');
  if (e?.type === 'entity.too.large') return new AppError('payload_too_large', 'The request body is too large.');
  // JSON text is UTF-8 (RFC 8259 §8.1): other bytes are malformed JSON, not a field-level validation failure.
  if (e?.code === 'invalid_utf8') return new AppError('invalid_json', 'The request body is not valid UTF-8.');
  if (e?.type === 'charset.unsupported' || e?.type === 'encoding.unsupported')
    return new AppError('unsupported_media_type', 'Unsupported body encoding.');
  return null;
}

const closeLingering = lingeringClose();

/**
 * An answer given before the request body was read (413, 402, 404 for an upload) closes the connection:
 * Node would otherwise read — and the client keep sending — the whole rest of the body before the next
 * request. The connection lingers, draining the rest within bounds, so a client still sending reads the
 * answer rather than a reset (server/transports/http/lingering-close.ts).
 */
export function closeUnreadBody(req: Request, res: Response): void {
  if (req.complete || (!req.headers['content-length'] && !req.headers['transfer-encoding'])) return;
  closeLingering(req, res);
}

export function notFoundHandler(req: Request, _res: Response, next: NextFunction) {
  next(new AppError('not_found', `No route for ${req.method} ${req.path}.`));
}
