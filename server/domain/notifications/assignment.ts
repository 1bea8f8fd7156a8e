import type { AppContext } from '../../context.ts';
import { findAssignment } from '../../infra/db/queries/notifications.ts';
import { submissionTeam } from '../../infra/db/queries/processing.ts';
import { mayBeUnseenSince } from '../shared/ids.ts';
import { valueText } from './display-text.ts';

/** Fields of the submission shown in the e-mail, at most. */
const SHOWN_FIELDS = 10;
const FIELD_CHARS = 200;

/**
 * The e-mail to a member a submission was assigned to: who assigned it, on which form, its first fields, and
 * where to read and answer it. Nothing when the submission, its form or the assignment is gone by then; a job
 * that does not find the assignment within a minute of it is retried (on Citus the job can commit before the
 * assignment's shard does: shared/ids.ts, mayBeUnseenSince).
 */
export async function sendAssignmentNotice(
  ctx: AppContext,
  job: {
    submissionId: string;
    assigneeId: string;
    byUserId: string | null;
    teamId?: string | undefined;
    at?: string | undefined;
  },
): Promise<'sent' | 'skipped'> {
  const teamId = job.teamId ?? (await submissionTeam(ctx.db, job.submissionId));
  const a = teamId && (await findAssignment(ctx.db, teamId, job.submissionId, job.assigneeId, job.byUserId));
  if (!a || a.assignee_id !== job.assigneeId) {
    if (job.at && mayBeUnseenSince(job.at)) throw new Error('the assignment is not visible yet; the job is retried');
    return 'skipped';
  }
  const by = job.byUserId === null ? 'A rule of the form' : a.by_name || a.by_email || 'A teammate';
  const fields = Object.entries(a.payload)
    .slice(0, SHOWN_FIELDS)
    .map(([k, v]) => `  ${k}: ${valueText(v, FIELD_CHARS)}`);
  const text = [
    `${by} assigned you a submission to "${a.form_name}" (received ${new Date(a.received_at).toISOString()}).`,
    '',
    ...fields,
    '',
    `Read it: GET ${ctx.config.baseUrl}/v1/forms/${a.form_id}/submissions/${a.submission_id}`,
    `  intake submissions get ${a.submission_id} --form ${a.form_id}`,
    `Add a note: intake submissions note ${a.submission_id} --form ${a.form_id} --body "…"`,
  ].join('\n');
  const subject = `Assigned to you: a submission to ${a.form_name}`.replace(/[\r\n]+/g, ' ').slice(0, 200);
  await ctx.mailer.send({ to: [a.email], subject, text });
  return 'sent';
}
