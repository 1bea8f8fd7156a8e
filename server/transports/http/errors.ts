import type { NextFunction, Request, Response } from 'express';
import type { RequestValidationError } from '@ts-rest/express';
import type { ZodError } from 'zod';
import type { Logger } from 'pino';
import { AppError, type ErrorDetail } from '../../domain/shared/errors.ts';
import { isOutage, serviceUnavailable } from '../../domain/shared/outages.ts';
import { lingeringClose } from './lingering-close.ts';
import { malformedPath } from './path-ids.ts';

function zodDetails(where: ErrorDetail['in'], error: ZodError | null): ErrorDetail[] {
  if (!error) return [];
  return error.issues.map((i) => ({ in: where, path: i.path.join('.') || '(root)', message: i.message }));
}

/** ts-rest reports only a raw ZodError per part: report every failing part in the one error shape. */
export function requestValidationErrorHandler(err: RequestValidationError, _req: Request, _res: Response, next: NextFunction) {
  const details = [
    ...zodDetails('path', err.pathParams),
    ...zodDetails('header', err.headers),
    ...zodDetails('query', err.query),
    ...zodDetails('body', err.body),
  ];
  next(new AppError('validation_failed', details.map((d) => `${d.in} ${d.path}: ${d.message}`).join('; '), { details }));
}

/** Turns anything thrown into the error body; 5xx are logged with the request id, never explained. */
export function errorHandler(log: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    let appError: AppError;
    const e = err as { type?: string; status?: number; code?: string };
    if (e?.type === 'request.aborted') {
      // The client hung up mid-body: nobody is left to answer, and it is not our failure to log as one.
      log.debug({ requestId: res.locals.requestId, method: req.method, path: req.path }, 'client aborted the request body');
      return void res.end();
    }
    if (err instanceof AppError) appError = err;
    // Express decodes route parameters itself and throws a URIError (status 400) on a bad escape; the
    // early path check answers first, this keeps any route mounted before it from answering 500.
    else if (err instanceof URIError && e.status === 400) appError = malformedPath();
    else if (e?.type === 'entity.parse.failed') appError = new AppError('invalid_json', 'The request body is not valid JSON.');
    else if (e?.type === 'entity.too.large') appError = new AppError('payload_too_large', 'The request body is too large.');
    // JSON text is UTF-8 (RFC 8259 §8.1): other bytes are malformed JSON, not a field-level validation failure.
    else if (e?.code === 'invalid_utf8') appError = new AppError('invalid_json', 'The request body is not valid UTF-8.');
    else if (e?.type === 'charset.unsupported' || e?.type === 'encoding.unsupported') {
      appError = new AppError('unsupported_media_type', 'Unsupported body encoding.');
    } else if (isOutage(err)) {
      log.warn({ err, requestId: res.locals.requestId, method: req.method, path: req.path }, 'a service we depend on is unavailable');
      appError = serviceUnavailable();
    } else {
      log.error({ err, requestId: res.locals.requestId, method: req.method, path: req.path }, 'unhandled error');
      appError = new AppError('internal_error', 'Something went wrong on our side. Quote the request id when you report it.', {
        request_id: res.locals.requestId,
      });
    }
    if (res.headersSent) return res.end();
    closeUnreadBody(req, res);
    if (typeof appError.extra.retry_after === 'number') res.setHeader('Retry-After', String(appError.extra.retry_after));
    res.status(appError.status).json(appError.toBody());
  };
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
