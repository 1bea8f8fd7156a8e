import { z } from 'zod';

export const Timestamp = z.string().datetime({ offset: true }).describe('ISO 8601 timestamp in UTC.');

export const ErrorBody = z
  .object({
    error: z.string().describe('Machine-readable snake_case error code.'),
    message: z.string().optional().describe('Human-readable explanation.'),
  })
  .passthrough()
  .describe('Every error body: `{ error, message, ...extra }`.');

export const ValidationErrorBody = z.object({
  error: z.literal('validation_failed').or(z.literal('invalid_json')).or(z.string()),
  message: z.string(),
  details: z
    .array(z.object({ in: z.enum(['body', 'query', 'path', 'header']), path: z.string(), message: z.string() }))
    .optional(),
});

export const RateLimitedBody = z.object({
  error: z.literal('rate_limited'),
  message: z.string(),
  retry_after: z.number().int().describe('Seconds until the window resets.'),
});

export const OkBody = z.object({ ok: z.literal(true) });

/** Errors any authenticated route can answer. */
export const authErrors = {
  400: ValidationErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  415: ErrorBody,
};

/** Routes metered by the per-token API budget (metadata `rateLimited: true`) also answer 429. */
export const rateLimitErrors = { 429: RateLimitedBody };

/** Page-number pagination shared by every list; `per_page` 1–100, default 25. */
export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1).describe('Page number, from 1.'),
  per_page: z.coerce.number().int().min(1).max(100).default(25).describe('Items per page, 1 to 100.'),
});

export const PageLinks = z.object({
  first: z.string().nullable(),
  last: z.string().nullable(),
  prev: z.string().nullable(),
  next: z.string().nullable(),
});

export const PageMeta = z.object({
  current_page: z.number().int(),
  per_page: z.number().int(),
  total: z.number().int(),
  last_page: z.number().int(),
});

export function paginated<T extends z.ZodTypeAny>(item: T) {
  return z.object({ data: z.array(item), links: PageLinks, meta: PageMeta });
}
