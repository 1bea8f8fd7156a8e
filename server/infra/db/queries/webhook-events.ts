import type { Sql } from '../database.ts';
import { positionOfSnapshot, streamEvents, type SnapshotPosition, type StreamPosition } from './submission-stream.ts';
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

/** How far a webhook has been sent its form's spam (a submission-stream position). */
export type SpamPosition = StreamPosition | SnapshotPosition;

/**
 * The spam a form stored after a position (the submission stream's `spam` events: at the door, or by
 * moderation), in stream order, and the position after them; `more` when the read was full.
 */
export async function spamEventsAfter(
  sql: Sql,
  teamId: string,
  formId: string,
  pos: SpamPosition,
  limit: number,
): Promise<{ rows: SubmissionEventRow[]; next: StreamPosition; more: boolean }> {
  const scope = { teamId, formId, statuses: ['spam'] };
  const after = 'seq' in pos ? { seq: pos.seq, id: pos.id } : await positionOfSnapshot(sql, { ...scope, ...pos });
  const rows = await streamEvents(sql, { ...scope, after, limit });
  const last = rows[rows.length - 1];
  return { rows, next: last ? { seq: last.stream_seq, id: last.id } : after, more: rows.length === limit };
}
