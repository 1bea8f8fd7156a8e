import type { AppContext } from '../../context.ts';
import * as queries from '../../infra/db/queries/processing.ts';
import * as submissionRows from '../../infra/db/queries/submissions.ts';
import { recordFieldNames } from '../../infra/db/queries/forms.ts';
import { numberStreamEvents } from '../../infra/db/queries/stream-heads.ts';
import { autoresponseEmail, notificationEmail } from '../../infra/queue/definitions.ts';
import { createRuleDeliveries, createSubmissionDeliveries } from '../delivery/fan-out.ts';
import { recordRuleActivity, runFormRules } from '../rules/apply.ts';
import { storedSettings } from '../spam/stored-rules.ts';
import { announceSubmissionEvent } from './stream.ts';
import { senderEmail } from '../spam/spam.ts';
import { mayBeUnseen } from '../shared/ids.ts';

/** A model's reason as jsonb can hold it: Postgres refuses U+0000 in jsonb text, and length is bounded. */
function storableReason(reason: string): string {
  return reason.replaceAll('\u0000', '').slice(0, 500);
}

/**
 * The process-submission job: AI moderation and categorisation, the form's rules (domain/rules/apply.ts), then
 * `processed` (or `spam`, reason `ai_moderation` or `form_rule`), with its follow-up work in the same
 * transaction: the rules' triage and record, the notification e-mails, the webhook deliveries
 * (domain/delivery/fan-out.ts), the field names the post could not learn when accepted, and, last, its
 * number in the submission stream. Only a `received` row is processed, so a retried or duplicated job
 * changes nothing.
 */
export async function processSubmission(
  ctx: AppContext,
  submissionId: string,
  opts: { trusted?: boolean; teamId?: string | undefined } = {},
): Promise<'processed' | 'spam' | 'skipped'> {
  const teamId = opts.teamId ?? (await queries.submissionTeam(ctx.db, submissionId));
  const row = teamId && (await queries.findForProcessing(ctx.db, teamId, submissionId));
  if (!row && mayBeUnseen(submissionId)) throw new Error('the submission is not visible yet; the job is retried');
  if (!row || row.status !== 'received') return 'skipped';
  const settings = storedSettings(row.settings);
  const replyTo = typeof row.metadata.controls?._replyto === 'string' ? row.metadata.controls._replyto : null;
  // Plans without AI features get the local provider; with them, the configured one (OpenAI or local).
  const provider = row.ai ? ctx.ai : ctx.localAi;
  const analysis = await provider.analyze({ fields: row.payload, email: senderEmail(row.payload, replyTo) });
  // A submission a person marked not spam stays in the inbox whatever the model thinks.
  const spam = !opts.trusted && analysis.score >= settings.ai_threshold;
  // The form's threshold, not the provider's own cut-off, decides what is spam: a submission kept in
  // the inbox is filed under what it is about (its topic), never under `spam`.
  const category = spam ? 'spam' : analysis.topic;
  const moderation = {
    score: analysis.score,
    verdict: analysis.verdict,
    reasons: analysis.reasons.map(storableReason),
    provider: analysis.provider,
  };

  // The form's rules, once per submission: on its first pass, or when a person marked it not spam (then no
  // rule moves it back).
  const event = spam ? 'submission.spam' : 'submission.created';
  const runsRules = row.rules_applied === null || opts.trusted === true;
  const subject = {
    payload: row.payload,
    category,
    ai_score: analysis.score,
    spam_reason: spam ? 'ai_moderation' : null,
    referrer: row.metadata.referrer ?? null,
    source: row.api_token_id ? ('api' as const) : ('form' as const),
    status: spam ? ('spam' as const) : ('processed' as const),
  };
  const rules = runsRules ? await runFormRules(ctx.db, row, event, subject, settings.stages) : null;
  const effects = rules?.effects;
  const ruledSpam = !spam && !opts.trusted && effects?.spamReason != null;
  const isSpam = spam || ruledSpam;

  return ctx.db.transaction(async (tx) => {
    const autoresponds = settings.autoresponder.enabled && !effects?.skipAutoresponder;
    const verdict = {
      status: isSpam ? 'spam' : 'processed',
      spamReason: spam ? 'ai_moderation' : ruledSpam ? 'form_rule' : null,
      category: isSpam ? 'spam' : category,
      moderation,
      autoresponse: isSpam && autoresponds ? ({ skipped: 'spam' } as const) : null,
      rulesApplied: rules ? rules.effects.applied : null,
      triage: rules?.triage ?? {},
    } as const;
    if (!(await submissionRows.settleReceived(tx, row.team_id, submissionId, verdict))) return 'skipped' as const;
    if (rules?.events.length) await recordRuleActivity(ctx, tx, row, rules);
    // Names its post could not learn at once (its form's row was held: submission-inserts.ts, LEARNING); the
    // read above says whether there are any, so most posts cost no statement here.
    if (row.unlearned) await recordFieldNames(tx, row.team_id, row.form_id, Object.keys(row.payload));
    tx.afterCommit(() => announceSubmissionEvent(ctx, row.form_id));
    // Instant notifications (digest forms are told by the digest job); spam only when the form asks; a rule
    // may skip them or send to its own addresses instead.
    const notify =
      row.notification_emails.length > 0 &&
      settings.notification_mode === 'instant' &&
      (!isSpam || settings.notify_spam) &&
      !effects?.skipNotifications &&
      !effects?.replaceDefault;
    const team = row.team_id;
    if (notify) await ctx.queue.send(notificationEmail, { submissionId, teamId: team }, { tx });
    for (const n of effects?.notify ?? [])
      await ctx.queue.send(notificationEmail, { submissionId, teamId: team, rule: n }, { tx });
    const submission = { teamId: team, id: submissionId, formId: row.form_id };
    if (isSpam) {
      if (effects?.webhookIds.length) await createRuleDeliveries(ctx, tx, submission, effects.webhookIds);
    } else {
      if (autoresponds) await ctx.queue.send(autoresponseEmail, { submissionId, teamId: team }, { tx });
      await createSubmissionDeliveries(ctx, tx, submission, effects?.webhookIds ?? []);
    }
    // Last: its form's stream head is held from here to the commit (stream-heads.ts).
    await numberStreamEvents(tx, team, row.form_id, [submissionId]);
    return verdict.status;
  });
}

/** A failed attempt leaves its reason on the submission (metadata.processing_error); the job is retried. */
export async function recordProcessingError(
  ctx: AppContext,
  submissionId: string,
  reason: string,
  teamId?: string,
): Promise<void> {
  const team = teamId ?? (await queries.submissionTeam(ctx.db, submissionId));
  if (team) await submissionRows.recordProcessingError(ctx.db, team, submissionId, reason.slice(0, 500));
}

/**
 * Once the queue has given up on its job — the last attempt threw, or expired with its worker — a
 * submission that could not be processed is marked `failed` (never lost, never left `received`); false when
 * it was no longer `received` (a batch's others were processed).
 */
export async function markFailed(ctx: AppContext, submissionId: string, teamId?: string): Promise<boolean> {
  const team = teamId ?? (await queries.submissionTeam(ctx.db, submissionId));
  return !!team && submissionRows.markFailed(ctx.db, team, submissionId);
}
