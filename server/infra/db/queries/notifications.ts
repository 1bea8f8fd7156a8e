import type { Sql } from '../database.ts';

/** What notification e-mails, their digests and their links read; the owner of `notification_digests`. */

export type NotifiedFile = { id: string; filename: string; size: number; content_type: string };

export type NotificationRow = {
  id: string;
  status: string;
  spam_reason: string | null;
  category: string | null;
  api_token_id: string | null;
  payload: Record<string, unknown>;
  metadata: { controls?: Record<string, unknown> } | null;
  /** As Postgres prints it (timestamps are read as text). */
  received_at: string;
  team_id: string;
  form_id: string;
  form_name: string;
  settings: unknown;
  notification_emails: string[];
  files: NotifiedFile[];
};

/** `$${team}`: the parameter holding the submissions' team. */
const columns = (
  team: number,
) => `s.id, s.status, s.spam_reason, s.category, s.api_token_id, s.payload, s.metadata, s.received_at, s.team_id, f.id as form_id, f.name as form_name,
  f.settings, f.notification_emails,
  (select coalesce(json_agg(json_build_object('id', x.id, 'filename', x.filename, 'size', x.size_bytes, 'content_type', x.content_type)
     order by x.created_at, x.id), '[]') from submission_files x where x.submission_id = s.id and x.team_id = $${team}) as files`;

export async function findForNotification(
  sql: Sql,
  teamId: string,
  submissionId: string,
): Promise<NotificationRow | undefined> {
  const { rows } = await sql.query<NotificationRow>(
    `select ${columns(2)} from submissions s join forms f on f.id = s.form_id and f.team_id = s.team_id
      where s.id = $1 and s.team_id = $2 and f.team_id = $2`,
    [submissionId, teamId],
  );
  return rows[0];
}
export type DigestForm = { id: string; team_id: string; sent_until: string | null };

/** Live forms in this digest mode with notification addresses, and how far their last digest went. */
export async function digestForms(sql: Sql, mode: 'hourly' | 'daily'): Promise<DigestForm[]> {
  const { rows } = await sql.query<DigestForm>(
    `select f.id, f.team_id, d.sent_until from forms f left join notification_digests d on d.form_id = f.id and d.team_id = f.team_id
      where f.deleted_at is null and f.settings ->> 'notification_mode' = $1 and cardinality(f.notification_emails) > 0
      order by f.id`,
    [mode],
  );
  return rows;
}

/** The form's clean, processed submissions received in (from, to], oldest first, at most `limit`. */
export async function digestSubmissions(
  sql: Sql,
  teamId: string,
  formId: string,
  from: Date,
  to: Date,
  limit: number,
): Promise<NotificationRow[]> {
  const { rows } = await sql.query<NotificationRow>(
    `select ${columns(5)} from submissions s join forms f on f.id = s.form_id and f.team_id = s.team_id
      where s.form_id = $1 and s.team_id = $5 and f.team_id = $5 and s.status = 'processed' and s.received_at > $2 and s.received_at <= $3
      order by s.received_at, s.id limit $4`,
    [formId, from, to, limit, teamId],
  );
  return rows;
}

export async function countDigestSubmissions(
  sql: Sql,
  teamId: string,
  formId: string,
  from: Date,
  to: Date,
): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(
    `select count(*)::int as n from submissions s
      where s.form_id = $1 and s.team_id = $4 and s.status = 'processed' and s.received_at > $2 and s.received_at <= $3`,
    [formId, from, to, teamId],
  );
  return rows[0]!.n;
}

/** Records how far the form's digests went; false when another run already went as far. */
export async function advanceDigest(sql: Sql, form: DigestForm, until: Date): Promise<boolean> {
  const { rowCount } = await sql.query(
    `insert into notification_digests as d (team_id, form_id, sent_until) values ($4, $1, $3)
       on conflict (form_id, team_id) do update set sent_until = excluded.sent_until
        where d.sent_until is not distinct from $2::timestamptz`,
    [form.id, form.sent_until, until, form.team_id],
  );
  return rowCount > 0;
}

export type ActionTarget = {
  id: string;
  status: string;
  form_id: string;
  team_id: string;
  form_name: string;
  received_at: string;
};

/** The team's submission an e-mail link acts on, with its form (locked when `lock`). */
export async function findActionTarget(
  sql: Sql,
  teamId: string,
  submissionId: string,
  lock = false,
): Promise<ActionTarget | undefined> {
  const { rows } = await sql.query<ActionTarget>(
    `select s.id, s.status, s.form_id, s.team_id, f.name as form_name, s.received_at
       from submissions s join forms f on f.id = s.form_id and f.team_id = s.team_id
      where s.id = $1 and s.team_id = $2 and f.team_id = $2 ${lock ? 'for update of s' : ''}`,
    [submissionId, teamId],
  );
  return rows[0];
}

/** The team's form an unsubscribe link names: its team, name and addresses. */
export async function findFormAddresses(
  sql: Sql,
  teamId: string,
  formId: string,
  lock = false,
): Promise<{ team_id: string; name: string; notification_emails: string[] } | undefined> {
  const { rows } = await sql.query<{ team_id: string; name: string; notification_emails: string[] }>(
    `select team_id, name, notification_emails from forms where id = $1 and team_id = $2 ${lock ? 'for no key update' : ''}`,
    [formId, teamId],
  );
  return rows[0];
}

export type AssignmentRow = {
  submission_id: string;
  form_id: string;
  form_name: string;
  payload: Record<string, unknown>;
  received_at: Date;
  /** The submission's assignee now (the e-mail is sent only while it is still the one it was assigned to). */
  assignee_id: string | null;
  email: string;
  by_name: string | null;
  by_email: string | null;
};

/** A submission, its form, the member it was assigned to and who assigned it. */
export async function findAssignment(
  sql: Sql,
  teamId: string,
  submissionId: string,
  assigneeId: string,
  byUserId: string | null,
): Promise<AssignmentRow | undefined> {
  const { rows } = await sql.query<AssignmentRow>(
    `select s.id as submission_id, s.form_id, f.name as form_name, s.payload, s.received_at, s.assignee_id,
            u.email, b.name as by_name, b.email as by_email
       from submissions s join forms f on f.id = s.form_id and f.team_id = s.team_id
       join users u on u.id = $2 left join users b on b.id = $3
      where s.id = $1 and s.team_id = $4 and f.team_id = $4 and f.deleted_at is null`,
    [submissionId, assigneeId, byUserId, teamId],
  );
  return rows[0];
}
