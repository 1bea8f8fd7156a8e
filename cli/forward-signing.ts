import { createHmac, randomBytes } from 'node:crypto';
import { ulid } from 'ulid';

/**
 * How `intake listen --forward-to` signs what it forwards: exactly as a webhook delivery is signed (DESIGN.md
 * "Signature", server/infra/outbound/signing.ts), so a receiver verifies it with the SDK's `verifyWebhook` or any
 * Standard Webhooks library. Written here rather than imported: the CLI reaches the server only over its API
 * (test/cli/layers.test.ts checks both verifiers accept it).
 */

/** A signing secret for one run: `whsec_` + base64 of 32 random bytes (the Standard Webhooks format). */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** An id for one forwarded event, shaped as a delivery id (`whd_` + ULID): receivers may de-duplicate on it. */
export function forwardId(): string {
  return `whd_${ulid().toLowerCase()}`;
}

/** The signature headers a delivery attempt carries: Intake's `X-Service-*` pair and Standard Webhooks' three. */
export function signatureHeaders(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  const ts = String(Math.trunc(timestampSeconds));
  // The HMAC key is the bytes the secret encodes, not its text.
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const hmac = (text: string) => createHmac('sha256', key).update(text, 'utf8').digest();
  return {
    'X-Service-Timestamp': ts,
    'X-Service-Signature': `v1=${hmac(`${ts}.${body}`).toString('hex')}`,
    'webhook-id': id,
    'webhook-timestamp': ts,
    'webhook-signature': `v1,${hmac(`${id}.${ts}.${body}`).toString('base64')}`,
  };
}
