import { createHmac } from 'node:crypto';
import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';
import type { FormSettings } from '../../../contract/forms.ts';
import type { AppContext } from '../../context.ts';
import * as queries from '../../infra/db/queries/autoresponses.ts';
import { submissionTeam } from '../../infra/db/queries/processing.ts';
import { recordAutoresponse } from '../../infra/db/queries/submissions.ts';
import { valueText } from './display-text.ts';
import { plainAddress } from './email-address.ts';
import { storedSettings } from '../spam/stored-rules.ts';
import { iso } from '../shared/timestamps.ts';

/**
 * The autoresponder: an e-mail from the form's Markdown template to the sender of a clean submission, at most
 * one per address per form per hour, its outcome recorded on the submission. Spam is never answered.
 */

/** Raw HTML in a template is shown as text; nothing is linkified from submitted values. */
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });
const PLACEHOLDER = /\{\{\s*([^{}\s]{1,64})\s*\}\}/g;
/** Bounds on what submitted values can add to one e-mail. */
const VALUE_CHARS = 500;
const PLACEHOLDERS_FILLED = 200;

export type RenderedMail = { subject: string; text: string; html: string };

/** Fills the placeholders of one string with the values as plain text (unknown names: nothing). */
function filler(payload: Record<string, unknown>): (s: string) => string {
  let filled = 0;
  return (s) =>
    s.replace(PLACEHOLDER, (_m, name: string) =>
      filled++ < PLACEHOLDERS_FILLED && Object.hasOwn(payload, name) ? valueText(payload[name], VALUE_CHARS) : '',
    );
}

/**
 * The e-mail for a payload. In the HTML, values go only into the rendered Markdown's text tokens, so they
 * are escaped and never become markup or a link's address.
 */
export function renderAutoresponse(
  template: Pick<FormSettings['autoresponder'], 'subject' | 'body_markdown'>,
  payload: Record<string, unknown>,
): RenderedMail {
  const subject = filler(payload)(template.subject)
    .replace(/[\r\n\t]+/g, ' ')
    .trim()
    .slice(0, 250);
  const text = filler(payload)(template.body_markdown);
  const fill = filler(payload);
  const tokens = markdown.parse(template.body_markdown, {});
  const fillText = (t: Token) => {
    if (t.type === 'text' || t.type === 'code_inline' || t.type === 'code_block' || t.type === 'fence')
      t.content = fill(t.content);
    t.children?.forEach(fillText);
  };
  tokens.forEach(fillText);
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1f2933">${markdown.renderer.render(tokens, markdown.options, {})}</body></html>`;
  return { subject, text, html };
}

/** The submitter's address: `_replyto`, else the schema's first `email` field, else a field named like e-mail. */
export function submitterAddress(
  settings: Pick<FormSettings, 'fields'>,
  payload: Record<string, unknown>,
  controls: Record<string, unknown>,
): { address: string | null; found: boolean } {
  const schemaEmail = settings.fields.find((f) => f.type === 'email')?.name;
  const named = Object.keys(payload).find((k) => /e-?mail/i.test(k));
  const candidate = [controls._replyto, schemaEmail && payload[schemaEmail], named && payload[named]].find(
    (v) => typeof v === 'string' && v.trim(),
  );
  return { address: plainAddress(candidate), found: candidate !== undefined };
}

type Outcome =
  { sent_at: string; to: string } | { skipped: 'no_address' | 'invalid_address' | 'rate_limited' | 'plan' };

/** The autoresponse-email job: decides, sends, records. Runs again harmlessly (a recorded outcome ends it). */
export async function sendAutoresponse(
  ctx: AppContext,
  submissionId: string,
  teamId?: string,
): Promise<Outcome | null> {
  const team = teamId ?? (await submissionTeam(ctx.db, submissionId));
  const row = team && (await queries.findForAutoresponse(ctx.db, team, submissionId));
  // Queued with its verdict: on Citus the job can commit before the verdict's shard does (mayBeUnseen).
  if (row && row.status === 'received') throw new Error('the submission is not settled yet: the job is retried');
  if (!row || row.status !== 'processed' || row.autoresponse) return null;
  const settings = storedSettings(row.settings);
  if (!settings.autoresponder.enabled) return null;
  const outcome = await decideAndSend(ctx, row, settings);
  await recordAutoresponse(ctx.db, team, submissionId, outcome);
  return outcome;
}

async function decideAndSend(
  ctx: AppContext,
  row: queries.AutoresponseRow,
  settings: ReturnType<typeof storedSettings>,
): Promise<Outcome> {
  if (!row.allowed) return { skipped: 'plan' };
  const { address, found } = submitterAddress(settings, row.payload, row.metadata.controls ?? {});
  if (!address) return { skipped: found ? 'invalid_address' : 'no_address' };
  const hash = createHmac('sha256', ctx.keys.autoresponseLimits).update(address).digest('hex');
  if (!(await queries.claimSend(ctx.db, row, hash, row.id))) return { skipped: 'rate_limited' };
  const a = settings.autoresponder;
  const mail = renderAutoresponse(a, row.payload);
  await ctx.mailer.send({
    to: [address],
    subject: mail.subject || 'Thank you',
    text: mail.text,
    html: mail.html,
    ...(a.from_name ? { fromName: a.from_name } : {}),
    ...(a.reply_to ? { replyTo: a.reply_to } : {}),
    headers: { 'Auto-Submitted': 'auto-replied' },
  });
  return { sent_at: iso(new Date()), to: address };
}
