import type { Sql } from '../database.ts';

/** What the process-submission job and the notification e-mail read and write. */

export type ProcessingRow = {
  id: string;
  form_id: string;
  status: string;
  payload: Record<string, unknown>;
  metadata: { controls?: Record<string, unknown> };
  settings: unknown;
  notification_emails: string[];
  /** The team's plan includes AI. */
  ai: boolean;
};

export async function findForProcessing(sql: Sql, submissionId: string): Promise<ProcessingRow | undefined> {
  const { rows } = await sql.query<ProcessingRow>(
    `select s.id, s.form_id, s.status, s.payload, s.metadata, f.settings, f.notification_emails, p.ai
       from submissions s join forms f on f.id = s.form_id join teams t on t.id = s.team_id join plans p on p.id = t.plan_id
      where s.id = $1`,
    [submissionId],
  );
  return rows[0];
}

export type Verdict = {
  status: 'processed' | 'spam';
  spamReason: string | null;
  category: string;
  moderation: { score: number; verdict: string; reasons: string[]; provider: string };
  /** The autoresponder's outcome when it is decided here (spam is never answered). */
  autoresponse: { skipped: 'spam' } | null;
};

/**
 * Applies the verdict to a submission still `received`; false when another run got there first. An
 * autoresponse already sent (the submission is processed again: marked not spam) stays recorded, so
 * it is not sent twice. The transaction's id makes it an event of the submission stream (migration 0012).
 */
export async function settleReceived(sql: Sql, submissionId: string, v: Verdict): Promise<boolean> {
  const { rowCount } = await sql.query(
    `update submissions set status = $2, spam_reason = $3, category = $4, ai_moderation = $5, stream_xid = pg_current_xact_id(),
            autoresponse = case when autoresponse ? 'sent_at' then autoresponse else $6::jsonb end, updated_at = now()
      where id = $1 and status = 'received'`,
    [submissionId, v.status, v.spamReason, v.category, JSON.stringify(v.moderation), v.autoresponse && JSON.stringify(v.autoresponse)],
  );
  return rowCount > 0;
}

export async function recordProcessingError(sql: Sql, submissionId: string, reason: string): Promise<void> {
  await sql.query(
    `update submissions set metadata = jsonb_set(metadata, '{processing_error}', to_jsonb($2::text))
      where id = $1 and status = 'received'`,
    [submissionId, reason],
  );
}

/** `failed`, keeping the last attempt's error (or saying it timed out). */
export async function markFailed(sql: Sql, submissionId: string): Promise<void> {
  await sql.query(
    `update submissions
        set status = 'failed', updated_at = now(),
            metadata = jsonb_set(metadata, '{processing_error}', coalesce(metadata->'processing_error', to_jsonb('processing timed out'::text)))
      where id = $1 and status = 'received'`,
    [submissionId],
  );
}
