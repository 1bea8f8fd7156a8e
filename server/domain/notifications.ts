import type { AppContext } from '../context.ts';
import { findForNotification } from '../db/queries/processing.ts';
import { plainAddress } from './email-address.ts';
import { confirmedRecipients } from './notification-addresses.ts';
import { senderEmail } from './spam.ts';

/**
 * Where a reply goes: the `_replyto` control when the form sets one, otherwise the sender's address
 * from the payload — and only when it is a single valid address (a list would add recipients).
 */
function replyToAddress(payload: Record<string, unknown>, controls: Record<string, unknown>): string | undefined {
  const explicit = typeof controls._replyto === 'string' ? controls._replyto : null;
  return plainAddress(explicit) ?? plainAddress(senderEmail(payload, null)) ?? undefined;
}

function render(value: unknown): string {
  if (Array.isArray(value)) return value.map(render).join(', ');
  if (value && typeof value === 'object') return JSON.stringify(value);
  return String(value ?? '');
}

/** The notification e-mail for a clean submission, to the form's notification addresses. */
export async function sendNotification(ctx: AppContext, submissionId: string): Promise<'sent' | 'skipped'> {
  const row = await findForNotification(ctx.db, submissionId);
  if (!row || row.status !== 'processed') return 'skipped';
  const to = await confirmedRecipients(ctx, row.team_id, row.notification_emails);
  if (!to.length) return 'skipped';
  const controls = (row.metadata?.controls ?? {}) as Record<string, unknown>;
  const subject = typeof controls._subject === 'string' && controls._subject.trim()
    ? controls._subject.trim().slice(0, 200)
    : `New submission to ${row.form_name}`;
  const replyTo = replyToAddress(row.payload, controls);
  const lines = Object.entries(row.payload).map(([k, v]) => `${k}: ${render(v)}`);
  const files = row.files;
  const text = [
    `A new submission arrived on "${row.form_name}" at ${new Date(row.received_at).toISOString()}.`,
    '',
    ...lines,
    ...(files.length ? ['', `Files: ${files.map((f) => `${f.filename} (${f.size} bytes)`).join(', ')}`] : []),
    '',
    `Submission ${row.id} — ${ctx.config.baseUrl}/v1/forms/${row.form_id}/submissions/${row.id}`,
  ].join('\n');
  await ctx.mailer.send({ to, subject, text, replyTo });
  return 'sent';
}
