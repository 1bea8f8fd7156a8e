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
  429: RateLimitedBody,
} as const;
