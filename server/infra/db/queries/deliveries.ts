import type { Sql } from '../database.ts';
import { valuesLists } from '../values.ts';

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
  /** The media type of `request_body`; null: application/json. */
  content_type: string | null;
  response_body: string | null;
  error: string | null;
  delivered_at: string | null;
  next_attempt_at: string | null;
  replay_of: string | null;
  created_at: string;
  updated_at: string;
};

const COLUMNS = `d.id, d.webhook_id, d.event, d.status, d.http_status, d.attempts, d.duration_ms, d.submission_id, d.request_body,
  d.content_type, d.response_body, d.error, d.delivered_at, d.next_attempt_at, d.replay_of, d.created_at, d.updated_at`;

export type NewDelivery = {
  id: string;
  team_id: string;
  webhook_id: string;
  event: string;
  submission_id: string | null;
  /** Null only with `error`. */
  request_body: string | null;
  /** The media type of the body; null: application/json. */
  content_type?: string | null;
  /** Set when no request can be made (its body template could not be rendered): the delivery is made dead, with no attempt. */
  error?: string | null;
  next_attempt_at: Date;
  replay_of?: string | null;
  replay_job_id?: string | null;
};

/**
 * Inserts deliveries as VALUES, which Citus routes to the team's shard (docs/decisions.md, "Inserts on Citus");
 * rows a bulk replay already made are skipped. Returns the ids inserted.
 */
export async function insertDeliveries(sql: Sql, rows: NewDelivery[]): Promise<string[]> {
  const ids: string[] = [];
  const lists = valuesLists(rows, (r, p) => {
    const dead = r.error != null;
    return `(${[
      p(r.id),
      p(r.team_id),
      p(r.webhook_id),
      p(r.event),
      p(r.submission_id),
      p(r.request_body),
      `${p(dead ? null : r.next_attempt_at.toISOString())}::timestamptz`,
      p(r.replay_of ?? null),
      p(r.replay_job_id ?? null),
      p(r.content_type ?? null),
      p(r.error ?? null),
      `'${dead ? 'dead' : 'pending'}'`,
    ].join(', ')})`;
  });
  for (const { rows: tuples, values } of lists) {
    const { rows: inserted } = await sql.query<{ id: string }>(
      `insert into deliveries (id, team_id, webhook_id, event, submission_id, request_body, next_attempt_at, replay_of,
                               replay_job_id, content_type, error, status)
       values ${tuples}
       on conflict (replay_job_id, replay_of, team_id) where replay_job_id is not null do nothing
       returning id`,
      values,
    );
    ids.push(...inserted.map((r) => r.id));
  }
  return ids;
}

export type DeliveryFilter = {
  teamId: string;
  webhookId: string;
  status?: DeliveryStatus;
  submissionId?: string;
  before?: string;
  limit: number;
};

/** Newest first, keyset on the id (ULIDs sort by creation). */
export async function listDeliveries(sql: Sql, f: DeliveryFilter): Promise<DeliveryRow[]> {
  const { rows } = await sql.query<DeliveryRow>(
    `select ${COLUMNS} from deliveries d
      where d.webhook_id = $1 and d.team_id = $6 and ($2::text is null or d.status = $2) and ($3::text is null or d.submission_id = $3)
        and ($4::text is null or d.id < $4)
      order by d.id desc limit $5`,
    [f.webhookId, f.status ?? null, f.submissionId ?? null, f.before ?? null, f.limit, f.teamId],
  );
  return rows;
}

/** A delivery of the team with its webhook's state (`formId` when the path names the form and webhook). */
export type DeliveryWithWebhook = DeliveryRow & {
  team_id: string;
  form_id: string;
  webhook_active: boolean;
  webhook_deleted: boolean;
};

export async function findDelivery(
  sql: Sql,
  teamId: string,
  id: string,
  scope: { webhookId?: string; formId?: string } = {},
): Promise<DeliveryWithWebhook | undefined> {
  const { rows } = await sql.query<DeliveryWithWebhook>(
    `select ${COLUMNS}, d.team_id, w.form_id, w.active as webhook_active, (w.deleted_at is not null or f.deleted_at is not null) as webhook_deleted
       from deliveries d join webhooks w on w.id = d.webhook_id and w.team_id = d.team_id
       join forms f on f.id = w.form_id and f.team_id = w.team_id
      where d.id = $1 and d.team_id = $2 and w.team_id = $2 and f.team_id = $2 and ($3::text is null or d.webhook_id = $3) and ($4::text is null or w.form_id = $4)`,
    [id, teamId, scope.webhookId ?? null, scope.formId ?? null],
  );
  return rows[0];
}

/** What an attempt needs: the body, where it goes, the keys that sign it and the webhook's extra headers. */
export type AttemptRow = {
  id: string;
  team_id: string;
  status: DeliveryStatus;
  attempts: number;
  request_body: string | null;
  /** Null: application/json. */
  content_type: string | null;
  headers: Record<string, string>;
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

/**
 * The deliveries and webhooks behind a batch of one team's attempt jobs, in one query; `teamId` null: jobs
 * queued without their team, found by id alone.
 */
export async function findForAttempts(
  sql: Sql,
  teamId: string | null,
  ids: string[],
): Promise<Map<string, AttemptRow>> {
  const team = teamId === null ? '' : ' and d.team_id = $2 and w.team_id = $2';
  const { rows } = await sql.query<AttemptRow>(
    `select d.id, d.team_id, d.status, d.attempts, d.request_body, d.content_type, w.headers, d.webhook_id, w.url, w.active, (w.deleted_at is not null) as deleted, w.secret_encrypted,
            case when w.previous_secret_expires_at > now() then w.previous_secret_encrypted end as previous_secret_encrypted,
            w.provider, w.max_per_second, case when w.paused_until > now() then w.paused_until end as paused_until
       from deliveries d join webhooks w on w.id = d.webhook_id and w.team_id = d.team_id where d.id = any($1::text[])${team}`,
    teamId === null ? [ids] : [ids, teamId],
    teamId === null ? 'intake_deliveries_for_attempts_any' : 'intake_deliveries_for_attempts',
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
 * Records a batch of one team's attempts in one statement (the time is read in `input`: Citus refuses functions
 * that are not immutable in an update's CASE), and clears the failure clock of every webhook one of them
 * succeeded for (`webhooks` is webhooks.ts's: a documented exception, docs/architecture.md, that saves the
 * delivery loop a round trip per batch). An attempt another run already recorded (a duplicate job) is left
 * out: returns the ids recorded, so the caller neither schedules nor counts the others.
 */
export async function recordAttempts(sql: Sql, teamId: string, records: AttemptRecord[]): Promise<Set<string>> {
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
       select x.*, now() as at from jsonb_to_recordset($1::jsonb) as x(id text, expected int, status text, http_status int, duration_ms int,
         response_body text, error text, next_attempt_at timestamptz)),
     d as (
       update deliveries d set status = i.status, attempts = d.attempts + 1, http_status = i.http_status, duration_ms = i.duration_ms,
              response_body = i.response_body, error = i.error, next_attempt_at = i.next_attempt_at,
              delivered_at = case when i.status = 'succeeded' then i.at else d.delivered_at end, updated_at = now()
         from input i
        where d.id = i.id and d.team_id = $2 and d.attempts = i.expected and d.status in ('pending', 'failed')
       returning d.id, d.webhook_id, d.status),
     healthy as (
       update webhooks set failing_since = null
        where team_id = $2 and id in (select webhook_id from d where status = 'succeeded') and failing_since is not null)
     select id from d`,
    [JSON.stringify(input), teamId],
    'intake_record_attempts',
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * Moves the next attempt of one team's deliveries later without counting an attempt (their webhook had its share in
 * flight, or its pace or a pause held it); only rows still waiting for that attempt. Returns the ids moved.
 */
export async function postponeAttempts(
  sql: Sql,
  teamId: string,
  items: Array<{ id: string; expected: number; at: Date }>,
): Promise<Set<string>> {
  if (!items.length) return new Set();
  const { rows } = await sql.query<{ id: string }>(
    `update deliveries d set next_attempt_at = i.at, updated_at = now()
       from jsonb_to_recordset($1::jsonb) as i(id text, expected int, at timestamptz)
      where d.id = i.id and d.team_id = $2 and d.attempts = i.expected and d.status in ('pending', 'failed')
     returning d.id`,
    [JSON.stringify(items.map((i) => ({ id: i.id, expected: i.expected, at: i.at.toISOString() }))), teamId],
    'intake_postpone_attempts',
  );
  return new Set(rows.map((r) => r.id));
}

/** Ends a delivery without sending (its webhook was deleted or deactivated, or its submission deleted). */
export async function stopDelivery(
  sql: Sql,
  teamId: string,
  id: string,
  expected: number,
  error: string,
): Promise<void> {
  await sql.query(
    `update deliveries set status = 'dead', error = $3, next_attempt_at = null, updated_at = now()
      where id = $1 and team_id = $4 and attempts = $2 and status in ('pending', 'failed')`,
    [id, expected, error, teamId],
  );
}

/**
 * Deleting submissions keeps their deliveries in the log, without the bodies (which carry the data);
 * `teamId`: the submissions' team (without it, they are found by id alone).
 */
export async function redactForSubmissions(sql: Sql, submissionIds: string[], teamId?: string): Promise<number> {
  if (!submissionIds.length) return 0;
  const { rowCount } = await sql.query(
    `update deliveries set request_body = null, response_body = null, updated_at = now()
      where submission_id = any($1::text[])${teamId === undefined ? '' : ' and team_id = $2'}
        and (request_body is not null or response_body is not null)`,
    teamId === undefined ? [submissionIds] : [submissionIds, teamId],
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

/** Who to tell that a webhook was deactivated: the team's owners and admins, with the webhook and its form. */
export async function deactivationNotice(
  sql: Sql,
  teamId: string,
  webhookId: string,
): Promise<
  | { label: string; url: string; reason: string | null; form_name: string; form_id: string; emails: string[] }
  | undefined
> {
  const { rows } = await sql.query<{
    label: string;
    url: string;
    reason: string | null;
    form_name: string;
    form_id: string;
    emails: string[];
  }>(
    `select w.label, w.url, w.deactivated_reason as reason, f.name as form_name, f.id as form_id,
            array(select u.email from memberships m join users u on u.id = m.user_id
                   where m.team_id = $2 and m.role in ('owner', 'admin') order by u.email) as emails
       from webhooks w join forms f on f.id = w.form_id and f.team_id = w.team_id
      where w.id = $1 and w.team_id = $2 and f.team_id = $2 and not w.active and w.deleted_at is null`,
    [webhookId, teamId],
  );
  return rows[0];
}

/** The submission of a webhook's latest delivered (succeeded) `submission.created` delivery, if any: a test call sends it again. */
export async function lastDeliveredSubmission(sql: Sql, teamId: string, webhookId: string): Promise<string | null> {
  const { rows } = await sql.query<{ submission_id: string }>(
    `select d.submission_id from deliveries d join submissions s on s.id = d.submission_id and s.team_id = d.team_id
      where d.webhook_id = $1 and d.team_id = $2 and s.team_id = $2 and d.event = 'submission.created' and d.status = 'succeeded' and d.request_body is not null
      order by d.id desc limit 1`,
    [webhookId, teamId],
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
    [
      d.id,
      d.team_id,
      d.webhook_id,
      d.submission_id,
      d.request_body,
      d.status,
      d.http_status,
      d.duration_ms,
      d.response_body,
      d.error,
    ],
  );
  return rows[0]!;
}
