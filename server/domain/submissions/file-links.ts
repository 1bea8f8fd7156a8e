import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import * as queries from '../../infra/db/queries/submissions.ts';
import { AppError } from '../shared/errors.ts';
import { isId } from '../shared/ids.ts';
import { SIGNED_URL_SECONDS } from './submissions.ts';

/**
 * Long-lived download links for exports (`/d/{file}?expires=&signature=`): they mint a fresh 60-second
 * storage URL on every click. A link is signed with a key scoped to one form of one team and one expiry —
 * `exportKey` = HMAC(link-signing key, "team.form.expires") — so a link works only for that form's files,
 * and only while the form is live. Streamed CSV exports compute the same signatures in SQL (pgcrypto):
 * Postgres is handed only the scoped key, as a bind parameter, never the link-signing key or the server
 * secret; were a statement log to record the parameter, it would grant what the export itself grants.
 */
export const EXPORT_LINK_SECONDS = 7 * 24 * 3600;

export type LinkScope = { teamId: string; formId: string; expires: number };

export function exportKey(linkSigning: Buffer, scope: LinkScope): Buffer {
  return createHmac('sha256', linkSigning).update(`${scope.teamId}.${scope.formId}.${scope.expires}`).digest();
}

export function signFileLink(linkSigning: Buffer, fileId: string, scope: LinkScope): string {
  return createHmac('sha256', exportKey(linkSigning, scope)).update(fileId).digest('hex');
}

export function fileLink(baseUrl: string, linkSigning: Buffer, fileId: string, scope: LinkScope): string {
  return `${baseUrl}/d/${fileId}?expires=${scope.expires}&signature=${signFileLink(linkSigning, fileId, scope)}`;
}

/** `expires` a whole number of seconds, not past, and at most EXPORT_LINK_SECONDS ahead; a hex signature. */
export function wellFormedLink(expires: unknown, signature: unknown): expires is string {
  if (typeof expires !== 'string' || typeof signature !== 'string' || !/^[0-9a-f]{64}$/.test(signature) || !/^\d{1,12}$/.test(expires)) return false;
  const exp = Number(expires);
  const now = Date.now() / 1000;
  return exp >= now && exp <= now + EXPORT_LINK_SECONDS + 60;
}

export function verifyFileLink(linkSigning: Buffer, fileId: string, scope: LinkScope, signature: string): boolean {
  const expected = Buffer.from(signFileLink(linkSigning, fileId, scope), 'hex');
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

/**
 * One answer for every link that does not lead to a file: malformed, expired, signed for another file,
 * form or team, a file that never existed or was deleted, a form in the trash or erased. Told apart, they
 * would let someone without a valid link learn which file ids exist (issue 25): same status, same body.
 */
export const fileLinkRefused = () => new AppError('not_found', 'This download link is not valid: it may have expired, or its file was deleted.');

/** `/d/{file}`: the link checked (shape and lifetime, the live file, the signature), then a fresh storage URL. */
export async function openFileLink(ctx: AppContext, fileId: string, expires: unknown, signature: unknown): Promise<string> {
  if (!wellFormedLink(expires, signature) || !isId('file', fileId)) throw fileLinkRefused();
  const file = await queries.findLinkedFile(ctx.db, fileId);
  if (!file) throw fileLinkRefused();
  const scope = { teamId: file.team_id, formId: file.form_id, expires: Number(expires) };
  if (!verifyFileLink(ctx.keys.linkSigning, fileId, scope, signature as string)) throw fileLinkRefused();
  return ctx.storage.presignedGet(file.storage_key, SIGNED_URL_SECONDS, file.filename || fileId);
}
