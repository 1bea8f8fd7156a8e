import type { Sql } from '../database.ts';
import type { StreamPosition } from './stream-heads.ts';
import { submissionEventColumns, type SubmissionEventRow } from './submissions.ts';

/**
 * The submission stream's reads (docs/listen.md). An event's position is its stream number (`stream_numbers`,
 * queries/stream-heads.ts: a form's numbers commit in order) and its submission's id; a stream has sent every
 * event up to its position.
 */

/** The NOTIFY channel processing announces settled submissions on; the payload is the form id. */
export const STREAM_CHANNEL = 'intake_submission_stream';

export type { StreamPosition };

/** A position of the snapshot kind, made before stream numbers (migration 0031): see positionOfSnapshot. */
export type SnapshotPosition = { past: string; within: { upto: string; xid: string; id: string } | null };

/** A submission event with its stream number. */
export type StreamEventRow = SubmissionEventRow & { stream_seq: string };

/** The events of a form after a position, in stream order. */
export async function streamEvents(
  sql: Sql,
  q: { teamId: string; formId: string; after: StreamPosition; statuses: string[]; limit: number },
): Promise<StreamEventRow[]> {
  const { rows } = await sql.query<StreamEventRow>(
    `select ${submissionEventColumns('$2')}, e.seq::text as stream_seq
       from stream_numbers e
       join submissions s on s.id = e.submission_id and s.team_id = $2
       join forms f on f.id = s.form_id and f.team_id = $2 and f.deleted_at is null
      where e.form_id = $1 and e.team_id = $2 and (e.seq, e.submission_id) > ($3::bigint, $4::text)
        and s.status = any($5::text[])
      order by e.seq, e.submission_id
      limit $6`,
    [q.formId, q.teamId, q.after.seq, q.after.id, q.statuses, q.limit],
    'intake_stream_events',
  );
  return rows;
}

/**
 * A position of the snapshot kind (an event id or a webhook's spam position made before migration 0031):
 * sent were the events whose transaction (`stream_xid`) is visible in snapshot `past`, and, of those visible
 * in `upto`, the ones up to (xid, id). Resumes at the first event not sent (one made after the migration,
 * when none is left), so nothing is lost; an event or a few may be sent again.
 */
export async function positionOfSnapshot(
  sql: Sql,
  q: { teamId: string; formId: string; statuses: string[] } & SnapshotPosition,
): Promise<StreamPosition> {
  const { rows } = await sql.query<{ seq: string }>(
    `select coalesce(
              (select min(e.seq) from submissions s join stream_numbers e on e.submission_id = s.id and e.team_id = $2
                where s.form_id = $1 and s.team_id = $2 and s.status = any($3::text[])
                  and s.stream_xid >= pg_snapshot_xmin($4::pg_snapshot) and not pg_visible_in_snapshot(s.stream_xid, $4::pg_snapshot)
                  and not coalesce(pg_visible_in_snapshot(s.stream_xid, $5::pg_snapshot) and (s.stream_xid, s.id) <= ($6::xid8, $7::text), false)),
              (select e.seq + 1 from submissions s join stream_numbers e on e.submission_id = s.id and e.team_id = $2
                where s.form_id = $1 and s.team_id = $2 and s.stream_xid is not null
                order by s.stream_xid desc, s.id desc limit 1),
              1)::text as seq`,
    [q.formId, q.teamId, q.statuses, q.past, q.within?.upto ?? null, q.within?.xid ?? null, q.within?.id ?? null],
    'intake_stream_position_of_snapshot',
  );
  return { seq: rows[0]!.seq, id: '' };
}

/** Wakes the streams of a form (sent after the commit that made the event, never inside it). */
export async function announceEvents(sql: Sql, formId: string): Promise<void> {
  await sql.query('select pg_notify($1, $2)', [STREAM_CHANNEL, formId], 'intake_stream_notify');
}
