import { isUnreachable } from '../../infra/unreachable-errors.ts';
import { AppError } from './errors.ts';

/**
 * A dependency down or restarting (infra/unreachable-errors.ts says which errors) is neither a bug nor the
 * caller's fault: 503 `service_unavailable` with Retry-After, and the process keeps running.
 */

/** Seconds a client is asked to wait before retrying. */
export const RETRY_AFTER_SECONDS = 5;

/** Whether `err` means Postgres or the object store is unreachable; an AppError is a verdict already given. */
export function isOutage(err: unknown): boolean {
  return isUnreachable(err, (e) => e instanceof AppError);
}

export function serviceUnavailable(): AppError {
  return new AppError(
    'service_unavailable',
    'The service is briefly unavailable (a database or storage outage). Nothing was changed; retry shortly.',
    {
      retry_after: RETRY_AFTER_SECONDS,
    },
  );
}
