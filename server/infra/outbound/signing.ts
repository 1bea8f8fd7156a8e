import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * Webhook secrets and signatures (DESIGN.md "Webhook secrets", "Signature"). A secret is `whsec_` + base64 of
 * 32 random bytes — the Standard Webhooks format, so receivers can verify with its libraries; the HMAC key is
 * the decoded bytes, not the text.
 */

/** A new signing secret: `whsec_` + base64 of 32 random bytes. Shown to the user once. */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The secret's last four characters, stored so the UI can tell secrets apart without revealing them. */
export function secretLast4(secret: string): string {
  return secret.slice(-4);
}

/** SHA-256 (hex) of the secret text, stored beside the encrypted secret to identify it without decrypting. */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** The HMAC key: the bytes the secret encodes (a secret without the prefix is read as bare base64, as Standard Webhooks does). */
function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/**
 * The signature headers of one attempt: `X-Service-Timestamp` (unix seconds), `X-Service-Signature`
 * (`v1=<hex HMAC-SHA256(key, "<timestamp>.<body>")>`), and Standard Webhooks' `webhook-id` (the delivery id),
 * `webhook-timestamp` and `webhook-signature` (`v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`).
 * `secrets[0]` is the current secret; during a rotation the previous one follows and both sign, their
 * signatures separated by one space, so receivers holding either secret accept the request.
 */
export function signatureHeaders(
  secrets: string[],
  deliveryId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  if (!secrets.length) throw new Error('signatureHeaders needs at least one secret');
  const ts = String(Math.trunc(timestampSeconds));
  const keys = secrets.map(keyOf);
  const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();
  return {
    'X-Service-Timestamp': ts,
    'X-Service-Signature': keys.map((k) => `v1=${hmac(k, `${ts}.${body}`).toString('hex')}`).join(' '),
    'webhook-id': deliveryId,
    'webhook-timestamp': ts,
    'webhook-signature': keys.map((k) => `v1,${hmac(k, `${deliveryId}.${ts}.${body}`).toString('base64')}`).join(' '),
  };
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts a secret for storage (webhook signing and CAPTCHA verification need the secret itself, so it cannot be only hashed):
 * AES-256-GCM under a 32-byte key with a random 12-byte IV, stored as `v1.` + base64url(iv ‖ tag ‖ ciphertext).
 */
export function encryptSecret(key: Buffer, secret: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
}

/**
 * Decrypts what `encryptSecret` stored. Throws when the key is wrong or the value was altered or cut short
 * (GCM authenticates it; a short tag is refused outright, since GCM would otherwise accept a truncated one).
 */
export function decryptSecret(key: Buffer, stored: string): string {
  if (!stored.startsWith('v1.')) throw new Error('The stored secret has an unknown format (expected "v1.")');
  const raw = Buffer.from(stored.slice(3), 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('The stored secret is truncated');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new Error('The stored secret cannot be decrypted: wrong INTAKE_SECRET_KEY, or the stored value was altered');
  }
}
