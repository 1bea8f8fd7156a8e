import type { Sql } from '../database.ts';
import type { DeliveryStatus } from './deliveries.ts';

/** What a bulk replay reads of the delivery log (its writes are deliveries.ts's). */

/** The deliveries a bulk replay takes: the latest of each submission (or event) of the webhook, filtered. */
export type ReplayFilter = { webhookId: string; status?: DeliveryStatus; since?: string; until?: string };

/** A filter with the team of its webhook (every statement below reads that team's rows only). */
export type TeamReplayFilter = ReplayFilter & { teamId: string };

/**
 * A webhook's latest delivery per submission (test calls' deliveries are no event of it): what a bulk replay
 * takes, counted when the job is asked for. Only narrow columns go through the sort (the body is only tested
 * for null), so the sort of a large webhook's log stays in memory.
 */
const LATEST = `select distinct on (coalesce(d.submission_id, d.id)) d.id, d.status, d.created_at, d.request_body is not null as has_body
                  from deliveries d where d.webhook_id = $1 and d.team_id = $5 and d.event <> 'webhook.test' order by coalesce(d.submission_id, d.id), d.id desc`;

export async function countReplayable(sql: Sql, f: TeamReplayFilter): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(
    `select count(*)::int as n from (${LATEST}) l
      where l.has_body and ($2::text is null or l.status = $2) and ($3::timestamptz is null or l.created_at >= $3) and ($4::timestamptz is null or l.created_at < $4)`,
    [f.webhookId, f.status ?? null, f.since ?? null, f.until ?? null, f.teamId],
  );
  return rows[0]!.n;
}

export type ReplaySource = {
  id: string;
  event: string;
  submission_id: string | null;
  request_body: string;
  content_type: string | null;
};

/**
 * The next batch of a bulk replay, oldest first: the webhook's deliveries that were each their submission's
 * latest when the job was created (the set LATEST counted), match the filter and come after the last one
 * this job replayed. A keyset walk from the job's highest `replay_of`, each candidate checked against its
 * submission's later deliveries, so a batch reads about as many rows as it picks and never sorts the log.
 * The set is the job's snapshot: a delivery made after the job neither joins it nor hides an earlier one.
 */
export async function nextReplayBatch(
  sql: Sql,
  f: TeamReplayFilter,
  jobId: string,
  limit: number,
): Promise<ReplaySource[]> {
  const { rows } = await sql.query<ReplaySource>(
    `with job as (select created_at from jobs where id = $5 and team_id = $7),
          done as (select coalesce(max(r.replay_of), '') as through from deliveries r where r.replay_job_id = $5 and r.team_id = $7)
     select d.id, d.event, d.submission_id, d.request_body, d.content_type
       from deliveries d, job, done
      where d.webhook_id = $1 and d.team_id = $7 and d.id > done.through and d.event <> 'webhook.test' and d.request_body is not null
        and d.created_at <= job.created_at
        and ($2::text is null or d.status = $2) and ($3::timestamptz is null or d.created_at >= $3) and ($4::timestamptz is null or d.created_at < $4)
        and (d.submission_id is null or not exists (
              select 1 from deliveries n
               where n.submission_id = d.submission_id and n.team_id = $7 and n.webhook_id = d.webhook_id and n.event <> 'webhook.test'
                 and n.id > d.id and n.created_at <= job.created_at))
      order by d.id limit $6`,
    [f.webhookId, f.status ?? null, f.since ?? null, f.until ?? null, jobId, limit, f.teamId],
  );
  return rows;
}

/**
 * How many of a replay job's deliveries wait for their first attempt, counted up to `cap`, and when the last
 * of them is due (epoch ms; exact below the cap, null when none waits).
 */
export async function waitingReplays(
  sql: Sql,
  teamId: string,
  jobId: string,
  cap: number,
): Promise<{ n: number; last_due_ms: number | null }> {
  const { rows } = await sql.query<{ n: number; last_due_ms: number | null }>(
    `select count(*)::int as n, (extract(epoch from max(next_attempt_at)) * 1000)::float8 as last_due_ms
       from (select next_attempt_at from deliveries
              where replay_job_id = $1 and team_id = $3 and status = 'pending' and attempts = 0 limit $2) w`,
    [jobId, cap, teamId],
  );
  return rows[0]!;
}
