import { createHmac, timingSafeEqual } from 'node:crypto';
import type { z } from 'zod';
import type { WEBHOOK_EVENT_BODIES } from '../contract/events.ts';

const oneOf = <M extends Record<string, z.ZodTypeAny>>() =>
  undefined as unknown as { [K in keyof M]: z.output<M[K]> }[keyof M];
/** Never called: its inferred type prints the event bodies whole into the declarations (no zod types). */
function _eventBody() {
  return oneOf<typeof WEBHOOK_EVENT_BODIES>();
}
/**
 * A webhook body as Intake sends it (provider `webhook`, `zapier`, `make`, no `body_template`), one type per
 * event: narrow it by `type` (`submission.updated` has `changes`, `submission.spam` has `spam_reason`). The same
 * schemas as the `webhooks` section of openapi.json.
 */
export type WebhookEventBody = ReturnType<typeof _eventBody>;

/** Why `verifyWebhook` refused a request. */
export type WebhookVerificationReason = 'missing_headers' | 'timestamp_out_of_tolerance' | 'invalid_signature';

/** Thrown by `verifyWebhook`; `reason` says which check failed (answer the sender with 400 or 401). */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationReason;
  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

/** A header by lower-case name from a fetch `Headers` or a Node/express header object (any key case). */
function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() === name) return (Array.isArray(v) ? v.join(' ') : v) ?? undefined;
  }
  return undefined;
}

/** The HMAC key: the bytes the secret encodes, as Standard Webhooks defines it. */
const keyOf = (secret: string) =>
  Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');

/** HMAC-SHA256 of `prefix` followed by the raw body bytes (not a re-encoding of them). */
function hmac(key: Buffer, prefix: string, body: Uint8Array): Buffer {
  return createHmac('sha256', key).update(prefix, 'utf8').update(body).digest();
}

/**
 * Verifies a webhook request from Intake and returns its parsed JSON body, typed as the event union
 * (`WebhookEventBody`; a webhook with a JSON `body_template` names its own shape as `T`).
 *
 * Accepts Intake's headers (`X-Service-Timestamp`, `X-Service-Signature: v1=<hex>`) or the Standard Webhooks
 * ones (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`), names in any case. During a
 * secret rotation pass both secrets: a request is genuine when any signature in the header matches any
 * secret. Signatures are compared in constant time; a timestamp more than `toleranceSeconds` (default 300)
 * before or after now is refused, which bounds replays. Pass the body exactly as received (the raw bytes or
 * text, not re-serialised JSON). Throws `WebhookVerificationError` otherwise.
 *
 * A secret that encodes no key bytes, or a `toleranceSeconds` that is not a finite number >= 0, is a
 * configuration error, not a bad request: it throws a `TypeError` or `RangeError`.
 */
export function verifyWebhook<T = WebhookEventBody>(
  secret: string | string[],
  headers: HeaderBag,
  rawBody: string | Uint8Array,
  opts: { toleranceSeconds?: number; now?: number } = {},
): T {
  // Anyone can sign with an empty key, so such a secret would make every forged request genuine.
  const keys = (typeof secret === 'string' ? [secret] : secret).map((s) => {
    const key = keyOf(s);
    if (key.length === 0) throw new TypeError('verifyWebhook: a webhook secret is empty or encodes no key bytes.');
    return key;
  });
  const tolerance = opts.toleranceSeconds ?? 300;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new RangeError(`verifyWebhook: toleranceSeconds must be a finite number >= 0, got ${tolerance}.`);
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;

  const id = header(headers, 'webhook-id');
  const standardTs = header(headers, 'webhook-timestamp');
  const standardSig = header(headers, 'webhook-signature');
  const serviceTs = header(headers, 'x-service-timestamp');
  const serviceSig = header(headers, 'x-service-signature');
  // One scheme, read whole: its timestamp is the one its signature covers.
  let ts: string;
  let signatures: Buffer[];
  let expected: Buffer[];
  if (id && standardTs && standardSig) {
    ts = standardTs;
    signatures = standardSig
      .split(' ')
      .filter((p) => p.startsWith('v1,'))
      .map((p) => Buffer.from(p.slice(3), 'base64'));
    expected = keys.map((k) => hmac(k, `${id}.${ts}.`, body));
  } else if (serviceTs && serviceSig) {
    ts = serviceTs;
    signatures = serviceSig
      .split(' ')
      .filter((p) => p.startsWith('v1='))
      .map((p) => Buffer.from(p.slice(3), 'hex'));
    expected = keys.map((k) => hmac(k, `${ts}.`, body));
  } else {
    throw new WebhookVerificationError(
      'missing_headers',
      'The request lacks webhook signature headers (X-Service-Timestamp and X-Service-Signature, or webhook-id, webhook-timestamp and webhook-signature).',
    );
  }

  const now = opts.now ?? Math.floor(Date.now() / 1000);
  // Written so that a NaN `now` fails the check rather than skipping it.
  if (!/^\d{1,12}$/.test(ts.trim()) || !(Math.abs(now - Number(ts.trim())) <= tolerance)) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      'The webhook timestamp is too far from the current time.',
    );
  }

  // timingSafeEqual throws on different lengths; a length differing from a SHA-256 digest is simply no match.
  const matches = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);
  let ok = false;
  for (const candidate of signatures) for (const e of expected) ok = matches(candidate, e) || ok;
  if (!ok)
    throw new WebhookVerificationError('invalid_signature', 'No webhook signature matches the body and the secret.');

  return JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')) as T;
}
