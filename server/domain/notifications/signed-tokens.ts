import { createHmac, timingSafeEqual } from 'node:crypto';

/** Tokens for links in e-mails: the parts joined and base64url-encoded, a dot, and an HMAC-SHA256 under the link's own key. */
const SEPARATOR = '\u001f';
const MAX_TOKEN = 1024;

export function signToken(key: Buffer, parts: string[]): string {
  const payload = Buffer.from(parts.join(SEPARATOR)).toString('base64url');
  return `${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
}

/**
 * The parts of a token signed with `key`, or null for anything else (altered, truncated, another key, a
 * number of parts not in `counts`: a link's tokens may gain a part while older ones are still in mailboxes).
 */
export function readToken(key: Buffer, token: string, counts: number | readonly number[]): string[] | null {
  if (token.length > MAX_TOKEN) return null;
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return null;
  const expected = createHmac('sha256', key).update(payload).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const parts = Buffer.from(payload, 'base64url').toString('utf8').split(SEPARATOR);
  const lengths = typeof counts === 'number' ? [counts] : counts;
  return lengths.includes(parts.length) && parts.every(Boolean) ? parts : null;
}
