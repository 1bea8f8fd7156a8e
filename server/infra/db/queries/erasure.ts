import type { Sql } from '../database.ts';

/**
 * What erasure reads and writes: the search for a person's data, the dry run's count of it, and the
 * requests' receipts (erasure_requests).
 */

/**
 * Whether submission `s` holds what the Postgres regular expression `pattern` (a placeholder, matched
 * case-insensitively) finds: in a string or number of the payload at any depth, or in the `_replyto`
 * control. The one selection both the erasure job and its dry run use.
 */
function matches(pattern: string): string {
  return `(exists (select 1 from jsonb_path_query(s.payload, 'strict $.**') v
                    where jsonb_typeof(v) in ('string', 'number') and (v #>> '{}') ~* ${pattern})
           or coalesce(s.metadata #>> '{controls,_replyto}', '') ~* ${pattern})`;
}

/** Every form of the team, trashed ones included (an erasure covers them all). */
export async function teamFormIds(sql: Sql, teamId: string): Promise<string[]> {
  const { rows } = await sql.query<{ id: string }>('select id from forms where team_id = $1 order by id', [teamId]);
  return rows.map((r) => r.id);
}

/** The team's form's submissions after the keyset `after` that match `pattern`, reading `scan` rows; with where the scan stopped. */
export async function matchingSubmissions(
  sql: Sql,
  teamId: string,
  formId: string,
  pattern: string,
  after: { at: string; id: string } | null,
  scan: number,
): Promise<{ ids: string[]; last: { at: string; id: string } | null }> {
  // received_at as text: microseconds kept, so the keyset never skips or repeats a row.
  const { rows } = await sql.query<{ id: string; received_at: string; hit: boolean }>(
    `select s.id, s.received_at, ${matches('$2')} as hit
       from submissions s
      where s.form_id = $1 and s.team_id = $6 and ($3::timestamptz is null or (s.received_at, s.id) > ($3::timestamptz, $4::text))
      order by s.received_at, s.id limit $5`,
    [formId, pattern, after?.at ?? null, after?.id ?? '', scan, teamId],
  );
  const last = rows.at(-1);
  return { ids: rows.filter((r) => r.hit).map((r) => r.id), last: last ? { at: last.received_at, id: last.id } : null };
}

/** Locks those of the team's `ids` that still exist (a concurrent delete may have taken some). */
export async function lockExisting(sql: Sql, teamId: string, ids: string[]): Promise<string[]> {
  if (!ids.length) return [];
  const { rows } = await sql.query<{ id: string }>(
    'select id from submissions where id = any($1::text[]) and team_id = $2 for update',
    [ids, teamId],
  );
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
  e: {
    id: string;
    teamId: string;
    jobId: string;
    kind: string;
    valueEncrypted: string;
    dryRun: boolean;
    tokenId: string | null;
    userId: string | null;
  },
): Promise<void> {
  await sql.query(
    `insert into erasure_requests (id, team_id, job_id, kind, value_encrypted, dry_run, requested_by_token_id, requested_by_user_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [e.id, e.teamId, e.jobId, e.kind, e.valueEncrypted, e.dryRun, e.tokenId, e.userId],
  );
}

/** A request of the team; `teamId` undefined: found by id alone (a job's request, whose data names no team). */
/** A request by id, within `teamId` (on its shard); without it (a job queued before jobs named the team), by id alone. */
export async function findErasure(sql: Sql, id: string, teamId?: string): Promise<ErasureRow | undefined> {
  const { rows } = await sql.query<ErasureRow>(
    teamId === undefined
      ? `select ${ERASURE_COLUMNS} from erasure_requests where id = $1`
      : `select ${ERASURE_COLUMNS} from erasure_requests where id = $1 and team_id = $2`,
    teamId === undefined ? [id] : [id, teamId],
  );
  return rows[0];
}

export async function startErasure(sql: Sql, teamId: string, id: string): Promise<void> {
  await sql.query(
    `update erasure_requests set status = 'running' where id = $1 and team_id = $2 and finished_at is null`,
    [id, teamId],
  );
}

export type ErasedCounts = {
  submissions: number;
  files: number;
  deliveriesRedacted: number;
  forms: Record<string, number>;
};

/** A dry run's counts, written once at its end. */
export async function setErased(sql: Sql, teamId: string, id: string, c: ErasedCounts): Promise<void> {
  await sql.query(
    'update erasure_requests set submissions = $2, files = $3, deliveries_redacted = $4, forms = $5 where id = $1 and team_id = $6',
    [id, c.submissions, c.files, c.deliveriesRedacted, JSON.stringify(c.forms), teamId],
  );
}

/** Adds one batch's counts (in the batch's transaction, so a resumed erasure counts each row once). */
export async function addErased(
  sql: Sql,
  teamId: string,
  id: string,
  formId: string,
  counts: { submissions: number; files: number; deliveriesRedacted: number },
): Promise<void> {
  await sql.query(
    `update erasure_requests set submissions = submissions + $3, files = files + $4, deliveries_redacted = deliveries_redacted + $5,
            forms = jsonb_set(forms, array[$2::text], to_jsonb(coalesce((forms ->> $2)::int, 0) + $3))
      where id = $1 and team_id = $6`,
    [id, formId, counts.submissions, counts.files, counts.deliveriesRedacted, teamId],
  );
}

/** Done: the value searched for is dropped; the receipt stays. */
export async function finishErasure(
  sql: Sql,
  teamId: string,
  id: string,
  status: 'succeeded' | 'failed',
): Promise<void> {
  await sql.query(
    `update erasure_requests set status = $2, value_encrypted = null, finished_at = now() where id = $1 and team_id = $3`,
    [id, status, teamId],
  );
}

/** Files of these submissions of the team (a dry run counts what would go). */
export async function countFiles(
  sql: Sql,
  teamId: string,
  ids: string[],
): Promise<{ files: number; deliveries: number }> {
  if (!ids.length) return { files: 0, deliveries: 0 };
  const { rows } = await sql.query<{ files: number; deliveries: number }>(
    `select (select count(*)::int from submission_files where submission_id = any($1::text[]) and team_id = $2) as files,
            (select count(*)::int from deliveries where submission_id = any($1::text[]) and team_id = $2
                and (request_body is not null or response_body is not null)) as deliveries`,
    [ids, teamId],
  );
  return rows[0]!;
}

export type ErasurePreview = {
  submissions: number;
  files: number;
  deliveries_redacted: number;
  forms: string[];
  submission_ids: string[];
};

/**
 * What an erasure of `pattern` would take from the team, in one read-only statement the pool's timeout bounds:
 * submissions, files, deliveries redacted, forms touched, and the first `idLimit` ids in the job's order.
 */
export async function previewErasure(
  sql: Sql,
  teamId: string,
  pattern: string,
  idLimit: number,
): Promise<ErasurePreview> {
  const { rows } = await sql.query<ErasurePreview>(
    `with hits as materialized (
       select s.id, s.form_id, s.received_at from submissions s
        where s.team_id = $1 and ${matches('$2')}
     )
     select (select count(*)::int from hits) as submissions,
            (select count(*)::int from submission_files f where f.team_id = $1 and f.submission_id in (select id from hits)) as files,
            (select count(*)::int from deliveries d
              where d.team_id = $1 and d.submission_id in (select id from hits)
                and (d.request_body is not null or d.response_body is not null)) as deliveries_redacted,
            coalesce((select array_agg(distinct form_id order by form_id) from hits), '{}') as forms,
            coalesce((select array_agg(id order by form_id, received_at, id) from (select id, form_id, received_at from hits order by form_id, received_at, id limit $3) f), '{}') as submission_ids`,
    [teamId, pattern, idLimit],
  );
  return rows[0]!;
}
