import { createHmac, timingSafeEqual } from 'node:crypto';

export type WebhookVerificationReason = 'missing_headers' | 'timestamp_out_of_tolerance' | 'invalid_signature';

/** Why a webhook request was refused by `verifyWebhook`. */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationReason;
  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? v[0] : v;
  }
  return undefined;
}

const keyOf = (secret: string) => Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');

function equal(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Verifies an Intake webhook request and returns its parsed JSON body. Accepts the Standard Webhooks headers
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`) or Intake's (`X-Service-Timestamp`,
 * `X-Service-Signature`); any of `secret` (pass both during a rotation) may have signed it. Signatures are
 * compared in constant time; a timestamp more than `toleranceSeconds` (default 300) from now is refused.
 * Pass the raw body exactly as received (not re-serialised JSON).
 */
export function verifyWebhook(
  secret: string | string[],
  headers: HeaderBag,
  rawBody: string | Uint8Array,
  opts: { toleranceSeconds?: number; now?: number } = {},
): unknown {
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  const secrets = [secret].flat();
  const id = header(headers, 'webhook-id');
  const standard = header(headers, 'webhook-signature');
  const ts = header(headers, 'webhook-timestamp') ?? header(headers, 'x-service-timestamp');
  const service = header(headers, 'x-service-signature');
  if (!ts || !((id && standard) || service)) {
    throw new WebhookVerificationError('missing_headers', 'The request has no webhook signature headers.');
  }
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  if (!/^\d+$/.test(ts) || Math.abs(now - Number(ts)) > (opts.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError('timestamp_out_of_tolerance', 'The webhook timestamp is too old or in the future.');
  }
  const candidates: Buffer[] = [];
  const expected: Buffer[] = [];
  if (id && standard) {
    for (const part of standard.split(' ')) if (part.startsWith('v1,')) candidates.push(Buffer.from(part.slice(3), 'base64'));
    for (const s of secrets) expected.push(createHmac('sha256', keyOf(s)).update(`${id}.${ts}.${body}`).digest());
  } else if (service) {
    for (const part of service.split(' ')) if (part.startsWith('v1=')) candidates.push(Buffer.from(part.slice(3), 'hex'));
    for (const s of secrets) expected.push(createHmac('sha256', keyOf(s)).update(`${ts}.${body}`).digest());
  }
  if (!candidates.some((c) => expected.some((e) => equal(c, e)))) {
    throw new WebhookVerificationError('invalid_signature', 'No signature matches the body and secret.');
  }
  return JSON.parse(body) as unknown;
}
