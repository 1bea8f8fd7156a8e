import { z } from 'zod';

export const Timestamp = z.string().datetime({ offset: true }).describe('ISO 8601 timestamp in UTC.');

/** The highest page number a list takes: past it an offset would overflow; deep pages use `cursor`. */
export const MAX_PAGE = 1_000_000;

/** Text Postgres can store and every client can read: no U+0000, no unpaired UTF-16 surrogate. */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && value.isWellFormed();
}

export const TEXT_MESSAGE = 'NUL characters and unpaired surrogates are not accepted.';

/** The one string type of the API's inputs: `text()` or `text(z.string().max(200))` (then optional() etc.). */
export function text(schema: z.ZodString = z.string()) {
  return schema.refine(isStorableText, TEXT_MESSAGE);
}

/**
 * An absolute http:// or https:// URL. Other schemes (`javascript:`, `data:`, …) run or render in the page a
 * browser is sent to, and a URL without `//` resolves against the sender, so only these are stored or followed.
 */
export function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\/\S+$/i.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

export const HTTP_URL_MESSAGE = 'Must be an absolute http:// or https:// URL.';

/** Every URL the API stores from its callers; fields that need more (webhooks: https, public hosts) add to it. */
export const HttpUrl = text(z.string().max(2048))
  .refine(isHttpUrl, HTTP_URL_MESSAGE)
  .describe('An absolute http:// or https:// URL, at most 2,048 characters.');

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/**
 * An ISO 8601 date or date-time naming a real instant (no 2024-02-30, no year 0, no 24:00), returned as
 * `YYYY-MM-DDTHH:MM:SS[.ffffff]±HH:MM`; a value without a zone is UTC. Null when it is not one.
 */
export function toInstant(value: string): string | null {
  const m = INSTANT.exec(value);
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth) return null;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  let offset = '+00:00';
  if (zone && zone.toUpperCase() !== 'Z') {
    const [, sign, oh, om = '00'] = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
    if (Number(oh) > 14 || Number(om) > 59) return null;
    offset = `${sign}${oh}:${om}`;
  }
  return `${y}-${mo}-${d}T${h}:${mi}:${s}${frac}${offset}`;
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** An instant in a query (since, until): see toInstant. */
export const Instant = z
  .string()
  .max(40)
  .transform((value, ctx) => {
    const instant = toInstant(value);
    if (instant === null) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: 'Must be a real ISO 8601 date or date-time (a value without a zone is UTC).',
      });
      return z.NEVER;
    }
    return instant;
  })
  .describe('ISO 8601 date or date-time; without a zone it is UTC.');

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

export const OkBody = z.object({ ok: z.literal(true) });

export const RateLimitedBody = z.object({
  error: z.literal('rate_limited'),
  message: z.string(),
  retry_after: z.number().int().describe('Seconds until the window resets.'),
});

/**
 * Errors any authenticated route can answer. 429: past INTAKE_AUTH_FAILURE_LIMIT requests without a valid token
 * from one address a minute, the next such request is refused (SECURITY.md "Tenant isolation").
 */
export const authErrors = {
  400: ValidationErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  415: ErrorBody,
  429: RateLimitedBody,
};

/** Routes metered by the per-token API budget (`cost.budget: 'api'`) also answer 429. */
export const rateLimitErrors = { 429: RateLimitedBody };

/** Page-number pagination shared by every list; `per_page` 1–100, default 25. */
export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).max(MAX_PAGE).default(1).describe('Page number, from 1 (at most 1,000,000).'),
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
