import type { Logger } from 'pino';
import { AppError } from '../domain/shared/errors.ts';
import { isOutage, serviceUnavailable } from '../domain/shared/outages.ts';

/**
 * What every transport answers for something an operation threw: an AppError as it is, an outage of a
 * service we depend on 503, anything else 500 (logged, never explained). Null when the client went away:
 * nobody is left to answer, and it is not our failure to log as one.
 */
export function errorAnswer(err: unknown, log: Logger, where: Record<string, unknown>): AppError | null {
  if ((err as { type?: string } | null)?.type === 'request.aborted') {
    log.debug(where, 'client aborted the request body');
    return null;
  }
  if (err instanceof AppError) return err;
  if (isOutage(err)) {
    log.warn({ err, ...where }, 'a service we depend on is unavailable');
    return serviceUnavailable();
  }
  log.error({ err, ...where }, 'unhandled error');
  const requestId = where.requestId;
  return new AppError(
    'internal_error',
    'Something went wrong on our side. Quote the request id when you report it.',
    requestId ? { request_id: requestId } : {},
  );
}
