import type { AppContext } from '../../context.ts';
import type { Tx } from '../../infra/db/database.ts';
import * as queries from '../../infra/db/queries/notification-addresses.ts';
import { confirmAddressEmail } from '../../infra/queue/definitions.ts';
import { AppError } from '../shared/errors.ts';
import { readToken, signToken } from './signed-tokens.ts';

/**
 * Notification addresses confirm (once per team, by a signed link) before they receive anything, so nobody
 * can use Intake to mail people who never asked. Until then they are `pending` and skipped.
 */

const LINK_SECONDS = 7 * 24 * 3600;

export type RecipientStatus = 'verified' | 'pending' | 'not_required';

const normalize = (email: string) => email.trim().toLowerCase();

/** Each of the form's addresses with its state, in the form's order. */
export async function recipientStatuses(
  ctx: AppContext,
  teamId: string,
  emails: string[],
): Promise<Array<{ email: string; status: RecipientStatus }>> {
  if (!ctx.config.verifyNotificationEmails) return emails.map((email) => ({ email, status: 'not_required' }));
  const states = await queries.addressStates(ctx.db, teamId, emails.map(normalize));
  return emails.map((email) => ({ email, status: states.get(normalize(email)) ? 'verified' : 'pending' }));
}

/** The addresses that may be sent notifications now. */
export async function confirmedRecipients(ctx: AppContext, teamId: string, emails: string[]): Promise<string[]> {
  if (!ctx.config.verifyNotificationEmails) return emails;
  const states = await queries.addressStates(ctx.db, teamId, emails.map(normalize));
  return emails.filter((e) => states.get(normalize(e)));
}

/** Queues, in the form's own transaction, a confirmation e-mail for each address that needs one now. */
export async function requestConfirmations(
  ctx: AppContext,
  tx: Tx,
  teamId: string,
  formId: string,
  emails: string[],
): Promise<void> {
  if (!ctx.config.verifyNotificationEmails || !emails.length) return;
  for (const email of await queries.claimConfirmations(tx, teamId, [...new Set(emails.map(normalize))])) {
    await ctx.queue.send(confirmAddressEmail, { teamId, formId, email }, { tx });
  }
}

/** `/v/{token}`: team, address and expiry, signed with the address-confirmation key. */
export function confirmationToken(key: Buffer, teamId: string, email: string, expires: number): string {
  return signToken(key, [teamId, email, String(expires)]);
}

function readConfirmation(key: Buffer, token: string, now: number): { teamId: string; email: string } {
  const parts = readToken(key, token, 3);
  if (!parts)
    throw new AppError('not_found', 'This confirmation link is not valid. Please use the latest link you were sent.');
  const [teamId, email, expires] = parts as [string, string, string];
  if (Number(expires) < now)
    throw new AppError(
      'not_found',
      "This confirmation link has expired. Ask the form's owner to save the form again: a new link will be sent.",
    );
  return { teamId, email };
}

/** Follows a confirmation link: the address is confirmed for the team's forms. */
export async function confirmByToken(
  ctx: AppContext,
  token: string,
  now = Date.now(),
): Promise<{ email: string; team: string }> {
  const { teamId, email } = readConfirmation(ctx.keys.addressConfirmation, token, Math.floor(now / 1000));
  const team = await queries.teamName(ctx.db, teamId);
  if (!team || !(await queries.confirmAddress(ctx.db, teamId, email)))
    throw new AppError('not_found', 'The team this link was for no longer exists.');
  return { email, team };
}

/** The confirmation e-mail (the confirm-address-email job). */
export async function sendConfirmation(
  ctx: AppContext,
  job: { teamId: string; formId: string; email: string },
): Promise<void> {
  const team = await queries.teamName(ctx.db, job.teamId);
  if (!team) return;
  const link = `${ctx.config.baseUrl}/v/${confirmationToken(ctx.keys.addressConfirmation, job.teamId, job.email, Math.floor(Date.now() / 1000) + LINK_SECONDS)}`;
  const text = [
    `${team} asked to send notifications of new form submissions to ${job.email}.`,
    '',
    'To receive them, confirm this address (the link works for 7 days):',
    link,
    '',
    'If you did not expect this, ignore this e-mail: nothing will be sent to you.',
  ].join('\n');
  await ctx.mailer.send({ to: [job.email], subject: `Confirm notifications from ${team}`, text });
}
