import type { Sql } from '../database.ts';

/** The owner of `deliveries`: the webhook delivery log, one row per (webhook, submission or event). */

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'dead';

export type DeliveryRow = {
  id: string;
  webhook_id: string;
  event: string;
  status: DeliveryStatus;
  http_status: number | null;
  attempts: number;
  duration_ms: number | null;
  submission_id: string | null;
  request_body: string | null;
  response_body: string | null;
  error: string | null;
  delivered_at: string | null;
  next_attempt_at: string | null;
  replay_of: string | null;
  created_at: string;
  updated_at: string;
};

const COLUMNS = `d.id, d.webhook_id, d.event, d.status, d.http_status, d.attempts, d.duration_ms, d.submission_id, d.request_body,
  d.response_body, d.error, d.delivered_at, d.next_attempt_at, d.replay_of, d.created_at, d.updated_at`;

export type NewDelivery = {
  id: string;
  team_id: string;
  webhook_id: string;
  event: string;
  submission_id: string | null;
  request_body: string;
  next_attempt_at: Date;
  replay_of?: string | null;
  replay_job_id?: string | null;
};

/** Inserts deliveries (one statement for any number); rows a bulk replay already made are skipped. Returns the ids inserted. */
export async function insertDeliveries(sql: Sql, rows: NewDelivery[]): Promise<string[]> {
  if (!rows.length) return [];
  const col = <K extends keyof NewDelivery>(k: K) => rows.map((r) => r[k] ?? null);
  const { rows: inserted } = await sql.query<{ id: string }>(
    `insert into deliveries (id, team_id, webhook_id, event, submission_id, request_body, next_attempt_at, replay_of, replay_job_id)
     select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::text[], $9::text[])
     on conflict (replay_job_id, replay_of) where replay_job_id is not null do nothing
     returning id`,
    [
      col('id'),
      col('team_id'),
      col('webhook_id'),
      col('event'),
      col('submission_id'),
      col('request_body'),
      rows.map((r) => r.next_attempt_at.toISOString()),
      col('replay_of'),
      col('replay_job_id'),
    ],
  );
  return inserted.map((r) => r.id);
}

export type DeliveryFilter = { webhookId: string; status?: DeliveryStatus; submissionId?: string; before?: string; limit: number };

/** Newest first, keyset on the id (ULIDs sort by creation). */
export async function listDeliveries(sql: Sql, f: DeliveryFilter): Promise<DeliveryRow[]> {
  const { rows } = await sql.query<DeliveryRow>(
    `select ${COLUMNS} from deliveries d
      where d.webhook_id = $1 and ($2::text is null or d.status = $2) and ($3::text is null or d.submission_id = $3) and ($4::text is null or d.id < $4)
      order by d.id desc limit $5`,
    [f.webhookId, f.status ?? null, f.submissionId ?? null, f.before ?? null, f.limit],
  );
  return rows;
}

/** A delivery of the team with its webhook's state (`formId` when the path names the form and webhook). */
export type DeliveryWithWebhook = DeliveryRow & { team_id: string; form_id: string; webhook_active: boolean; webhook_deleted: boolean };

export async function findDelivery(
  sql: Sql,
  teamId: string,
  id: string,
  scope: { webhookId?: string; formId?: string } = {},
): Promise<DeliveryWithWebhook | undefined> {
  const { rows } = await sql.query<DeliveryWithWebhook>(
    `select ${COLUMNS}, d.team_id, w.form_id, w.active as webhook_active, (w.deleted_at is not null or f.deleted_at is not null) as webhook_deleted
       from deliveries d join webhooks w on w.id = d.webhook_id join forms f on f.id = w.form_id
      where d.id = $1 and d.team_id = $2 and ($3::text is null or d.webhook_id = $3) and ($4::text is null or w.form_id = $4)`,
    [id, teamId, scope.webhookId ?? null, scope.formId ?? null],
  );
  return rows[0];
}

/** What an attempt needs: the body, where it goes and the keys that sign it. */
export type AttemptRow = {
  id: string;
  status: DeliveryStatus;
  attempts: number;
  request_body: string | null;
  webhook_id: string;
  url: string;
  active: boolean;
  deleted: boolean;
  secret_encrypted: string;
  /** The secret before a rotation, while it still signs. */
  previous_secret_encrypted: string | null;
  provider: string;
  max_per_second: number | null;
  /** Set while a receiver's 429 holds the webhook. */
  paused_until: Date | null;
};

/** The deliveries and webhooks behind a batch of attempt jobs, in one query. */
export async function findForAttempts(sql: Sql, ids: string[]): Promise<Map<string, AttemptRow>> {
  const { rows } = await sql.query<AttemptRow>(
    `select d.id, d.status, d.attempts, d.request_body, d.webhook_id, w.url, w.active, (w.deleted_at is not null) as deleted, w.secret_encrypted,
            case when w.previous_secret_expires_at > now() then w.previous_secret_encrypted end as previous_secret_encrypted,
            w.provider, w.max_per_second, case when w.paused_until > now() then w.paused_until end as paused_until
       from deliveries d join webhooks w on w.id = d.webhook_id where d.id = any($1::text[])`,
    [ids],
    'intake_deliveries_for_attempts',
  );
  return new Map(rows.map((r) => [r.id, r]));
}

export type AttemptRecord = {
  id: string;
  /** Attempts recorded before this one: the row is updated only if it still says so. */
  expected: number;
  status: DeliveryStatus;
  httpStatus: number | null;
  durationMs: number | null;
  responseBody: string | null;
  error: string | null;
  nextAttemptAt: Date | null;
};

/**
 * Records a batch of attempts in one statement — and clears the failure clock of every webhook one of them
 * succeeded for (`webhooks` is webhooks.ts's: a documented exception, docs/architecture.md, that saves the
 * delivery runner a round trip per batch). An attempt another run already recorded (a duplicate job) is left out: returns the ids
 * recorded, so the caller neither schedules nor counts the others.
 */
export async function recordAttempts(sql: Sql, records: AttemptRecord[]): Promise<Set<string>> {
  if (!records.length) return new Set();
  const input = records.map((r) => ({
    id: r.id,
    expected: r.expected,
    status: r.status,
    http_status: r.httpStatus,
    duration_ms: r.durationMs,
    response_body: r.responseBody,
    error: r.error,
    next_attempt_at: r.nextAttemptAt?.toISOString() ?? null,
  }));
  const { rows } = await sql.query<{ id: string }>(
    `with input as (
       select * from jsonb_to_recordset($1::jsonb) as x(id text, expected int, status text, http_status int, duration_ms int,
         response_body text, error text, next_attempt_at timestamptz)),
     d as (
       update deliveries d set status = i.status, attempts = d.attempts + 1, http_status = i.http_status, duration_ms = i.duration_ms,
              response_body = i.response_body, error = i.error, next_attempt_at = i.next_attempt_at,
              delivered_at = case when i.status = 'succeeded' then now() else d.delivered_at end, updated_at = now()
         from input i
        where d.id = i.id and d.attempts = i.expected and d.status in ('pending', 'failed')
       returning d.id, d.webhook_id, d.status),
     healthy as (
       update webhooks set failing_since = null
        where id in (select webhook_id from d where status = 'succeeded') and failing_since is not null)
     select id from d`,
    [JSON.stringify(input)],
    'intake_record_attempts',
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * Moves the next attempt of deliveries later without counting an attempt (their webhook had its share in
 * flight); only rows still waiting for that attempt. Returns the ids moved.
 */
export async function postponeAttempts(sql: Sql, items: Array<{ id: string; expected: number; at: Date }>): Promise<Set<string>> {
  if (!items.length) return new Set();
  const { rows } = await sql.query<{ id: string }>(
    `update deliveries d set next_attempt_at = i.at, updated_at = now()
       from jsonb_to_recordset($1::jsonb) as i(id text, expected int, at timestamptz)
      where d.id = i.id and d.attempts = i.expected and d.status in ('pending', 'failed')
     returning d.id`,
    [JSON.stringify(items.map((i) => ({ id: i.id, expected: i.expected, at: i.at.toISOString() })))],
    'intake_postpone_attempts',
  );
  return new Set(rows.map((r) => r.id));
}

/** Ends a delivery without sending (its webhook was deleted or deactivated, or its submission deleted). */
export async function stopDelivery(sql: Sql, id: string, expected: number, error: string): Promise<void> {
  await sql.query(
    `update deliveries set status = 'dead', error = $3, next_attempt_at = null, updated_at = now()
      where id = $1 and attempts = $2 and status in ('pending', 'failed')`,
    [id, expected, error],
  );
}

/** Deleting submissions keeps their deliveries in the log, without the bodies (which carry the data). */
export async function redactForSubmissions(sql: Sql, submissionIds: string[]): Promise<number> {
  if (!submissionIds.length) return 0;
  const { rowCount } = await sql.query(
    `update deliveries set request_body = null, response_body = null, updated_at = now()
      where submission_id = any($1::text[]) and (request_body is not null or response_body is not null)`,
    [submissionIds],
  );
  return rowCount;
}

/** Deliveries due longer ago than `graceSeconds` whose attempt job never ran (lost), oldest first; `bulk`: made by a replay job. */
export async function overdueDeliveries(
  sql: Sql,
  graceSeconds: number,
  limit: number,
): Promise<Array<{ id: string; attempts: number; team_id: string; bulk: boolean }>> {
  const { rows } = await sql.query<{ id: string; attempts: number; team_id: string; bulk: boolean }>(
    `select id, attempts, team_id, replay_job_id is not null as bulk from deliveries
      where status in ('pending', 'failed') and next_attempt_at < now() - make_interval(secs => $1)
      order by next_attempt_at limit $2`,
    [graceSeconds, limit],
  );
  return rows;
}

/** Removes a batch of delivery rows older than the retention window; returns how many. */
export async function pruneDeliveries(sql: Sql, retentionDays: number, batch: number): Promise<number> {
  const { rowCount } = await sql.query(
    `delete from deliveries where id in (
       select id from deliveries where created_at < now() - make_interval(days => $1) and status in ('succeeded', 'dead') order by created_at limit $2)`,
    [retentionDays, batch],
  );
  return rowCount;
}

/** The deliveries a bulk replay takes: the latest of each submission (or event) of the webhook, filtered. */
export type ReplayFilter = { webhookId: string; status?: DeliveryStatus; since?: string; until?: string };

/**
 * A webhook's latest delivery per submission (test calls' deliveries are no event of it), what a bulk
 * replay takes (counted once, as the job is asked for; nextReplayBatch picks the same set). Only narrow
 * columns go through the sort (the body is only tested for null): sorting every delivery's ~1 KB body
 * over a webhook with tens of thousands of deliveries spilled to disk.
 */
const LATEST = `select distinct on (coalesce(d.submission_id, d.id)) d.id, d.status, d.created_at, d.request_body is not null as has_body
                  from deliveries d where d.webhook_id = $1 and d.event <> 'webhook.test' order by coalesce(d.submission_id, d.id), d.id desc`;

export async function countReplayable(sql: Sql, f: ReplayFilter): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(
    `select count(*)::int as n from (${LATEST}) l
      where l.has_body and ($2::text is null or l.status = $2) and ($3::timestamptz is null or l.created_at >= $3) and ($4::timestamptz is null or l.created_at < $4)`,
    [f.webhookId, f.status ?? null, f.since ?? null, f.until ?? null],
  );
  return rows[0]!.n;
}

export type ReplaySource = { id: string; event: string; submission_id: string | null; request_body: string };

/**
 * The next batch of a bulk replay, oldest first: the webhook's deliveries (test calls' left out) that were
 * each their submission's latest when the job was created — the set LATEST counted then — that match the
 * filter and come after the last one this job replayed. A keyset walk of the webhook's index from that
 * position (the job's highest `replay_of`, one probe of deliveries_replay_once), each candidate checked
 * against its submission's later deliveries (deliveries_submission): a batch reads about as many rows as it
 * picks. Picked from LATEST instead, each batch sorted every delivery of the webhook: 33 ms of Postgres a
 * batch over 10,000 of them, growing with each replay (bench/noisy-neighbour.ts). The set is the job's
 * snapshot: a delivery made after the job (its own replays, another job's) neither joins it nor hides an
 * earlier one from it.
 */
export async function nextReplayBatch(
  sql: Sql,
  f: ReplayFilter,
  jobId: string,
  limit: number,
): Promise<ReplaySource[]> {
  const { rows } = await sql.query<ReplaySource>(
    `with job as (select created_at from jobs where id = $5),
          done as (select coalesce(max(r.replay_of), '') as through from deliveries r where r.replay_job_id = $5)
     select d.id, d.event, d.submission_id, d.request_body
       from deliveries d, job, done
      where d.webhook_id = $1 and d.id > done.through and d.event <> 'webhook.test' and d.request_body is not null
        and d.created_at <= job.created_at
        and ($2::text is null or d.status = $2) and ($3::timestamptz is null or d.created_at >= $3) and ($4::timestamptz is null or d.created_at < $4)
        and (d.submission_id is null or not exists (
              select 1 from deliveries n
               where n.submission_id = d.submission_id and n.webhook_id = d.webhook_id and n.event <> 'webhook.test'
                 and n.id > d.id and n.created_at <= job.created_at))
      order by d.id limit $6`,
    [f.webhookId, f.status ?? null, f.since ?? null, f.until ?? null, jobId, limit],
  );
  return rows;
}

/**
 * How many of a replay job's deliveries wait for their first attempt, counted up to `cap`, and when the last
 * of them is due (epoch ms; exact below the cap, null when none waits).
 */
export async function waitingReplays(sql: Sql, jobId: string, cap: number): Promise<{ n: number; last_due_ms: number | null }> {
  const { rows } = await sql.query<{ n: number; last_due_ms: number | null }>(
    `select count(*)::int as n, (extract(epoch from max(next_attempt_at)) * 1000)::float8 as last_due_ms
       from (select next_attempt_at from deliveries where replay_job_id = $1 and status = 'pending' and attempts = 0 limit $2) w`,
    [jobId, cap],
  );
  return rows[0]!;
}

/** Who to tell that a webhook was deactivated: the team's owners and admins, with the webhook and its form. */
export async function deactivationNotice(
  sql: Sql,
  webhookId: string,
): Promise<{ label: string; url: string; reason: string | null; form_name: string; form_id: string; emails: string[] } | undefined> {
  const { rows } = await sql.query<{ label: string; url: string; reason: string | null; form_name: string; form_id: string; emails: string[] }>(
    `select w.label, w.url, w.deactivated_reason as reason, f.name as form_name, f.id as form_id,
            array(select u.email from memberships m join users u on u.id = m.user_id
                   where m.team_id = w.team_id and m.role in ('owner', 'admin') order by u.email) as emails
       from webhooks w join forms f on f.id = w.form_id where w.id = $1 and not w.active and w.deleted_at is null`,
    [webhookId],
  );
  return rows[0];
}

const EVENT_COLUMNS = `s.id, s.team_id, s.form_id, f.name as form_name, s.received_at, s.payload, s.category,
            (s.ai_moderation->>'score')::float8 as score, s.metadata->>'referrer' as referrer, s.metadata->>'user_agent' as user_agent, s.spam_reason,
            coalesce((select json_agg(json_build_object('id', x.id, 'filename', x.filename, 'content_type', x.content_type, 'size', x.size_bytes)
                                order by x.created_at, x.id) from submission_files x where x.submission_id = s.id), '[]') as files`;

/** What a submission event is rendered from (read in the transaction that marks it processed, or files it as spam). */
export type SubmissionEventRow = {
  id: string;
  team_id: string;
  form_id: string;
  form_name: string;
  received_at: string;
  payload: Record<string, unknown>;
  category: string | null;
  score: number | null;
  referrer: string | null;
  user_agent: string | null;
  spam_reason: string | null;
  files: Array<{ id: string; filename: string; content_type: string; size: number }>;
};

export async function submissionForEvent(sql: Sql, submissionId: string): Promise<SubmissionEventRow | undefined> {
  const { rows } = await sql.query<SubmissionEventRow>(
    `select ${EVENT_COLUMNS} from submissions s join forms f on f.id = s.form_id where s.id = $1`,
    [submissionId],
  );
  return rows[0];
}

/** A spam-delivery position: events visible in snapshot `past`, and of the batch read at `within.upto`, those up to (xid, id). */
export type SpamPosition = { past: string; within: { upto: string; xid: string; id: string } | null };

/**
 * The spam a form stored after a position (the submission stream's reading, queries/submission-stream.ts:
 * by the transaction that filed it, so one committed late is still found), oldest first, and the position
 * after them; `more` when the read was full and more may follow.
 */
export async function spamEventsAfter(
  sql: Sql,
  formId: string,
  pos: SpamPosition,
  limit: number,
): Promise<{ rows: SubmissionEventRow[]; next: SpamPosition; more: boolean }> {
  const { rows } = await sql.query<SubmissionEventRow & { snapshot: string; stream_xid: string; id: string | null }>(
    `select n.snapshot::text as snapshot, e.*
       from (select pg_current_snapshot() as snapshot) n
       left join lateral (
         select ${EVENT_COLUMNS}, s.stream_xid::text as stream_xid
           from submissions s join forms f on f.id = s.form_id and f.deleted_at is null
          where s.form_id = $1 and s.status = 'spam'
            and s.stream_xid >= pg_snapshot_xmin($2::pg_snapshot) and not pg_visible_in_snapshot(s.stream_xid, $2::pg_snapshot)
            and ($3::pg_snapshot is null
                 or (pg_visible_in_snapshot(s.stream_xid, $3::pg_snapshot) and (s.stream_xid, s.id) > ($4::xid8, $5::text)))
          order by s.stream_xid, s.id
          limit $6
       ) e on true`,
    [formId, pos.past, pos.within?.upto ?? null, pos.within?.xid ?? null, pos.within?.id ?? null, limit],
    'intake_spam_events_after',
  );
  const events = rows.filter((r) => r.id !== null);
  const upto = pos.within?.upto ?? rows[0]!.snapshot;
  const last = events[events.length - 1];
  if (events.length === limit && last) return { rows: events, next: { past: pos.past, within: { upto, xid: last.stream_xid, id: last.id! } }, more: true };
  return { rows: events, next: { past: upto, within: null }, more: false };
}

/** The submission of a webhook's latest delivered (succeeded) `submission.created` delivery, if any: a test call sends it again. */
export async function lastDeliveredSubmission(sql: Sql, webhookId: string): Promise<string | null> {
  const { rows } = await sql.query<{ submission_id: string }>(
    `select d.submission_id from deliveries d join submissions s on s.id = d.submission_id
      where d.webhook_id = $1 and d.event = 'submission.created' and d.status = 'succeeded' and d.request_body is not null
      order by d.id desc limit 1`,
    [webhookId],
  );
  return rows[0]?.submission_id ?? null;
}

/** A test call's delivery, recorded once its one attempt is over (it is never retried). */
export type TestDelivery = {
  id: string;
  team_id: string;
  webhook_id: string;
  submission_id: string | null;
  request_body: string;
  status: 'succeeded' | 'failed';
  http_status: number | null;
  duration_ms: number;
  response_body: string | null;
  error: string | null;
};

export async function insertTestDelivery(sql: Sql, d: TestDelivery): Promise<DeliveryRow> {
  const { rows } = await sql.query<DeliveryRow>(
    `insert into deliveries as d (id, team_id, webhook_id, event, submission_id, request_body, status, attempts, http_status, duration_ms,
                                  response_body, error, delivered_at, next_attempt_at)
     values ($1, $2, $3, 'webhook.test', $4, $5, $6, 1, $7, $8, $9, $10, case when $6 = 'succeeded' then now() end, null)
     returning ${COLUMNS}`,
    [d.id, d.team_id, d.webhook_id, d.submission_id, d.request_body, d.status, d.http_status, d.duration_ms, d.response_body, d.error],
  );
  return rows[0]!;
}
