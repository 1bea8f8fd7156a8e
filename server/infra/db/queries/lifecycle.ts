import type { Sql } from '../database.ts';

/** What retention reads and writes (erasure's queries are in erasure.ts). */

export type RetentionFacts = {
  form_id: string;
  settings: unknown;
  /** The plan's cap on retention in days; null = none. */
  cap: number | null;
  /** Timestamps as Postgres prints them (read as text). */
  oldest_inbox: string | null;
  oldest_spam: string | null;
};

/** Per form: its settings, its plan's cap, and the oldest submission of each folder (for next_deletion_at). */
export async function retentionFacts(
  sql: Sql,
  teamId: string,
  formIds: string[],
): Promise<Map<string, RetentionFacts>> {
  if (!formIds.length) return new Map();
  const { rows } = await sql.query<RetentionFacts>(
    `select f.id as form_id, f.settings, p.max_retention_days as cap,
            (select min(s.received_at) from submissions s where s.form_id = f.id and s.team_id = $2 and s.status <> 'spam') as oldest_inbox,
            (select min(s.received_at) from submissions s where s.form_id = f.id and s.team_id = $2 and s.status = 'spam') as oldest_spam
       from forms f join teams t on t.id = f.team_id join plans p on p.id = t.plan_id
      where f.id = any($1::text[]) and f.team_id = $2 and t.id = $2`,
    [formIds, teamId],
  );
  return new Map(rows.map((r) => [r.form_id, r]));
}

/** Forms in id order after `afterId`, with their team, settings and plan cap: the retention sweep's walk. */
export async function formsAfter(
  sql: Sql,
  afterId: string,
  limit: number,
): Promise<Array<{ id: string; team_id: string; settings: unknown; cap: number | null }>> {
  // The sweep's walk over every team's forms: the one statement that reads all shards.
  const { rows } = await sql.query<{ id: string; team_id: string; settings: unknown; cap: number | null }>(
    `select f.id, f.team_id, f.settings, p.max_retention_days as cap
       from forms f join teams t on t.id = f.team_id join plans p on p.id = t.plan_id
      where f.id > $1 order by f.id limit $2`,
    [afterId, limit],
  );
  return rows;
}

/**
 * Up to `limit` of the form's submissions of one folder received before `cutoff`, oldest first, locked;
 * rows another sweeper holds are skipped, so several workers can sweep at once without waiting.
 */
export async function lockAged(
  sql: Sql,
  teamId: string,
  formId: string,
  spam: boolean,
  cutoff: Date,
  limit: number,
): Promise<string[]> {
  const { rows } = await sql.query<{ id: string }>(
    `select s.id from submissions s
      where s.form_id = $1 and s.team_id = $4 and ${spam ? "s.status = 'spam'" : "s.status <> 'spam'"} and s.received_at < $2
      order by s.received_at, s.id limit $3 for update skip locked`,
    [formId, cutoff, limit, teamId],
  );
  return rows.map((r) => r.id);
}
