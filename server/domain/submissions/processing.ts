import type { AppContext } from '../../context.ts';
import type { Tx } from '../../infra/db/database.ts';
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

/** What processing one submission came to: its verdict (`skipped`: it was no longer `received`), or why it failed. */
export type ProcessingOutcome =
  { submissionId: string; outcome: 'processed' | 'spam' | 'skipped' } | { submissionId: string; error: unknown };

/**
 * The process-submission job on a batch of submissions of one team: for each, AI moderation and
 * categorisation and the form's rules (domain/rules/apply.ts); then one transaction settles them all —
 * `processed` (or `spam`, reason `ai_moderation` or `form_rule`), each with its follow-up work: the rules'
 * triage and record, the notification e-mails, the webhook deliveries (domain/delivery/fan-out.ts), the
 * field names the post could not learn when accepted — and, last, gives each form's settled submissions one
 * number in its stream. One commit and one stream number per batch, not per submission: a form's stream
 * head is held from its number to the commit (stream-heads.ts), so per-submission commits would queue a busy
 * form's settles behind each other's WAL flush. If that transaction fails, each submission is settled on its
 * own, so one that cannot be settled does not hold back the others. Only a `received` row is processed, so a
 * retried or duplicated job changes nothing.
 */
export async function processSubmissions(
  ctx: AppContext,
  submissionIds: readonly string[],
  opts: { trusted?: boolean; teamId?: string | undefined } = {},
): Promise<ProcessingOutcome[]> {
  const outcomes = new Map<string, ProcessingOutcome>();
  const ready: Verdict[] = [];
  for (const submissionId of submissionIds) {
    try {
      const verdict = await judge(ctx, submissionId, opts);
      if (verdict) ready.push(verdict);
      else outcomes.set(submissionId, { submissionId, outcome: 'skipped' });
    } catch (error) {
      outcomes.set(submissionId, { submissionId, error });
    }
  }
  try {
    for (const o of await settleAll(ctx, ready)) outcomes.set(o.submissionId, o);
  } catch (batchError) {
    if (ready.length === 1)
      outcomes.set(ready[0]!.submissionId, { submissionId: ready[0]!.submissionId, error: batchError });
    else
      for (const verdict of ready) {
        const { submissionId } = verdict;
        try {
          outcomes.set(submissionId, (await settleAll(ctx, [verdict]))[0]!);
        } catch (error) {
          outcomes.set(submissionId, { submissionId, error });
        }
      }
  }
  return submissionIds.map((id) => outcomes.get(id)!);
}

/** One submission through processSubmissions; throws what failed it. */
export async function processSubmission(
  ctx: AppContext,
  submissionId: string,
  opts: { trusted?: boolean; teamId?: string | undefined } = {},
): Promise<'processed' | 'spam' | 'skipped'> {
  const [result] = await processSubmissions(ctx, [submissionId], opts);
  if ('error' in result!) throw result.error;
  return result!.outcome;
}

/** A `received` submission as judged, outside any transaction: what settling it writes. */
type Verdict = NonNullable<Awaited<ReturnType<typeof judge>>>;

/** Moderation and the form's rules for one submission; null when it is not `received`. */
async function judge(ctx: AppContext, submissionId: string, opts: { trusted?: boolean; teamId?: string | undefined }) {
  const teamId = opts.teamId ?? (await queries.submissionTeam(ctx.db, submissionId));
  const row = teamId && (await queries.findForProcessing(ctx.db, teamId, submissionId));
  if (!row && mayBeUnseen(submissionId)) throw new Error('the submission is not visible yet; the job is retried');
  if (!row || row.status !== 'received') return null;
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
  const ruledSpam = !spam && !opts.trusted && rules?.effects.spamReason != null;
  const isSpam = spam || ruledSpam;
  const autoresponds = settings.autoresponder.enabled && !rules?.effects.skipAutoresponder;
  return {
    submissionId,
    row,
    settings,
    rules,
    isSpam,
    autoresponds,
    settled: {
      status: isSpam ? 'spam' : 'processed',
      spamReason: spam ? 'ai_moderation' : ruledSpam ? 'form_rule' : null,
      category: isSpam ? 'spam' : category,
      moderation,
      autoresponse: isSpam && autoresponds ? ({ skipped: 'spam' } as const) : null,
      rulesApplied: rules ? rules.effects.applied : null,
      triage: rules?.triage ?? {},
    } as const,
  };
}

/** Settles judged submissions in one transaction, then numbers each form's settled ones (forms in id order). */
async function settleAll(ctx: AppContext, verdicts: readonly Verdict[]): Promise<ProcessingOutcome[]> {
  if (!verdicts.length) return [];
  return ctx.db.transaction(async (tx) => {
    const outcomes: ProcessingOutcome[] = [];
    const events = new Map<string, { teamId: string; ids: string[] }>();
    for (const verdict of verdicts) {
      const outcome = await settle(ctx, tx, verdict);
      outcomes.push({ submissionId: verdict.submissionId, outcome });
      if (outcome === 'skipped') continue;
      const { form_id: formId, team_id: teamId } = verdict.row;
      const form = events.get(formId) ?? { teamId, ids: [] };
      form.ids.push(verdict.submissionId);
      events.set(formId, form);
    }
    // Last: each form's stream head is held from here to the commit (stream-heads.ts); a batch takes its
    // forms' heads in one order, so two batches never wait on each other's.
    for (const [formId, { teamId, ids }] of [...events].sort(([a], [b]) => (a < b ? -1 : 1))) {
      await numberStreamEvents(tx, teamId, formId, ids);
      tx.afterCommit(() => announceSubmissionEvent(ctx, formId));
    }
    return outcomes;
  });
}

/** One judged submission's settling statements, in the batch's transaction. */
async function settle(ctx: AppContext, tx: Tx, verdict: Verdict): Promise<'processed' | 'spam' | 'skipped'> {
  const { submissionId, row, settings, rules, isSpam, autoresponds, settled } = verdict;
  const effects = rules?.effects;
  if (!(await submissionRows.settleReceived(tx, row.team_id, submissionId, settled))) return 'skipped';
  if (rules?.events.length) await recordRuleActivity(ctx, tx, row, rules);
  // Names its post could not learn at once (its form's row was held: submission-inserts.ts, LEARNING); the
  // read above says whether there are any, so most posts cost no statement here.
  if (row.unlearned) await recordFieldNames(tx, row.team_id, row.form_id, Object.keys(row.payload));
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
  return settled.status;
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
