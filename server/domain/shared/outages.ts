import { isUnreachable } from '../../infra/outage-errors.ts';
import { AppError } from './errors.ts';

/**
 * Failures that mean a service we depend on is down or restarting (server/infra/outage-errors.ts says which
 * errors those are) — not a bug and not the caller's fault. They are answered 503 `service_unavailable`
 * with a Retry-After, and the process keeps running: the pg pool opens fresh connections and the S3
 * client retries once the service is back.
 */

/** Seconds a client is asked to wait before retrying. */
export const RETRY_AFTER_SECONDS = 5;

/**
 * True when `err` (or an error it wraps) says Postgres or the object store is unreachable. An AppError is
 * a verdict already given, never an outage, whatever it wraps.
 */
export function isOutage(err: unknown): boolean {
  return isUnreachable(err, (e) => e instanceof AppError);
}

export function serviceUnavailable(): AppError {
  return new AppError('service_unavailable', 'The service is briefly unavailable (a database or storage outage). Nothing was changed; retry shortly.', {
    retry_after: RETRY_AFTER_SECONDS,
  });
}
