import type { AppContext } from '../../context.ts';
import { findForProcessing, submissionTeam } from '../../infra/db/queries/processing.ts';
import { recordRules } from '../../infra/db/queries/submissions.ts';
import { notificationEmail } from '../../infra/queue/definitions.ts';
import { createRuleDeliveries } from '../delivery/fan-out.ts';
import { storedSettings } from '../spam/stored-rules.ts';
import { recordRuleActivity, runFormRules } from './apply.ts';

/**
 * The spam-rules job: a post the public endpoint stored as spam (honeypot, CAPTCHA, a spam rule, the rate
 * limit) meets the form's rules that run on spam, once; then the form's spam notification, when it asks for
 * one and no rule skipped or replaced it. Spam never reaches processing, so this is where its rules run.
 */
export async function runSpamRules(
  ctx: AppContext,
  submissionId: string,
  teamId?: string,
): Promise<'applied' | 'skipped'> {
  const team = teamId ?? (await submissionTeam(ctx.db, submissionId));
  const row = team && (await findForProcessing(ctx.db, team, submissionId));
  if (!row || row.status !== 'spam' || row.rules_applied !== null) return 'skipped';
  const settings = storedSettings(row.settings);
  const subject = {
    payload: row.payload,
    category: row.category,
    ai_score: null,
    spam_reason: row.spam_reason,
    referrer: row.metadata.referrer ?? null,
    source: row.api_token_id ? ('api' as const) : ('form' as const),
    status: 'spam' as const,
  };
  const rules = await runFormRules(ctx.db, row, 'submission.spam', subject, settings.stages);
  return ctx.db.transaction(async (tx) => {
    const verdict = { rulesApplied: rules?.effects.applied ?? [], triage: rules?.triage ?? {} };
    if (!(await recordRules(tx, team, submissionId, verdict))) return 'skipped' as const;
    if (rules?.events.length) await recordRuleActivity(ctx, tx, row, rules);
    const effects = rules?.effects;
    const notify =
      settings.notify_spam &&
      settings.notification_mode === 'instant' &&
      row.notification_emails.length > 0 &&
      !effects?.skipNotifications &&
      !effects?.replaceDefault;
    if (notify) await ctx.queue.send(notificationEmail, { submissionId, teamId: row.team_id }, { tx });
    for (const n of effects?.notify ?? [])
      await ctx.queue.send(notificationEmail, { submissionId, teamId: row.team_id, rule: n }, { tx });
    if (effects?.webhookIds.length)
      await createRuleDeliveries(
        ctx,
        tx,
        { teamId: row.team_id, id: submissionId, formId: row.form_id },
        effects.webhookIds,
      );
    return 'applied' as const;
  });
}
