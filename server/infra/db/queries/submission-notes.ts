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

/** A member of the team and the token they act with, as an actor; null when the user is gone. */
export async function findActor(sql: Sql, teamId: string, userId: string, tokenId: string): Promise<ActorRow> {
  const { rows } = await sql.query<{ actor: ActorRow }>(
    `select ${ACTOR} as actor from users u
       left join api_tokens t on t.id = $2 and t.team_id = $3
      where u.id = $1`,
    [userId, tokenId, teamId],
  );
  return rows[0]?.actor ?? null;
}

export type NoteRow = { id: string; body: string; author: ActorRow; author_user_id: string | null; created_at: string };

const NOTE_COLUMNS = `n.id, n.body, n.author_user_id, n.created_at, ${ACTOR} as author`;
/** The author's user and token, over `submission_notes n` of the team `team`. */
const noteJoins = (team: string) =>
  `left join users u on u.id = n.author_user_id left join api_tokens t on t.id = n.author_token_id and t.team_id = ${team}`;

export async function insertNote(
  sql: Sql,
  n: { id: string; teamId: string; submissionId: string; userId: string; tokenId: string; body: string },
): Promise<NoteRow> {
  const { rows } = await sql.query<NoteRow>(
    `with n as (
       insert into submission_notes (id, team_id, submission_id, author_user_id, author_token_id, body)
       values ($1, $2, $3, $4, $5, $6) returning *)
     select ${NOTE_COLUMNS} from n ${noteJoins('$2')}`,
    [n.id, n.teamId, n.submissionId, n.userId, n.tokenId, n.body],
  );
  return rows[0]!;
}

/** A page of the team's submission's notes, oldest first. */
export async function listNotes(
  sql: Sql,
  teamId: string,
  submissionId: string,
  page: { limit: number; offset: number },
): Promise<NoteRow[]> {
  const { rows } = await sql.query<NoteRow>(
    `select ${NOTE_COLUMNS} from submission_notes n ${noteJoins('$4')}
      where n.submission_id = $1 and n.team_id = $4 order by n.created_at, n.id limit $2 offset $3`,
    [submissionId, page.limit, page.offset, teamId],
  );
  return rows;
}

export async function findNote(
  sql: Sql,
  teamId: string,
  submissionId: string,
  id: string,
): Promise<NoteRow | undefined> {
  const { rows } = await sql.query<NoteRow>(
    `select ${NOTE_COLUMNS} from submission_notes n ${noteJoins('$3')}
      where n.id = $1 and n.submission_id = $2 and n.team_id = $3`,
    [id, submissionId, teamId],
  );
  return rows[0];
}

export async function deleteNote(sql: Sql, teamId: string, id: string): Promise<void> {
  await sql.query('delete from submission_notes where id = $1 and team_id = $2', [id, teamId]);
}

export type ActivityRow = {
  action: string;
  changes: Record<string, { from: unknown; to: unknown }>;
  at: string;
  actor: ActorRow;
};

/**
 * The submission's events that are activity, newest first: triage changes, and status changes that moved it
 * between inbox and spam. `$1` the submission, `$2` its team.
 */
const ACTIVITY_WHERE = `e.submission_id = $1 and e.team_id = $2 and (e.action = 'triage'
  or (e.changes ? 'status' and ((e.changes->'status'->>'from') = 'spam') <> ((e.changes->'status'->>'to') = 'spam')))`;

export async function listActivity(
  sql: Sql,
  teamId: string,
  submissionId: string,
  page: { limit: number; offset: number },
): Promise<ActivityRow[]> {
  const { rows } = await sql.query<ActivityRow>(
    `select e.action, e.changes, e.created_at as at, ${ACTOR} as actor
       from submission_events e left join users u on u.id = e.actor_user_id
       left join api_tokens t on t.id = e.actor_token_id and t.team_id = $2
      where ${ACTIVITY_WHERE} order by e.created_at desc, e.id desc limit $3 offset $4`,
    [submissionId, teamId, page.limit, page.offset],
  );
  return rows;
}

export async function countActivity(sql: Sql, teamId: string, submissionId: string): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(
    `select count(*)::int as n from submission_events e where ${ACTIVITY_WHERE}`,
    [submissionId, teamId],
  );
  return rows[0]!.n;
}
