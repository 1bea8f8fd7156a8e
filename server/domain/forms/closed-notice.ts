import type { AppContext } from '../../context.ts';
import { findPublicForm } from '../../infra/db/queries/forms.ts';
import { teamOfForm } from './form-teams.ts';
import { findFormAddresses } from '../../infra/db/queries/notifications.ts';
import type { FormClosedEvent } from '../../infra/outbound/providers.ts';
import { createFormEventDeliveries } from '../delivery/fan-out.ts';
import { sendFormClosedNotice } from '../notifications/notifications.ts';
import { storedSettings } from '../spam/stored-rules.ts';

/** What the form-closed job was queued with (domain/forms/closing.ts). */
export type FormClosedJob = { formId: string; reason: 'limit_reached'; at: string };

/**
 * The form-closed job: the form took the last place of its `max_submissions`. Its webhooks subscribed to
 * `form.closed` get the event (deliveries in one transaction), then its confirmed notification addresses one
 * e-mail each. Nothing when the form is gone, unpublished, or open again (limit raised or removed, a place
 * freed) by the time the job runs. A retry after the deliveries committed makes none again; the e-mail is
 * sent at least once, as the other notification e-mails are.
 */
export async function announceFormClosed(ctx: AppContext, job: FormClosedJob): Promise<'sent' | 'skipped'> {
  const teamId = await teamOfForm(ctx, job.formId);
  const form = teamId && (await findPublicForm(ctx.db, teamId, job.formId));
  if (!form) return 'skipped';
  const max = storedSettings(form.settings).max_submissions;
  if (max === null || form.kept === null || form.kept < max) return 'skipped';
  const addresses = await findFormAddresses(ctx.db, teamId, form.id);
  if (!addresses) return 'skipped';

  const closedAt = new Date(job.at);
  const event: FormClosedEvent = {
    type: 'form.closed',
    form_id: form.id,
    form_name: addresses.name,
    reason: job.reason,
    closed_at: closedAt.toISOString(),
    max_submissions: max,
    submissions: form.kept,
  };
  await ctx.db.transaction((tx) => createFormEventDeliveries(ctx, tx, teamId, event, closedAt));
  await sendFormClosedNotice(
    ctx,
    { id: form.id, teamId: form.team_id, name: addresses.name, notificationEmails: addresses.notification_emails },
    { maxSubmissions: max, submissions: form.kept, closedAt: event.closed_at },
  );
  return 'sent';
}
