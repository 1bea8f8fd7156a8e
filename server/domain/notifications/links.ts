import type { AppContext } from '../../context.ts';
import * as addresses from '../../infra/db/queries/notification-addresses.ts';
import { isLiveForm, setNotificationEmails } from '../../infra/db/queries/forms.ts';
import { teamOfForm } from '../forms/form-teams.ts';
import * as queries from '../../infra/db/queries/notifications.ts';
import { submissionTeam } from '../../infra/db/queries/processing.ts';
import type { Sql } from '../../infra/db/database.ts';
import { AppError } from '../shared/errors.ts';
import { readToken, signToken } from './signed-tokens.ts';
import { iso } from '../shared/timestamps.ts';
import { actFromEmail, type EmailAction } from '../submissions/submissions.ts';

/**
 * The links of notification e-mails: signed one-click actions (their GET only shows a button, so mail scanners
 * change nothing) and unsubscribe links, after which the address must confirm again. Each token carries its
 * team, so every statement a link runs names it (one shard on Citus); a token signed without it finds the team
 * by the id it carries.
 */

export const ACTION_LINK_SECONDS = 7 * 24 * 3600;

const ACTIONS: Record<EmailAction, { label: string; done: string }> = {
  spam: { label: 'Mark as spam', done: 'marked as spam' },
  not_spam: { label: 'Not spam', done: 'moved back to the inbox' },
  delete: { label: 'Delete', done: 'deleted' },
};

const isAction = (a: string): a is EmailAction => Object.hasOwn(ACTIONS, a);

/** `/a/{token}`: submission, action, expiry and team. */
export function actionLink(
  ctx: AppContext,
  submission: { id: string; teamId: string },
  action: EmailAction,
  now = Date.now(),
): { label: string; url: string } {
  const expires = Math.floor(now / 1000) + ACTION_LINK_SECONDS;
  const token = signToken(ctx.keys.emailActions, [submission.id, action, String(expires), submission.teamId]);
  return { label: ACTIONS[action].label, url: `${ctx.config.baseUrl}/a/${token}` };
}

/** `/u/{token}`: form, address and team. */
export function unsubscribeLink(ctx: AppContext, form: { id: string; teamId: string }, email: string): string {
  return `${ctx.config.baseUrl}/u/${signToken(ctx.keys.unsubscribeLinks, [form.id, email.toLowerCase(), form.teamId])}`;
}

const gone = () => new AppError('not_found', 'This submission no longer exists: it, or its form, was deleted.');

/** The link's submission, action and team (read by the submission's id from a token signed without it). */
async function readAction(
  ctx: AppContext,
  token: string,
  now: number,
): Promise<{ submissionId: string; action: EmailAction; teamId: string }> {
  const parts = readToken(ctx.keys.emailActions, token, [3, 4]);
  if (!parts || !isAction(parts[1]!)) throw new AppError('not_found', 'This link is not valid.');
  if (Number(parts[2]) < Math.floor(now / 1000))
    throw new AppError('not_found', 'This link has expired (action links work for 7 days).');
  const [submissionId, action, , signedTeam] = parts as [string, EmailAction, string, string | undefined];
  const teamId = signedTeam ?? (await submissionTeam(ctx.db, submissionId));
  if (!teamId) throw gone();
  return { submissionId, action, teamId };
}

/**
 * The submission a link acts on, only while its form is live: "Not spam" on a trashed form would deliver
 * webhooks and e-mail for a form its team put away.
 */
async function liveTarget(sql: Sql, teamId: string, submissionId: string, lock = false) {
  const target = await queries.findActionTarget(sql, teamId, submissionId, lock);
  if (!target) throw gone();
  if (!(await isLiveForm(sql, target.team_id, target.form_id))) {
    throw new AppError(
      'conflict',
      `The form "${target.form_name}" is in the trash: restore it to act on its submissions. Nothing was changed.`,
    );
  }
  return target;
}

export type ActionPrompt = { label: string; formName: string; receivedAt: string; status: string };

/** What the link's page asks before acting (GET changes nothing). */
export async function describeAction(ctx: AppContext, token: string, now = Date.now()): Promise<ActionPrompt> {
  const { submissionId, action, teamId } = await readAction(ctx, token, now);
  const target = await liveTarget(ctx.db, teamId, submissionId);
  return {
    label: ACTIONS[action].label,
    formName: target.form_name,
    receivedAt: iso(target.received_at),
    status: target.status,
  };
}

/** The link's action, done (the page's POST). Repeating it changes nothing more. */
export async function performAction(ctx: AppContext, token: string, now = Date.now()): Promise<string> {
  const { submissionId, action, teamId } = await readAction(ctx, token, now);
  return ctx.db.transaction(async (tx) => {
    const target = await liveTarget(tx, teamId, submissionId, true);
    const changed = await actFromEmail(
      ctx,
      tx,
      { id: target.id, teamId: target.team_id, status: target.status },
      action,
    );
    return changed
      ? `The submission to ${target.form_name} was ${ACTIONS[action].done}.`
      : `The submission to ${target.form_name} was already ${ACTIONS[action].done}.`;
  });
}

/** The link's form, address and team (the form's team from `form_teams` for a token signed without it). */
async function readUnsubscribe(
  ctx: AppContext,
  token: string,
): Promise<{ formId: string; email: string; teamId: string }> {
  const parts = readToken(ctx.keys.unsubscribeLinks, token, [2, 3]);
  if (!parts) throw new AppError('not_found', 'This unsubscribe link is not valid.');
  const [formId, email, signedTeam] = parts as [string, string, string | undefined];
  const teamId = signedTeam ?? (await teamOfForm(ctx, formId));
  if (!teamId) throw new AppError('not_found', 'This form no longer exists.');
  return { formId, email, teamId };
}

export async function describeUnsubscribe(
  ctx: AppContext,
  token: string,
): Promise<{ email: string; formName: string; subscribed: boolean }> {
  const { formId, email, teamId } = await readUnsubscribe(ctx, token);
  const form = await queries.findFormAddresses(ctx.db, teamId, formId);
  if (!form) throw new AppError('not_found', 'This form no longer exists.');
  return { email, formName: form.name, subscribed: form.notification_emails.some((e) => e.toLowerCase() === email) };
}

/** Removes the address from the form's notification list (one click: RFC 8058, or the page's button). */
export async function unsubscribe(ctx: AppContext, token: string): Promise<{ email: string; formName: string }> {
  const { formId, email, teamId } = await readUnsubscribe(ctx, token);
  return ctx.db.transaction(async (tx) => {
    const form = await queries.findFormAddresses(tx, teamId, formId, true);
    if (!form) throw new AppError('not_found', 'This form no longer exists.');
    const kept = form.notification_emails.filter((e) => e.toLowerCase() !== email);
    if (kept.length !== form.notification_emails.length) {
      await setNotificationEmails(tx, form.team_id, formId, kept);
      await addresses.forgetConfirmation(tx, form.team_id, email);
    }
    return { email, formName: form.name };
  });
}
