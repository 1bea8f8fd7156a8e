import type { AppContext } from '../../context.ts';
import * as queries from '../../infra/db/queries/notifications.ts';
import type { NotificationRow } from '../../infra/db/queries/notifications.ts';
import { submissionTeam } from '../../infra/db/queries/processing.ts';
import { plainAddress } from './email-address.ts';
import { actionLink, unsubscribeLink } from './links.ts';
import { EXPORT_LINK_SECONDS, fileLink } from '../submissions/file-links.ts';
import { storedSettings } from '../spam/stored-rules.ts';
import { confirmedRecipients } from './addresses.ts';
import {
  formClosedTitle,
  renderDigest,
  renderFormClosed,
  renderNotification,
  type FormClosedNotice,
  type SubmissionLinks,
} from './email.ts';
import { senderEmail } from '../spam/spam.ts';
import { parseTemplate, renderText, templateContext } from '../templates/templates.ts';

/** Notification e-mails to a form's confirmed addresses: instant per submission, or hourly/daily digests per form. */

/** A digest lists at most this many submissions (and counts the rest). */
const DIGEST_LIMIT = 50;
/** A digest leaves out the last minutes, whose submissions may still be in processing: the next one has them. */
const DIGEST_LAG_MS = 2 * 60 * 1000;
/** Daily digests go out at this hour (UTC). */
export const DAILY_DIGEST_HOUR = 8;
const PERIOD_MS = { hourly: 3600 * 1000, daily: 24 * 3600 * 1000 } as const;

/** Where a reply goes: `_replyto`, else the sender's address, and only a single valid address (a list would add recipients). */
function replyToAddress(payload: Record<string, unknown>, controls: Record<string, unknown>): string | undefined {
  const explicit = typeof controls._replyto === 'string' ? controls._replyto : null;
  return plainAddress(explicit) ?? plainAddress(senderEmail(payload, null)) ?? undefined;
}

function linksFor(ctx: AppContext, row: NotificationRow, now: number): SubmissionLinks {
  const scope = { teamId: row.team_id, formId: row.form_id, expires: Math.floor(now / 1000) + EXPORT_LINK_SECONDS };
  const submission = { id: row.id, teamId: row.team_id };
  return {
    files: Object.fromEntries(
      row.files.map((f) => [f.id, fileLink(ctx.config.baseUrl, ctx.keys.linkSigning, f.id, scope)]),
    ),
    actions: [
      actionLink(ctx, submission, row.status === 'spam' ? 'not_spam' : 'spam', now),
      actionLink(ctx, submission, 'delete', now),
    ],
  };
}

/** One message per address, each with its own unsubscribe link (footer, List-Unsubscribe, one-click POST). */
async function sendToEach(
  ctx: AppContext,
  form: { id: string; teamId: string; name: string },
  to: string[],
  mail: { subject: string; replyTo?: string },
  render: (footer: { text: string; url: string }) => { text: string; html: string },
): Promise<void> {
  for (const address of to) {
    const url = unsubscribeLink(ctx, form, address);
    const content = render({
      text: `You receive this because ${address} is a notification address of the form "${form.name}".`,
      url,
    });
    await ctx.mailer.send({
      to: [address],
      subject: mail.subject,
      ...content,
      ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
      headers: { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    });
  }
}

/** The notification-email job: a processed submission (or spam, when asked) for forms in instant mode. */
export async function sendNotification(
  ctx: AppContext,
  submissionId: string,
  rule?: RuleNotice,
  now = Date.now(),
  teamId?: string,
): Promise<'sent' | 'skipped'> {
  const team = teamId ?? (await submissionTeam(ctx.db, submissionId));
  const row = team && (await queries.findForNotification(ctx.db, team, submissionId));
  if (!row) return 'skipped';
  // Queued with its verdict: on Citus the job can commit before the verdict's shard does (mayBeUnseen).
  if (row.status === 'received') throw new Error('the submission is not settled yet: the job is retried');
  const settings = storedSettings(row.settings);
  const wanted = row.status === 'processed' || (row.status === 'spam' && settings.notify_spam);
  if (!rule && (!wanted || settings.notification_mode !== 'instant')) return 'skipped';
  const to = await confirmedRecipients(ctx, row.team_id, rule ? rule.to : row.notification_emails);
  if (!to.length) return 'skipped';
  if (rule?.subject) return sendRuleNotification(ctx, row, to, rule.subject, now);
  const controls = (row.metadata?.controls ?? {}) as Record<string, unknown>;
  const asked =
    typeof controls._subject === 'string' && controls._subject.trim()
      ? controls._subject
          .replace(/[\r\n]+/g, ' ')
          .trim()
          .slice(0, 200)
      : null;
  const subject = `${row.status === 'spam' ? '[Spam] ' : ''}${asked ?? `New submission to ${row.form_name}`}`;
  const links = linksFor(ctx, row, now);
  await sendToEach(
    ctx,
    { id: row.form_id, teamId: row.team_id, name: row.form_name },
    to,
    { subject, replyTo: replyToAddress(row.payload, controls) },
    (footer) => renderNotification(row, links, footer),
  );
  return 'sent';
}

/** A fired rule's `notify`: its addresses and its subject template, rendered for this submission. */
type RuleNotice = { ruleId: string; to: string[]; subject: string | null };

async function sendRuleNotification(
  ctx: AppContext,
  row: NotificationRow,
  to: string[],
  subjectTemplate: string,
  now: number,
): Promise<'sent'> {
  const scope = templateContext({
    payload: row.payload,
    form: { id: row.form_id, name: row.form_name },
    submission: {
      id: row.id,
      received_at: new Date(row.received_at).toISOString(),
      category: row.category,
      source: row.api_token_id ? 'api' : 'form',
    },
  });
  // A subject is one line: a rendered newline would start the headers' end.
  const rendered = renderText(parseTemplate(subjectTemplate), scope)
    .replace(/[\r\n]+/g, ' ')
    .trim()
    .slice(0, 200);
  const subject = `${row.status === 'spam' ? '[Spam] ' : ''}${rendered || `New submission to ${row.form_name}`}`;
  const controls = (row.metadata?.controls ?? {}) as Record<string, unknown>;
  await sendToEach(
    ctx,
    { id: row.form_id, teamId: row.team_id, name: row.form_name },
    to,
    { subject, replyTo: replyToAddress(row.payload, controls) },
    (footer) => renderNotification(row, linksFor(ctx, row, now), footer),
  );
  return 'sent';
}

/**
 * The hourly digest job (daily forms at DAILY_DIGEST_HOUR): one e-mail per form listing its clean submissions
 * since its last digest. How far each form went is recorded, so a repeated run sends nothing twice.
 */
export async function sendDigests(ctx: AppContext, now = new Date()): Promise<{ sent: number }> {
  let sent = 0;
  const modes: Array<'hourly' | 'daily'> = now.getUTCHours() === DAILY_DIGEST_HOUR ? ['hourly', 'daily'] : ['hourly'];
  for (const mode of modes) {
    for (const form of await queries.digestForms(ctx.db, mode)) {
      const until = new Date(now.getTime() - DIGEST_LAG_MS);
      const from = form.sent_until ? new Date(form.sent_until) : new Date(until.getTime() - PERIOD_MS[mode]);
      if (from >= until) continue;
      if (await sendDigest(ctx, form, mode, from, until)) sent += 1;
      await queries.advanceDigest(ctx.db, form, until);
    }
  }
  return { sent };
}

async function sendDigest(
  ctx: AppContext,
  form: queries.DigestForm,
  mode: 'hourly' | 'daily',
  from: Date,
  until: Date,
): Promise<boolean> {
  const formId = form.id;
  const rows = await queries.digestSubmissions(ctx.db, form.team_id, formId, from, until, DIGEST_LIMIT);
  if (!rows.length) return false;
  const first = rows[0]!;
  const to = await confirmedRecipients(ctx, first.team_id, first.notification_emails);
  if (!to.length) return false;
  const total =
    rows.length < DIGEST_LIMIT
      ? rows.length
      : await queries.countDigestSubmissions(ctx.db, form.team_id, formId, from, until);
  const period = `${mode === 'hourly' ? 'hour' : 'day'} to ${until.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const now = Date.now();
  const items = rows.map((row) => ({ row, links: linksFor(ctx, row, now) }));
  await sendToEach(
    ctx,
    { id: formId, teamId: form.team_id, name: first.form_name },
    to,
    { subject: `${total} new submission${total === 1 ? '' : 's'} to ${first.form_name}` },
    (footer) => renderDigest(first.form_name, period, items, total - rows.length, footer),
  );
  return true;
}

/**
 * The form took the last place of its `max_submissions`: one e-mail to each confirmed notification address,
 * whatever the form's notification mode (it happens once, and stops the form's submissions).
 */
export async function sendFormClosedNotice(
  ctx: AppContext,
  form: { id: string; teamId: string; name: string; notificationEmails: string[] },
  closed: { maxSubmissions: number; submissions: number; closedAt: string },
): Promise<'sent' | 'skipped'> {
  const to = await confirmedRecipients(ctx, form.teamId, form.notificationEmails);
  if (!to.length) return 'skipped';
  const notice: FormClosedNotice = {
    formId: form.id,
    formName: form.name,
    ...closed,
    formUrl: `${ctx.config.baseUrl}/v1/forms/${form.id}`,
  };
  await sendToEach(
    ctx,
    { id: form.id, teamId: form.teamId, name: form.name },
    to,
    { subject: formClosedTitle(form.name, closed.maxSubmissions).replace(/[\r\n]+/g, ' ') },
    (footer) => renderFormClosed(notice, footer),
  );
  return 'sent';
}
