import type { Sql } from '../database.ts';

/** What retention and erasure read and write. */

export type RetentionFacts = {
  form_id: string;
  settings: unknown;
  /** The plan's cap on retention in days; null = none. */
  cap: number | null;
  /** Timestamps as Postgres prints them (read as text). */
  oldest_inbox: string | null;
  oldest_spam: string | null;
};

/** Per form: its settings, its plan's cap, and the oldest submission of each folder (for next_deletion_at). */
export async function retentionFacts(sql: Sql, formIds: string[]): Promise<Map<string, RetentionFacts>> {
  if (!formIds.length) return new Map();
  const { rows } = await sql.query<RetentionFacts>(
    `select f.id as form_id, f.settings, p.max_retention_days as cap,
            (select min(s.received_at) from submissions s where s.form_id = f.id and s.status <> 'spam') as oldest_inbox,
            (select min(s.received_at) from submissions s where s.form_id = f.id and s.status = 'spam') as oldest_spam
       from forms f join teams t on t.id = f.team_id join plans p on p.id = t.plan_id
      where f.id = any($1::text[])`,
    [formIds],
  );
  return new Map(rows.map((r) => [r.form_id, r]));
}

/** Forms in id order after `afterId`, with their settings and plan cap: the retention sweep's walk. */
export async function formsAfter(sql: Sql, afterId: string, limit: number): Promise<Array<{ id: string; settings: unknown; cap: number | null }>> {
  const { rows } = await sql.query<{ id: string; settings: unknown; cap: number | null }>(
    `select f.id, f.settings, p.max_retention_days as cap
       from forms f join teams t on t.id = f.team_id join plans p on p.id = t.plan_id
      where f.id > $1 order by f.id limit $2`,
    [afterId, limit],
  );
  return rows;
}

/**
 * Up to `limit` of the form's submissions of one folder received before `cutoff`, oldest first, locked;
 * rows another sweeper holds are skipped, so several workers can sweep at once without waiting.
 */
export async function lockAged(sql: Sql, formId: string, spam: boolean, cutoff: Date, limit: number): Promise<string[]> {
  const { rows } = await sql.query<{ id: string }>(
    `select s.id from submissions s
      where s.form_id = $1 and ${spam ? "s.status = 'spam'" : "s.status <> 'spam'"} and s.received_at < $2
      order by s.received_at, s.id limit $3 for update skip locked`,
    [formId, cutoff, limit],
  );
  return rows.map((r) => r.id);
}

/** Every form of the team, trashed ones included (an erasure covers them all). */
export async function teamFormIds(sql: Sql, teamId: string): Promise<string[]> {
  const { rows } = await sql.query<{ id: string }>('select id from forms where team_id = $1 order by id', [teamId]);
  return rows.map((r) => r.id);
}

/**
 * The form's submissions after the keyset `after` (received_at, id) in which `pattern` (a Postgres
 * regular expression, case-insensitive) matches a string or number of the payload at any depth, or the
 * `_replyto` control; reads `scan` rows per call. Returns the matches and where the scan stopped.
 */
export async function matchingSubmissions(
  sql: Sql,
  formId: string,
  pattern: string,
  after: { at: string; id: string } | null,
  scan: number,
): Promise<{ ids: string[]; last: { at: string; id: string } | null }> {
  // received_at as text: microseconds kept, so the keyset never skips or repeats a row.
  const { rows } = await sql.query<{ id: string; received_at: string; hit: boolean }>(
    `select s.id, s.received_at,
            exists (select 1 from jsonb_path_query(s.payload, 'strict $.**') v
                     where jsonb_typeof(v) in ('string', 'number') and (v #>> '{}') ~* $2)
            or coalesce(s.metadata #>> '{controls,_replyto}', '') ~* $2 as hit
       from submissions s
      where s.form_id = $1 and ($3::timestamptz is null or (s.received_at, s.id) > ($3::timestamptz, $4::text))
      order by s.received_at, s.id limit $5`,
    [formId, pattern, after?.at ?? null, after?.id ?? '', scan],
  );
  const last = rows.at(-1);
  return { ids: rows.filter((r) => r.hit).map((r) => r.id), last: last ? { at: last.received_at, id: last.id } : null };
}

/** Locks those of `ids` that still exist (a concurrent delete may have taken some). */
export async function lockExisting(sql: Sql, ids: string[]): Promise<string[]> {
  if (!ids.length) return [];
  const { rows } = await sql.query<{ id: string }>('select id from submissions where id = any($1::text[]) for update', [ids]);
  return rows.map((r) => r.id);
}

export type ErasureRow = {
  id: string;
  team_id: string;
  job_id: string;
  kind: 'email' | 'value';
  value_encrypted: string | null;
  dry_run: boolean;
  requested_by_token_id: string | null;
  requested_by_user_id: string | null;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  submissions: number;
  files: number;
  deliveries_redacted: number;
  forms: Record<string, number>;
  created_at: string;
  finished_at: string | null;
};

const ERASURE_COLUMNS = `id, team_id, job_id, kind, value_encrypted, dry_run, requested_by_token_id, requested_by_user_id, status,
  submissions, files, deliveries_redacted, forms, created_at, finished_at`;

export async function insertErasure(
  sql: Sql,
  e: { id: string; teamId: string; jobId: string; kind: string; valueEncrypted: string; dryRun: boolean; tokenId: string | null; userId: string | null },
): Promise<void> {
  await sql.query(
    `insert into erasure_requests (id, team_id, job_id, kind, value_encrypted, dry_run, requested_by_token_id, requested_by_user_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [e.id, e.teamId, e.jobId, e.kind, e.valueEncrypted, e.dryRun, e.tokenId, e.userId],
  );
}

export async function findErasure(sql: Sql, id: string, teamId?: string): Promise<ErasureRow | undefined> {
  const { rows } = await sql.query<ErasureRow>(`select ${ERASURE_COLUMNS} from erasure_requests where id = $1 and ($2::text is null or team_id = $2)`, [
    id,
    teamId ?? null,
  ]);
  return rows[0];
}

export async function startErasure(sql: Sql, id: string): Promise<void> {
  await sql.query(`update erasure_requests set status = 'running' where id = $1 and finished_at is null`, [id]);
}

export type ErasedCounts = { submissions: number; files: number; deliveriesRedacted: number; forms: Record<string, number> };

/** A dry run's counts, written once at its end. */
export async function setErased(sql: Sql, id: string, c: ErasedCounts): Promise<void> {
  await sql.query('update erasure_requests set submissions = $2, files = $3, deliveries_redacted = $4, forms = $5 where id = $1', [
    id,
    c.submissions,
    c.files,
    c.deliveriesRedacted,
    JSON.stringify(c.forms),
  ]);
}

/** Adds one batch's counts (in the batch's transaction, so a resumed erasure counts each row once). */
export async function addErased(sql: Sql, id: string, formId: string, counts: { submissions: number; files: number; deliveriesRedacted: number }): Promise<void> {
  await sql.query(
    `update erasure_requests set submissions = submissions + $3, files = files + $4, deliveries_redacted = deliveries_redacted + $5,
            forms = jsonb_set(forms, array[$2::text], to_jsonb(coalesce((forms ->> $2)::int, 0) + $3))
      where id = $1`,
    [id, formId, counts.submissions, counts.files, counts.deliveriesRedacted],
  );
}

/** Done: the value searched for is dropped; the receipt stays. */
export async function finishErasure(sql: Sql, id: string, status: 'succeeded' | 'failed'): Promise<void> {
  await sql.query(`update erasure_requests set status = $2, value_encrypted = null, finished_at = now() where id = $1`, [id, status]);
}

/** Files of these submissions (a dry run counts what would go). */
export async function countFiles(sql: Sql, ids: string[]): Promise<{ files: number; deliveries: number }> {
  if (!ids.length) return { files: 0, deliveries: 0 };
  const { rows } = await sql.query<{ files: number; deliveries: number }>(
    `select (select count(*)::int from submission_files where submission_id = any($1::text[])) as files,
            (select count(*)::int from deliveries where submission_id = any($1::text[]) and (request_body is not null or response_body is not null)) as deliveries`,
    [ids],
  );
  return rows[0]!;
}
