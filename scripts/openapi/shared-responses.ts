import { ErrorBody } from '../../contract/index.ts';
import { jsonContent, type Json } from './schema-repairs.ts';

/** What an error status means on this API; 403 is filled in per route with its ability. */
export const ERROR_MEANINGS: Record<string, string> = {
  '400':
    'Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`.',
  '401': 'The bearer token is missing, unknown or revoked (`unauthenticated`).',
  '402': "The team's plan does not include this, or one of its limits is reached.",
  '404': 'Not found. Records of other teams are reported as not found too.',
  '405': 'Method not allowed.',
  '409': 'Conflict with the current state of the resource.',
  '410': 'Gone.',
  '413': 'The request is too large.',
  '415': 'Unsupported content type: send `application/json`.',
  '422': 'The request is well-formed but cannot be processed.',
  '423': "Locked: the team's plan does not include AI features.",
  '429':
    "Rate limit reached (`rate_limited`): the token's or team's budget, or too many requests without a valid token from this address; retry after `Retry-After` seconds.",
  '500': 'Internal error; the body carries no details, the `X-Request-Id` header identifies the request.',
  '408':
    'The request body arrived too slowly (under `INTAKE_MIN_BODY_RATE` bytes a second) or not in full within `INTAKE_REQUEST_TIMEOUT_MS`; nothing was kept.',
  '503':
    'Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds.',
};
/** Any route with a body can be cut off for a body that crawls (server/transports/http/http-server.ts). */
export function slowBodyResponse(): Json {
  return { description: ERROR_MEANINGS['408'], content: jsonContent(ErrorBody) };
}

/** Any route can answer 503 while the database or object storage is unreachable (server/domain/shared/outages.ts). */
export function unavailableResponse(): Json {
  return {
    description: ERROR_MEANINGS['503'],
    headers: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } },
    content: jsonContent(ErrorBody),
  };
}
