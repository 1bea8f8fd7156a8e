import type { Sql } from '../database.ts';

/**
 * Owns `stream_heads`: each form's last stream number (docs/listen.md). A statement that makes one of a form's
 * submissions an event takes the next number, and the head row stays locked until its transaction commits,
 * so a form's numbers commit in order: a reader that sees a number has seen every smaller one.
 */

/** Sent: every event of the form up to (seq, id) in stream order; with id '', those before `seq`. */
export type StreamPosition = { seq: string; id: string };

/** The next stream number of form `form` of team `team` (SQL expressions), as a statement's CTE. */
export const nextStreamSeq = (form: string, team: string) =>
  `insert into stream_heads (form_id, team_id, position) values (${form}, ${team}, 1)
   on conflict (form_id, team_id) do update set position = stream_heads.position + 1 returning position`;

/** Now, as a position: every event committed so far counts as sent. */
export async function streamHead(sql: Sql, teamId: string, formId: string): Promise<StreamPosition> {
  const { rows } = await sql.query<{ seq: string }>(
    'select (coalesce(max(position), 0) + 1)::text as seq from stream_heads where form_id = $1 and team_id = $2',
    [formId, teamId],
    'intake_stream_head',
  );
  return { seq: rows[0]!.seq, id: '' };
}
