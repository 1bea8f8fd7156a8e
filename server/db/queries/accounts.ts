import type { Sql } from '../database.ts';

export async function memberCount(sql: Sql, teamId: string): Promise<number> {
  const { rows } = await sql.query<{ n: number }>('select count(*)::int as n from memberships where team_id = $1', [teamId]);
  return rows[0]!.n;
}

/** The period's accepted posts, live forms and stored file bytes of a team. */
export async function usageSummary(sql: Sql, teamId: string, periodStart: Date): Promise<{ submissions: number; forms: number; storage: number }> {
  const { rows } = await sql.query<{ submissions: string; forms: number; storage: string }>(
    `select
       coalesce((select sum(submissions) from usage_counters where team_id = $1 and period_start = $2), 0) as submissions,
       (select count(*)::int from forms where team_id = $1 and deleted_at is null) as forms,
       coalesce((select sum(size_bytes) from submission_files where team_id = $1), 0) as storage`,
    [teamId, periodStart],
  );
  const r = rows[0]!;
  return { submissions: Number(r.submissions), forms: r.forms, storage: Number(r.storage) };
}

/** A user by e-mail address, case-insensitively. */
export async function findUserIdByEmail(sql: Sql, email: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ id: string }>('select id from users where lower(email) = lower($1)', [email]);
  return rows[0]?.id;
}
