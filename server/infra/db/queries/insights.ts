import type { Sql } from '../database.ts';
import type { PayloadCursor } from './forms.ts';
import { valuesLists } from '../values.ts';

/** The weekly AI insights: their figures (exact, by SQL), stored results and the regeneration lock. */

/** Whether the team's plan includes AI features (undefined: no such team). */
export async function teamHasAi(sql: Sql, teamId: string): Promise<boolean | undefined> {
  const { rows } = await sql.query<{ ai: boolean }>(
    'select p.ai from teams t join plans p on p.id = t.plan_id where t.id = $1',
    [teamId],
  );
  return rows[0]?.ai;
}

/** Every team whose plan has AI (for the weekly schedule). */
export async function aiTeamIds(sql: Sql): Promise<string[]> {
  const { rows } = await sql.query<{ id: string }>(
    'select t.id from teams t join plans p on p.id = t.plan_id where p.ai order by t.id',
  );
  return rows.map((r) => r.id);
}

export type Week = { start: Date; end: Date; priorStart: Date };

/** Per scope (`form_id` null: the whole team): this week's and the prior week's totals, spam and score buckets. */
export type TotalsRow = {
  form_id: string | null;
  total: number;
  prior: number;
  spam: number;
  b0: number;
  b1: number;
  b2: number;
  b3: number;
};
export type CountRow = { form_id: string | null; key: string; count: number };

/**
 * The submissions of the team's forms (trashed ones included) received in [priorStart, end): read through
 * the (form_id, received_at) indexes, one form at a time.
 */
const WEEK = `select s.form_id, s.status, s.spam_reason, s.category, (s.ai_moderation ->> 'score')::float8 as score, s.received_at >= $2 as this_week
                from submissions s
               where s.form_id = any(array(select id from forms where team_id = $1)) and s.received_at >= $4 and s.received_at < $3`;

export async function weekTotals(sql: Sql, teamId: string, w: Week): Promise<TotalsRow[]> {
  const { rows } = await sql.query<TotalsRow>(
    `with s as (${WEEK})
     select form_id,
            count(*) filter (where this_week)::int as total,
            count(*) filter (where not this_week)::int as prior,
            count(*) filter (where this_week and status = 'spam')::int as spam,
            count(*) filter (where this_week and score < 0.3)::int as b0,
            count(*) filter (where this_week and score >= 0.3 and score < 0.6)::int as b1,
            count(*) filter (where this_week and score >= 0.6 and score < 0.85)::int as b2,
            count(*) filter (where this_week and score >= 0.85)::int as b3
       from s group by grouping sets ((), (form_id))`,
    [teamId, w.start, w.end, w.priorStart],
  );
  return rows;
}

/** This week's clean submissions by category, and spam by reason, per scope; most frequent first. */
export async function weekCounts(
  sql: Sql,
  teamId: string,
  w: Week,
): Promise<{ categories: CountRow[]; reasons: CountRow[] }> {
  const { rows } = await sql.query<CountRow & { kind: 'category' | 'reason' }>(
    `with s as (${WEEK}),
     c as (select form_id, category as key from s where this_week and status <> 'spam' and category is not null),
     r as (select form_id, spam_reason as key from s where this_week and status = 'spam' and spam_reason is not null)
     select 'category' as kind, form_id, key, count(*)::int as count from c group by grouping sets ((key), (form_id, key))
     union all
     select 'reason', form_id, key, count(*)::int from r group by grouping sets ((key), (form_id, key))
     order by count desc, key`,
    [teamId, w.start, w.end, w.priorStart],
  );
  return { categories: rows.filter((r) => r.kind === 'category'), reasons: rows.filter((r) => r.kind === 'reason') };
}

/**
 * This week's clean payloads of the team after `after`, newest first, as stored JSON text: at most `rows`,
 * and no more once their stored (possibly compressed) sizes pass `bytes` — the first is always in.
 */
export async function weekPayloadPage(
  sql: Sql,
  teamId: string,
  w: Week,
  after: PayloadCursor | null,
  rows: number,
  bytes: number,
): Promise<Array<{ form_id: string; payload: string; at: string; id: string }>> {
  const { rows: page } = await sql.query<{ form_id: string; payload: string; at: string; id: string }>(
    `select form_id, payload::text as payload, at, id
       from (select *, sum(size) over (order by received_at desc, id desc) - size as before
               from (select s.id, s.form_id, s.received_at, s.received_at::text as at, s.payload, pg_column_size(s.payload) as size
                       from submissions s
                      where s.form_id = any(array(select id from forms where team_id = $1)) and s.received_at >= $2 and s.received_at < $3
                        and s.status <> 'spam' and ($4::timestamptz is null or (s.received_at, s.id) < ($4::timestamptz, $5))
                      order by s.received_at desc, s.id desc limit $6) newest) p
      where before < $7
      order by received_at desc, id desc`,
    [teamId, w.start, w.end, after?.at ?? null, after?.id ?? null, rows, bytes],
  );
  return page;
}

/** The team's forms: names, and which are live (not trashed). */
export async function teamForms(sql: Sql, teamId: string): Promise<Array<{ id: string; name: string; live: boolean }>> {
  const { rows } = await sql.query<{ id: string; name: string; live: boolean }>(
    'select id, name, deleted_at is null as live from forms where team_id = $1 order by id',
    [teamId],
  );
  return rows;
}

export type InsightRow = {
  id: string;
  team_id: string;
  form_id: string | null;
  generated_at: string;
  data: Record<string, unknown>;
};

export async function insertInsights(
  sql: Sql,
  rows: Array<{
    id: string;
    teamId: string;
    formId: string | null;
    periodStart: Date;
    periodEnd: Date;
    generatedAt: Date;
    provider: string;
    data: unknown;
  }>,
): Promise<void> {
  const lists = valuesLists(
    rows,
    (r, p) =>
      `(${p(r.id)}, ${p(r.teamId)}, ${p(r.formId)}, ${p(r.periodStart)}::timestamptz, ${p(r.periodEnd)}::timestamptz,
        ${p(r.generatedAt)}::timestamptz, ${p(r.provider)}, ${p(JSON.stringify(r.data))}::jsonb)`,
  );
  for (const list of lists)
    await sql.query(
      `insert into insights (id, team_id, form_id, period_start, period_end, generated_at, provider, data)
       values ${list.rows}`,
      list.values,
    );
}

/** The latest insights of the team (`formId` null) or of one of its forms. */
export async function latestInsight(sql: Sql, teamId: string, formId: string | null): Promise<InsightRow | undefined> {
  const { rows } = await sql.query<InsightRow>(
    `select id, team_id, form_id, generated_at, data from insights
      where team_id = $1 and form_id is not distinct from $2 order by generated_at desc, id desc limit 1`,
    [teamId, formId],
  );
  return rows[0];
}

export async function findInsight(sql: Sql, id: string): Promise<InsightRow | undefined> {
  const { rows } = await sql.query<InsightRow>(
    'select id, team_id, form_id, generated_at, data from insights where id = $1',
    [id],
  );
  return rows[0];
}

/** The team's name and the e-mail addresses of its owners and admins (the digest's readers). */
export async function digestReaders(sql: Sql, teamId: string): Promise<{ name: string; emails: string[] } | undefined> {
  const { rows } = await sql.query<{ name: string; emails: string[] }>(
    `select t.name, array(select u.email from memberships m join users u on u.id = m.user_id
                           where m.team_id = t.id and m.role in ('owner', 'admin') order by u.email) as emails
       from teams t where t.id = $1`,
    [teamId],
  );
  return rows[0];
}

/**
 * Takes the team's regeneration lock until `until` if free at `now` (a conditional upsert, atomic across
 * processes): null when taken, else when the other holder's lock ends.
 */
export async function takeRegenerationLock(sql: Sql, teamId: string, now: Date, until: Date): Promise<Date | null> {
  const { rows } = await sql.query<{ taken: boolean; locked_until: Date }>(
    `with taken as (
       insert into insight_locks (team_id, locked_until, queued_at) values ($1, $3, $2)
       on conflict (team_id) do update set locked_until = excluded.locked_until, queued_at = excluded.queued_at
        where insight_locks.locked_until <= $2
       returning true as taken, locked_until)
     select taken, locked_until from taken
     union all
     select false, locked_until from insight_locks where team_id = $1 and not exists (select 1 from taken)`,
    [teamId, now, until],
  );
  const row = rows[0];
  if (row) return row.taken ? null : new Date(row.locked_until);
  // Another caller took it at the same moment: its row was not in this statement's snapshot. Read it now.
  const { rows: held } = await sql.query<{ locked_until: Date }>(
    'select locked_until from insight_locks where team_id = $1',
    [teamId],
  );
  if (!held[0]) throw new Error('the insights lock row vanished');
  return new Date(held[0].locked_until);
}

/** A form's last `days` days: submissions per day (UTC) by clean/spam, and clean ones by category. */
export async function recentFormStats(
  sql: Sql,
  formId: string,
  days: number,
): Promise<{
  daily: Array<{ day: string; clean: number; spam: number }>;
  categories: Array<{ name: string; count: number }>;
}> {
  const { rows: daily } = await sql.query<{ day: string; clean: number; spam: number }>(
    `select to_char(date_trunc('day', received_at at time zone 'UTC'), 'YYYY-MM-DD') as day,
            count(*) filter (where status <> 'spam')::int as clean, count(*) filter (where status = 'spam')::int as spam
       from submissions where form_id = $1 and received_at >= now() - make_interval(days => $2)
      group by 1 order by 1`,
    [formId, days],
  );
  const { rows: categories } = await sql.query<{ name: string; count: number }>(
    `select category as name, count(*)::int as count from submissions
      where form_id = $1 and received_at >= now() - make_interval(days => $2) and status <> 'spam' and category is not null
      group by 1 order by 2 desc, 1`,
    [formId, days],
  );
  return { daily, categories };
}
