import type { Sql } from '../database.ts';
import { valuesLists } from '../values.ts';

/**
 * Owns `stream_heads` and `stream_numbers`: each form's last stream number, and the number of each event
 * (docs/listen.md). The statement that makes submissions of a form events takes its next number, and the head
 * row stays locked until its transaction commits, so a form's numbers commit in order: a reader that sees a
 * number has seen every smaller one. That statement comes last in its transaction, so the row is held for
 * no more than the commit.
 */

/** Sent: every event of the form up to (seq, id) in stream order; with id '', those before `seq`. */
export type StreamPosition = { seq: string; id: string };

/** The next stream number of form `form` of team `team` (SQL expressions), as a statement's CTE. */
export const nextStreamSeq = (form: string, team: string) =>
  `insert into stream_heads (form_id, team_id, position) values (${form}, ${team}, 1)
   on conflict (form_id, team_id) do update set position = stream_heads.position + 1 returning position`;

/**
 * CTE text recording the events `ids` (an SQL expression of submission ids) of form `form` under the number of
 * CTE `head` (nextStreamSeq); a submission made an event again (processed anew) moves to the new number.
 */
export const numbering = (form: string, team: string, ids: string) =>
  `insert into stream_numbers (submission_id, team_id, form_id, seq)
   select id, ${team}, ${form}, position from head, unnest(${ids}) as id
   on conflict (submission_id, team_id) do update set seq = excluded.seq`;

/**
 * Makes these submissions of a form events of its stream, under one number. Last in its transaction. On Citus
 * the number is read first and the rows inserted as VALUES (an insert of a SELECT's rows there locks every
 * shard of its table: docs/decisions.md, "Inserts on Citus").
 */
export async function numberStreamEvents(sql: Sql, teamId: string, formId: string, ids: string[]): Promise<void> {
  if (!sql.distributed) {
    await sql.query(
      `with head as (${nextStreamSeq('$1', '$2')}) ${numbering('$1', '$2', '$3::text[]')}`,
      [formId, teamId, ids],
      'intake_stream_number',
    );
    return;
  }
  const { rows } = await sql.query<{ position: string }>(nextStreamSeq('$1', '$2'), [formId, teamId]);
  const lists = valuesLists(ids, (id, p) => `(${p(id)}, $1, $2, $3)`, [teamId, formId, rows[0]!.position]);
  for (const list of lists)
    await sql.query(
      `insert into stream_numbers (submission_id, team_id, form_id, seq)
       values ${list.rows}
       on conflict (submission_id, team_id) do update set seq = excluded.seq`,
      list.values,
    );
}

/** Now, as a position: every event committed so far counts as sent. */
export async function streamHead(sql: Sql, teamId: string, formId: string): Promise<StreamPosition> {
  const { rows } = await sql.query<{ seq: string }>(
    'select (coalesce(max(position), 0) + 1)::text as seq from stream_heads where form_id = $1 and team_id = $2',
    [formId, teamId],
    'intake_stream_head',
  );
  return { seq: rows[0]!.seq, id: '' };
}
