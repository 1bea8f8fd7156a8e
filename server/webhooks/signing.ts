import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * Webhook secrets and signatures (DESIGN.md "Webhook secrets", "Signature"). A secret is `whsec_` + base64 of
 * 32 random bytes — the Standard Webhooks format, so receivers can verify with its libraries; the HMAC key is
 * the decoded bytes.
 */

export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export const secretLast4 = (secret: string) => secret.slice(-4);

export const secretHash = (secret: string) => createHash('sha256').update(secret).digest('hex');

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

/**
 * The headers of one attempt: `X-Service-Timestamp` (unix seconds), `X-Service-Signature`
 * (`v1=<hex HMAC-SHA256(key, "<timestamp>.<body>")>`), and Standard Webhooks' `webhook-id` (the delivery id),
 * `webhook-timestamp`, `webhook-signature` (`v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`).
 * During a rotation both secrets sign (current first), each signature separated by a space.
 */
export function signatureHeaders(secrets: string[], deliveryId: string, timestampSeconds: number, body: string): Record<string, string> {
  const ts = String(timestampSeconds);
  const keys = secrets.map(keyOf);
  return {
    'X-Service-Timestamp': ts,
    'X-Service-Signature': keys.map((k) => `v1=${createHmac('sha256', k).update(`${ts}.${body}`).digest('hex')}`).join(' '),
    'webhook-id': deliveryId,
    'webhook-timestamp': ts,
    'webhook-signature': keys.map((k) => `v1,${createHmac('sha256', k).update(`${deliveryId}.${ts}.${body}`).digest('base64')}`).join(' '),
  };
}

/** AES-256-GCM with the webhook-secrets key: `v1.` + base64url(iv ‖ tag ‖ ciphertext). */
export function encryptSecret(key: Buffer, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
}

/** Throws when the key is wrong or the stored value was altered (GCM authenticates it). */
export function decryptSecret(key: Buffer, stored: string): string {
  if (!stored.startsWith('v1.')) throw new Error('Unknown webhook secret format');
  const raw = Buffer.from(stored.slice(3), 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  try {
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    throw new Error('The webhook secret cannot be decrypted: wrong INTAKE_SECRET_KEY, or the stored value was altered');
  }
}
