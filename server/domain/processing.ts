import type { AppContext } from '../context.ts';
import { categorize, LocalProvider } from '../ai/local-provider.ts';
import { submissionText } from '../ai/provider.ts';
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

/** A model's reason as jsonb can hold it: Postgres refuses U+0000 in jsonb text, and length is bounded. */
function storableReason(reason: string): string {
  return reason.replaceAll('\u0000', '').slice(0, 500);
}

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
  // The form's threshold, not the provider's own cut-off, decides what is spam: a submission kept in
  // the inbox is filed under what it is about, never under `spam`.
  const category = spam ? 'spam' : analysis.category === 'spam' ? categorize(submissionText(row.payload).toLowerCase()) : analysis.category;
  const moderation = { score: analysis.score, verdict: analysis.verdict, reasons: analysis.reasons.map(storableReason), provider: analysis.provider };

  return withTransaction(ctx.pool, async (client) => {
    const updated = await client.query(
      `update submissions set status = $2, spam_reason = $3, category = $4, ai_moderation = $5, updated_at = now()
        where id = $1 and status = 'received'`,
      [submissionId, spam ? 'spam' : 'processed', spam ? 'ai_moderation' : null, category, JSON.stringify(moderation)],
    );
    if (!updated.rowCount) return 'skipped' as const;
    if (!spam && row.notification_emails.length) {
      await ctx.queue.send(notificationEmail, { submissionId }, { db: client });
    }
    return spam ? ('spam' as const) : ('processed' as const);
  });
}

/** A failed attempt leaves its reason on the submission (metadata.processing_error); the job is retried. */
export async function recordProcessingError(ctx: AppContext, submissionId: string, reason: string): Promise<void> {
  await ctx.pool.query(
    `update submissions set metadata = jsonb_set(metadata, '{processing_error}', to_jsonb($2::text))
      where id = $1 and status = 'received'`,
    [submissionId, reason.slice(0, 500)],
  );
}

/**
 * Once the queue has given up on its job — the last attempt threw, or expired with its worker — a
 * submission that could not be processed is marked `failed` (never lost, never left `received`).
 */
export async function markFailed(ctx: AppContext, submissionId: string): Promise<void> {
  await ctx.pool.query(
    `update submissions
        set status = 'failed', updated_at = now(),
            metadata = jsonb_set(metadata, '{processing_error}', coalesce(metadata->'processing_error', to_jsonb('processing timed out'::text)))
      where id = $1 and status = 'received'`,
    [submissionId],
  );
}
