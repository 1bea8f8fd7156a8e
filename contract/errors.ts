/** Every error code the API answers with (`{ error: <code>, message, … }`); the server maps each to its status. */
export const ERROR_CODES = [
  'validation_failed',
  'invalid_json',
  'unsupported_media_type',
  'unauthenticated',
  'forbidden',
  'ability_exceeds_caller',
  'cannot_revoke_active_token',
  'payment_required',
  'plan_limit_reached',
  'quota_exceeded',
  'not_found',
  'conflict',
  'already_running',
  'submission_deleted',
  'duplicate_submission',
  'form_closed',
  'webhook_inactive',
  'payload_too_large',
  'captcha_failed',
  'plan_lacks_ai',
  'rate_limited',
  'request_timeout',
  'internal_error',
  'service_unavailable',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
