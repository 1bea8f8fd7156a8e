import { RateLimitedBody } from '../../contract/index.ts';
import { jsonContent, type Json } from './schema-repairs.ts';

/**
 * The per-token API budget (server/operations/pipeline.ts) charges the routes whose declared cost spends it
 * (`cost.budget: 'api'`) and answers the IETF RateLimit headers on
 * every answer after the charge, with `Retry-After` on its 429.
 */
export const RATE_LIMIT_HEADERS: Record<string, Json> = {
  RateLimit: {
    description: 'The budget left in this window: `limit=<requests>, remaining=<requests>, reset=<seconds>`.',
    schema: { type: 'string', examples: ['limit=600, remaining=599, reset=60'] },
  },
  'RateLimit-Policy': {
    description: 'The budget of this token: `<requests>;w=<window seconds>`.',
    schema: { type: 'string', examples: ['600;w=60'] },
  },
  'Retry-After': {
    description: 'Seconds until the window resets.',
    schema: { type: 'integer', minimum: 0 },
  },
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Documents the 429 and the headers on a rate-limited route's answers; true when the route is one. */
export function documentRateLimit(responses: Json, rateLimited: boolean): boolean {
  if (!rateLimited) return false;
  if (!responses['429']) {
    responses['429'] = {
      description: 'Rate limit reached (`rate_limited`); retry after `Retry-After` seconds.',
      content: jsonContent(RateLimitedBody),
    };
  }
  for (const [status, response] of Object.entries(responses)) {
    if (!/^(2\d\d|429)$/.test(status)) continue;
    const entry = response as Json;
    const headers: Json = {
      ...((entry.headers as Json | undefined) ?? {}),
      RateLimit: ref('RateLimit'),
      'RateLimit-Policy': ref('RateLimit-Policy'),
    };
    if (status === '429') headers['Retry-After'] = ref('Retry-After');
    entry.headers = headers;
  }
  return true;
}
