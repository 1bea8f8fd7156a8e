import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import { findLinkedFile } from '../../infra/db/queries/exports.ts';
import { AppError } from '../shared/errors.ts';
import { isId } from '../shared/ids.ts';

/** A storage URL's lifetime: a download, a file of the detail, each click of an export link mints a new one. */
export const SIGNED_URL_SECONDS = 60;

/**
 * Export and event links (`/d/{file}?expires=&signature=&team=`) live 7 days and mint a fresh storage URL on
 * every click. Each is signed with a key scoped to one form of one team and one expiry (`exportKey`), so it
 * works only for that form's files while the form is live. Exports sign in SQL: Postgres gets only the scoped
 * key. `team` names the shard the file is read from (Citus); the signature covers it through the key.
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
  const signature = signFileLink(linkSigning, fileId, scope);
  return `${baseUrl}/d/${fileId}?expires=${scope.expires}&signature=${signature}&team=${scope.teamId}`;
}

/** `expires` a whole number of seconds, not past, and at most EXPORT_LINK_SECONDS ahead; a hex signature. */
export function wellFormedLink(expires: unknown, signature: unknown): expires is string {
  if (
    typeof expires !== 'string' ||
    typeof signature !== 'string' ||
    !/^[0-9a-f]{64}$/.test(signature) ||
    !/^\d{1,12}$/.test(expires)
  )
    return false;
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
 * would let someone without a valid link learn which file ids exist: same status, same body.
 */
export const fileLinkRefused = () =>
  new AppError('not_found', 'This download link is not valid: it may have expired, or its file was deleted.');

/**
 * `/d/{file}`: the link checked (shape and lifetime, the live file of its team, the signature), then a fresh
 * storage URL. A link without `team` finds the file by its id alone (on every shard on Citus).
 */
export async function openFileLink(
  ctx: AppContext,
  fileId: string,
  link: { expires: unknown; signature: unknown; team: unknown },
): Promise<string> {
  const { expires, signature, team } = link;
  if (!wellFormedLink(expires, signature) || !isId('file', fileId)) throw fileLinkRefused();
  if (team !== undefined && !(typeof team === 'string' && isId('team', team))) throw fileLinkRefused();
  const file = await findLinkedFile(ctx.db, fileId, typeof team === 'string' ? team : null);
  if (!file) throw fileLinkRefused();
  const scope = { teamId: file.team_id, formId: file.form_id, expires: Number(expires) };
  if (!verifyFileLink(ctx.keys.linkSigning, fileId, scope, signature as string)) throw fileLinkRefused();
  return ctx.storage.presignedGet(file.storage_key, SIGNED_URL_SECONDS, file.filename || fileId);
}
