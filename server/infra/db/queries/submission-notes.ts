import type { Sql } from '../database.ts';

/** The owner of `submission_notes`; also reads a submission's activity (its triage and folder events). */

export type ActorRow = {
  id: string;
  email: string;
  name: string;
  token: { id: string; name: string } | null;
} | null;

/** A user (and the token) as an actor, over users `u` and api_tokens `t`; null when the user is gone. */
const ACTOR = `case when u.id is null then null else json_build_object('id', u.id, 'email', u.email, 'name', u.name,
  'token', case when t.id is null then null else json_build_object('id', t.id, 'name', t.name) end) end`;

export type NoteRow = { id: string; body: string; author: ActorRow; author_user_id: string | null; created_at: string };

const NOTE_COLUMNS = `n.id, n.body, n.author_user_id, n.created_at, ${ACTOR} as author`;
const NOTE_JOINS = 'left join users u on u.id = n.author_user_id left join api_tokens t on t.id = n.author_token_id';

export async function insertNote(
  sql: Sql,
  n: { id: string; teamId: string; submissionId: string; userId: string; tokenId: string; body: string },
): Promise<NoteRow> {
  const { rows } = await sql.query<NoteRow>(
    `with n as (
       insert into submission_notes (id, team_id, submission_id, author_user_id, author_token_id, body)
       values ($1, $2, $3, $4, $5, $6) returning *)
     select ${NOTE_COLUMNS} from n ${NOTE_JOINS}`,
    [n.id, n.teamId, n.submissionId, n.userId, n.tokenId, n.body],
  );
  return rows[0]!;
}

/** A page of the submission's notes, oldest first, and how many it has. */
export async function listNotes(
  sql: Sql,
  submissionId: string,
  page: { limit: number; offset: number },
): Promise<NoteRow[]> {
  const { rows } = await sql.query<NoteRow>(
    `select ${NOTE_COLUMNS} from submission_notes n ${NOTE_JOINS}
      where n.submission_id = $1 order by n.created_at, n.id limit $2 offset $3`,
    [submissionId, page.limit, page.offset],
  );
  return rows;
}

export async function findNote(sql: Sql, submissionId: string, id: string): Promise<NoteRow | undefined> {
  const { rows } = await sql.query<NoteRow>(
    `select ${NOTE_COLUMNS} from submission_notes n ${NOTE_JOINS} where n.id = $1 and n.submission_id = $2`,
    [id, submissionId],
  );
  return rows[0];
}

export async function deleteNote(sql: Sql, id: string): Promise<void> {
  await sql.query('delete from submission_notes where id = $1', [id]);
}

export type ActivityRow = {
  action: string;
  changes: Record<string, { from: unknown; to: unknown }>;
  at: string;
  actor: ActorRow;
};

/**
 * The submission's events that are activity, newest first: triage changes, and status changes that moved it
 * between inbox and spam.
 */
const ACTIVITY_WHERE = `e.submission_id = $1 and (e.action = 'triage'
  or (e.changes ? 'status' and ((e.changes->'status'->>'from') = 'spam') <> ((e.changes->'status'->>'to') = 'spam')))`;

export async function listActivity(
  sql: Sql,
  submissionId: string,
  page: { limit: number; offset: number },
): Promise<ActivityRow[]> {
  const { rows } = await sql.query<ActivityRow>(
    `select e.action, e.changes, e.created_at as at, ${ACTOR} as actor
       from submission_events e left join users u on u.id = e.actor_user_id left join api_tokens t on t.id = e.actor_token_id
      where ${ACTIVITY_WHERE} order by e.created_at desc, e.id desc limit $2 offset $3`,
    [submissionId, page.limit, page.offset],
  );
  return rows;
}

export async function countActivity(sql: Sql, submissionId: string): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(
    `select count(*)::int as n from submission_events e where ${ACTIVITY_WHERE}`,
    [submissionId],
  );
  return rows[0]!.n;
}
