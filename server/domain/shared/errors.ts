import type { ErrorCode } from '../../../contract/errors.ts';

export type { ErrorCode };

/** The HTTP status of each error code (the closed list is contract/errors.ts; `satisfies` keeps both in step). */
export const ERROR_STATUS = {
  validation_failed: 400,
  invalid_json: 400,
  unsupported_media_type: 415,
  unauthenticated: 401,
  forbidden: 403,
  ability_exceeds_caller: 403,
  cannot_revoke_active_token: 403,
  payment_required: 402,
  plan_limit_reached: 402,
  quota_exceeded: 402,
  not_found: 404,
  conflict: 409,
  already_running: 409,
  submission_deleted: 409,
  duplicate_submission: 409,
  form_closed: 403,
  webhook_inactive: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  captcha_failed: 422,
  plan_lacks_ai: 423,
  rate_limited: 429,
  request_timeout: 408,
  internal_error: 500,
  service_unavailable: 503,
} as const satisfies Record<ErrorCode, number>;

export type ErrorDetail = { in: 'body' | 'query' | 'path' | 'header'; path: string; message: string };

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly extra: Record<string, unknown>;
  /** A status other than the code's usual one (the public endpoint's 422 for a post that breaks the form's schema). */
  private readonly statusOverride: number | undefined;

  constructor(code: ErrorCode, message: string, extra: Record<string, unknown> = {}, status?: number) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.extra = extra;
    this.statusOverride = status;
  }

  get status(): number {
    return this.statusOverride ?? ERROR_STATUS[this.code];
  }

  toBody(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...this.extra };
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found.`);

export function validationFailed(details: ErrorDetail[], message = 'The request is invalid.'): AppError {
  return new AppError('validation_failed', message, { details });
}
