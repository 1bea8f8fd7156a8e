import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';

/** One key per purpose, each derived from the server secret: none is ever the secret itself. */
export type Keys = {
  /** Signs export download links (`/d/{file}`) and is handed to Postgres only as a bind parameter. */
  linkSigning: Buffer;
  /** Keys the per-IP rate-limit hashes. */
  ipHashing: Buffer;
  /** Encrypts webhook signing secrets at rest. */
  webhookSecrets: Buffer;
  /** Encrypts CAPTCHA provider secrets at rest. */
  captchaSecrets: Buffer;
  /** Signs the links notification addresses confirm with (`/v/{token}`). */
  addressConfirmation: Buffer;
  /** Keys the hashes of submitters' addresses the autoresponder's hourly limit keeps. */
  autoresponseLimits: Buffer;
  /** Encrypts the value an erasure request searches for, until the request has run. */
  erasureValues: Buffer;
  /** Signs the one-click action links in notification e-mails (`/a/{token}`). */
  emailActions: Buffer;
  /** Signs the unsubscribe links of notification e-mails (`/u/{token}`). */
  unsubscribeLinks: Buffer;
  /** Keys the digests of the values a form's unique rules compare (never stored as they were posted). */
  uniqueValues: Buffer;
};

/** HKDF-SHA256 of the server secret, one `info` label per purpose (RFC 5869). */
export function deriveKeys(secret: Buffer): Keys {
  const derive = (purpose: string) => Buffer.from(hkdfSync('sha256', secret, 'intake', `intake/${purpose}/v1`, 32));
  return {
    linkSigning: derive('link-signing'),
    ipHashing: derive('ip-hashing'),
    webhookSecrets: derive('webhook-secrets'),
    captchaSecrets: derive('captcha-secrets'),
    addressConfirmation: derive('address-confirmation'),
    autoresponseLimits: derive('autoresponse-limits'),
    erasureValues: derive('erasure-values'),
    emailActions: derive('email-actions'),
    unsubscribeLinks: derive('unsubscribe-links'),
    uniqueValues: derive('unique-values'),
  };
}

/** The server's 32-byte secret: INTAKE_SECRET_KEY hashed, or one generated once into the data dir for development. */
export function loadSecretKey(config: Config): Buffer {
  if (config.secretKey) return createHash('sha256').update(config.secretKey).digest();
  const file = path.join(config.dataDir, 'secret-key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(config.dataDir, { recursive: true });
    try {
      fs.writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // another process created it first
    }
  }
  // Only its owner may read it (a file written by hand may be looser).
  if (fs.statSync(file).mode & 0o077 && fs.statSync(file).uid === process.getuid?.()) fs.chmodSync(file, 0o600);
  return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
}
