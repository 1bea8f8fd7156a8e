import type { Sql } from '../database.ts';
import { submissionEventColumns, type SubmissionEventRow } from './submissions.ts';

/** A submission with its form's name, as events are rendered from it (read in the transaction that processes or files it). */
export async function submissionForEvent(
  sql: Sql,
  teamId: string,
  submissionId: string,
): Promise<SubmissionEventRow | undefined> {
  const { rows } = await sql.query<SubmissionEventRow>(
    `select ${submissionEventColumns('$2')} from submissions s join forms f on f.id = s.form_id and f.team_id = s.team_id
      where s.id = $1 and s.team_id = $2 and f.team_id = $2`,
    [submissionId, teamId],
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
  teamId: string,
  formId: string,
  pos: SpamPosition,
  limit: number,
): Promise<{ rows: SubmissionEventRow[]; next: SpamPosition; more: boolean }> {
  const { rows } = await sql.query<SubmissionEventRow & { snapshot: string; stream_xid: string; id: string | null }>(
    `select n.snapshot::text as snapshot, e.*
       from (select pg_current_snapshot() as snapshot) n
       left join lateral (
         select ${submissionEventColumns('$7')}, s.stream_xid::text as stream_xid
           from submissions s join forms f on f.id = s.form_id and f.team_id = s.team_id and f.deleted_at is null
          where s.form_id = $1 and s.team_id = $7 and f.team_id = $7 and s.status = 'spam'
            and s.stream_xid >= pg_snapshot_xmin($2::pg_snapshot) and not pg_visible_in_snapshot(s.stream_xid, $2::pg_snapshot)
            and ($3::pg_snapshot is null
                 or (pg_visible_in_snapshot(s.stream_xid, $3::pg_snapshot) and (s.stream_xid, s.id) > ($4::xid8, $5::text)))
          order by s.stream_xid, s.id
          limit $6
       ) e on true`,
    [formId, pos.past, pos.within?.upto ?? null, pos.within?.xid ?? null, pos.within?.id ?? null, limit, teamId],
    'intake_spam_events_after',
  );
  const events = rows.filter((r) => r.id !== null);
  const upto = pos.within?.upto ?? rows[0]!.snapshot;
  const last = events[events.length - 1];
  if (events.length === limit && last)
    return { rows: events, next: { past: pos.past, within: { upto, xid: last.stream_xid, id: last.id! } }, more: true };
  return { rows: events, next: { past: upto, within: null }, more: false };
}
