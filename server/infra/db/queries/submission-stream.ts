import type { Sql } from '../database.ts';
import { submissionEventColumns, type SubmissionEventRow } from './submissions.ts';

/**
 * The submission stream's reads and its leases (docs/listen.md). A position is a Postgres snapshot
 * (`pg_snapshot` text): the events a stream has sent are those whose `stream_xid` is visible in it.
 */

/** The NOTIFY channel processing announces settled submissions on; the payload is the form id. */
export const STREAM_CHANNEL = 'intake_submission_stream';

/** A submission event with the transaction that made it one. */
export type StreamEventRow = SubmissionEventRow & { stream_xid: string };

export type StreamRead = {
  teamId: string;
  formId: string;
  /** Events whose transaction is visible in this snapshot were sent. */
  past: string;
  /** …and, within the batch read at snapshot `upto`, those up to (xid, id). */
  within: { upto: string; xid: string; id: string } | null;
  statuses: string[];
  limit: number;
};

/**
 * The next events of a form after a position, oldest transaction first, and the snapshot they were read
 * at. Without `within`: every event committed since `past` (as of now). With it: the rest of the batch
 * that was read at `upto`, whatever committed since then waits for the next read.
 */
export async function streamEvents(sql: Sql, q: StreamRead): Promise<{ rows: StreamEventRow[]; snapshot: string }> {
  const { rows } = await sql.query<StreamEventRow & { snapshot: string; id: string | null }>(
    `select n.snapshot::text as snapshot, e.*
       from (select pg_current_snapshot() as snapshot) n
       left join lateral (
         select ${submissionEventColumns('$2')}, s.stream_xid::text as stream_xid
           from submissions s join forms f on f.id = s.form_id and f.team_id = $2 and f.deleted_at is null
          where s.form_id = $1 and s.team_id = $2 and s.status = any($4::text[])
            and s.stream_xid >= pg_snapshot_xmin($3::pg_snapshot) and not pg_visible_in_snapshot(s.stream_xid, $3::pg_snapshot)
            and ($5::pg_snapshot is null
                 or (pg_visible_in_snapshot(s.stream_xid, $5::pg_snapshot) and (s.stream_xid, s.id) > ($6::xid8, $7::text)))
          order by s.stream_xid, s.id
          limit $8
       ) e on true`,
    [
      q.formId,
      q.teamId,
      q.past,
      q.statuses,
      q.within?.upto ?? null,
      q.within?.xid ?? null,
      q.within?.id ?? null,
      q.limit,
    ],
    'intake_stream_events',
  );
  return { snapshot: rows[0]!.snapshot, rows: rows.filter((r) => r.id !== null) };
}

/** Now, as a position: everything committed so far counts as sent. */
export async function currentSnapshot(sql: Sql): Promise<string> {
  const { rows } = await sql.query<{ snapshot: string }>(
    'select pg_current_snapshot()::text as snapshot',
    [],
    'intake_stream_snapshot',
  );
  return rows[0]!.snapshot;
}

/** Wakes the streams of a form (sent after the commit that made the event, never inside it). */
export async function announceEvents(sql: Sql, formId: string): Promise<void> {
  await sql.query('select pg_notify($1, $2)', [STREAM_CHANNEL, formId], 'intake_stream_notify');
}
