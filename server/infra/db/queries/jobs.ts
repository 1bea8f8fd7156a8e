import type { Sql } from '../database.ts';

/** Background work a client polls at `GET /v1/jobs/{id}`. */
export type JobRow = {
  id: string;
  team_id: string;
  type: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  params: Record<string, unknown>;
  total: number;
  done: number;
  failed: number;
  errors: Array<{ id: string | null; error: string; message: string }>;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
};

const COLUMNS = 'id, team_id, type, status, params, total, done, failed, errors, created_at, started_at, finished_at';

export async function insertJob(
  sql: Sql,
  j: {
    id: string;
    teamId: string;
    type: string;
    params: Record<string, unknown>;
    total: number;
    createdBy: string | null;
  },
): Promise<JobRow> {
  const { rows } = await sql.query<JobRow>(
    `insert into jobs (id, team_id, type, params, total, created_by) values ($1, $2, $3, $4, $5, $6) returning ${COLUMNS}`,
    [j.id, j.teamId, j.type, JSON.stringify(j.params), j.total, j.createdBy],
  );
  return rows[0]!;
}

/** `teamId` on every statement below: the job's team (without it, the job is found by id alone). */
const ofTeam = (teamId: string | undefined, n: number) => (teamId === undefined ? '' : ` and team_id = $${n}`);
const withTeam = (values: unknown[], teamId: string | undefined) =>
  teamId === undefined ? values : [...values, teamId];

export async function findJob(sql: Sql, id: string, teamId?: string): Promise<JobRow | undefined> {
  const { rows } = await sql.query<JobRow>(
    `select ${COLUMNS} from jobs where id = $1${ofTeam(teamId, 2)}`,
    withTeam([id], teamId),
  );
  return rows[0];
}

/** The time is read in `v`: Citus refuses functions that are not immutable in an update's COALESCE. */
export async function startJob(sql: Sql, id: string, teamId?: string): Promise<void> {
  await sql.query(
    `update jobs set status = 'running', started_at = coalesce(started_at, v.at) from (select now() as at) v
      where id = $1${ofTeam(teamId, 2)} and status in ('queued', 'running')`,
    withTeam([id], teamId),
  );
}

/** Adds to the counters; errors beyond the first 100 are only counted. */
export async function addProgress(
  sql: Sql,
  id: string,
  done: number,
  failed: Array<{ id: string | null; error: string; message: string }>,
  teamId?: string,
): Promise<void> {
  await sql.query(
    `update jobs set done = done + $2, failed = failed + $3,
            errors = case when jsonb_array_length(errors) >= 100 then errors else errors || $4::jsonb end
      where id = $1${ofTeam(teamId, 5)}`,
    withTeam([id, done, failed.length, JSON.stringify(failed.slice(0, 100))], teamId),
  );
}

export async function finishJob(sql: Sql, id: string, status: 'succeeded' | 'failed', teamId?: string): Promise<void> {
  await sql.query(
    `update jobs set status = $2, finished_at = now() where id = $1${ofTeam(teamId, 3)} and finished_at is null`,
    withTeam([id, status], teamId),
  );
}

/** Serialises, until the end of the caller's transaction, whoever takes this key (a queue's group). */
export async function lockGroup(sql: Sql, key: string): Promise<void> {
  await sql.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
}

/**
 * The highest priority among the queue's waiting jobs in the range (pg-boss's fetch takes those first),
 * read down its fetch index, so the cost does not grow with the queue.
 */
export async function queueHead(
  sql: Sql,
  schema: string,
  queue: string,
  range: { min: number; max: number },
): Promise<number | null> {
  const { rows } = await sql.query<{ priority: number }>(
    `select priority from ${schema}.job where name = $1 and state < 'active' and not blocked and priority between $2 and $3
      order by priority desc limit 1`,
    [queue, range.min, range.max],
  );
  return rows[0]?.priority ?? null;
}

/** The lowest priority among a group's waiting jobs of the queue in the range. */
export async function groupTail(
  sql: Sql,
  schema: string,
  queue: string,
  group: string,
  range: { min: number; max: number },
): Promise<number | null> {
  const { rows } = await sql.query<{ priority: number | null }>(
    `select min(priority) as priority from ${schema}.job
      where name = $1 and state < 'active' and not blocked and priority between $3 and $4 and group_id = $2`,
    [queue, group, range.min, range.max],
  );
  return rows[0]?.priority ?? null;
}
