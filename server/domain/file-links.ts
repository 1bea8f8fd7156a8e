import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Long-lived download links for exports (`/d/{file}?expires=&signature=`): signed with the server
 * secret, they mint a fresh 60-second storage URL on every click. The same signature is computed in
 * SQL (pgcrypto) for streamed CSV exports, so both sides must agree on the signed string.
 */
export const EXPORT_LINK_SECONDS = 7 * 24 * 3600;

export function signedString(fileId: string, expires: number): string {
  return `${fileId}.${expires}`;
}

export function signFileLink(secretKey: Buffer, fileId: string, expires: number): string {
  return createHmac('sha256', secretKey).update(signedString(fileId, expires)).digest('hex');
}

export function fileLink(baseUrl: string, secretKey: Buffer, fileId: string, expires: number): string {
  return `${baseUrl}/d/${fileId}?expires=${expires}&signature=${signFileLink(secretKey, fileId, expires)}`;
}

export function verifyFileLink(secretKey: Buffer, fileId: string, expires: string, signature: string): boolean {
  const exp = Number(expires);
  if (!Number.isInteger(exp) || exp < Date.now() / 1000 || !/^[0-9a-f]{64}$/.test(signature)) return false;
  const expected = Buffer.from(signFileLink(secretKey, fileId, exp), 'hex');
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}
