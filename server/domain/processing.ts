import type { AppContext } from '../context.ts';
import { LocalProvider } from '../ai/local-provider.ts';
import { withTransaction } from '../db/sql.ts';
import { notificationEmail } from '../jobs/definitions.ts';
import { formSettings } from './forms.ts';
import { senderEmail } from './spam.ts';

const local = new LocalProvider();

type Row = {
  id: string;
  status: string;
  payload: Record<string, unknown>;
  metadata: { controls?: Record<string, unknown> };
  settings: unknown;
  notification_emails: string[];
  ai: boolean;
};

/**
 * The process-submission job: AI moderation and categorisation, then `processed` (or `spam` with
 * reason `ai_moderation`), and the follow-up jobs enqueued in the same transaction. Runs at most once
 * per submission: only a `received` row is processed, so a retried or duplicated job changes nothing.
 */
export async function processSubmission(ctx: AppContext, submissionId: string): Promise<'processed' | 'spam' | 'skipped'> {
  const { rows } = await ctx.pool.query<Row>(
    `select s.id, s.status, s.payload, s.metadata, f.settings, f.notification_emails, p.ai
       from submissions s join forms f on f.id = s.form_id join teams t on t.id = s.team_id join plans p on p.id = t.plan_id
      where s.id = $1`,
    [submissionId],
  );
  const row = rows[0];
  if (!row || row.status !== 'received') return 'skipped';
  const settings = formSettings(row);
  const replyTo = typeof row.metadata.controls?._replyto === 'string' ? row.metadata.controls._replyto : null;
  // Plans without AI features get the local provider; with them, the configured one (OpenAI or local).
  const provider = row.ai ? ctx.ai : local;
  const analysis = await provider.analyze({ fields: row.payload, email: senderEmail(row.payload, replyTo) });
  const spam = analysis.score >= settings.ai_threshold;
  const moderation = { score: analysis.score, verdict: analysis.verdict, reasons: analysis.reasons, provider: analysis.provider };

  return withTransaction(ctx.pool, async (client) => {
    const updated = await client.query(
      `update submissions set status = $2, spam_reason = $3, category = $4, ai_moderation = $5, updated_at = now()
        where id = $1 and status = 'received'`,
      [submissionId, spam ? 'spam' : 'processed', spam ? 'ai_moderation' : null, spam ? 'spam' : analysis.category, JSON.stringify(moderation)],
    );
    if (!updated.rowCount) return 'skipped' as const;
    if (!spam && row.notification_emails.length) {
      await ctx.queue.send(notificationEmail, { submissionId }, { db: client });
    }
    return spam ? ('spam' as const) : ('processed' as const);
  });
}

/** After its last retry a submission that could not be processed is marked `failed` (never lost). */
export async function markFailed(ctx: AppContext, submissionId: string, reason: string): Promise<void> {
  await ctx.pool.query(
    `update submissions set status = 'failed', metadata = jsonb_set(metadata, '{processing_error}', to_jsonb($2::text)), updated_at = now()
      where id = $1 and status = 'received'`,
    [submissionId, reason.slice(0, 500)],
  );
}
