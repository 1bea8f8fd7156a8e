import { ERROR_CODES, type ErrorCode } from '../../contract/errors.ts';
import { ERROR_STATUS } from '../../server/domain/shared/errors.ts';
import type { Json } from './schema-repairs.ts';

/** What each code of the closed list means; `satisfies` makes a new code fail to compile until it is described here. */
const MEANINGS = {
  validation_failed: 'The request breaks its schema; `details` lists every failing field (`in`, `path`, `message`).',
  invalid_json: 'The body is not well-formed JSON.',
  unsupported_media_type: 'The body is not in a content type the operation takes (send `application/json`).',
  unauthenticated: 'The bearer token is missing, unknown, expired or revoked.',
  forbidden: 'The token lacks the ability the operation needs, or the caller may not act on this record.',
  ability_exceeds_caller: 'A token cannot be given abilities its creator lacks; `exceeded` lists them.',
  cannot_revoke_active_token: 'A token cannot revoke itself.',
  payment_required: "The team's plan does not include this.",
  plan_limit_reached:
    "One of the plan's limits is reached (forms, webhooks, file storage…); `limit` says which when known.",
  quota_exceeded: "The team's monthly submissions are used up.",
  not_found: 'No such record, or one of another team (reported alike).',
  conflict: 'The request conflicts with the current state of the record.',
  already_running: 'The same work is already under way; wait for it.',
  submission_deleted: 'The submission was deleted.',
  duplicate_submission:
    "A clean submission the form keeps has the same values of a unique rule's fields (`fields`); nothing was stored.",
  form_closed:
    'The form is not taking submissions (`reason`: `not_yet_open`, `closed` or `limit_reached`); nothing was stored.',
  webhook_inactive: 'The webhook is deactivated; activate it first.',
  precondition_failed:
    'The resource changed since the `ETag` sent as `If-Match`; read it again and retry; nothing was changed.',
  payload_too_large: 'The body, or an array or value in it, is past its limit; nothing was kept.',
  captcha_failed: 'The CAPTCHA token is missing, refused or expired.',
  plan_lacks_ai: "The team's plan does not include AI features.",
  rate_limited: 'Too many requests; retry after `Retry-After` seconds (also `retry_after`).',
  request_timeout: 'The body arrived too slowly or not in full; nothing was kept.',
  internal_error: 'A failure on our side; the `X-Request-Id` header identifies the request.',
  service_unavailable:
    'The database or object storage cannot be reached; nothing was changed. Retry after `Retry-After` seconds.',
} as const satisfies Record<ErrorCode, string>;

/** `ErrorBody.error`: the closed list of codes as an enum, each with its status and meaning. */
export function errorCodeSchema(): Json {
  const line = (code: ErrorCode) => `- \`${code}\` (${ERROR_STATUS[code]}): ${MEANINGS[code]}`;
  return {
    type: 'string',
    enum: [...ERROR_CODES],
    description: ['Machine-readable error code, one of:', ERROR_CODES.map(line).join('\n')].join('\n\n'),
    'x-enum-descriptions': ERROR_CODES.map((code) => MEANINGS[code]),
  };
}
