import type { Sql } from '../database.ts';
import { USABLE_TOKEN, type CallerRow } from './tokens.ts';

export type WindowRow = { hits: number; reset: number };

/**
 * The upsert of a fixed-window counter (an unlogged table: a hit costs no WAL flush, a crash forgets a minute),
 * returning its hits and seconds until reset. `key`, `seconds` and `by` are SQL expressions.
 */
export function windowHit(key: string, seconds: string, from = '', by = '1'): string {
  return `insert into rate_limit_windows as w (key, window_start, hits)
     select ${key}, ${windowStart(seconds)}, ${by} ${from}
     on conflict (key, window_start) do update set hits = w.hits + ${by}
     returning w.hits, ${resetOf('w.window_start', seconds)}`;
}

/** The start of the fixed window of `seconds` that holds now. */
const windowStart = (seconds: string) => `to_timestamp(floor(extract(epoch from now()) / ${seconds}) * ${seconds})`;
/** Seconds until the window starting at `start` resets, as `reset`. */
const resetOf = (start: string, seconds: string) =>
  `ceil(extract(epoch from (${start} + make_interval(secs => ${seconds}) - now())))::int as reset`;

/** A fixed window's count and the one before it (0 when nothing was counted), and the milliseconds since it began. */
export type TwoWindowRow = { current: number; previous: number; elapsed_ms: number };

/** The count of `key`'s window starting at `start`, 0 when nothing was counted in it (SQL expressions). */
const countAt = (key: string, start: string) =>
  `coalesce((select c.hits from rate_limit_windows c where c.key = ${key} and c.window_start = ${start}), 0)::int`;

/** The previous window's count as `previous`, and the milliseconds since `start` as `elapsed_ms` (SQL expressions). */
const withPrevious = (key: string, start: string, seconds: string) =>
  `${countAt(key, `${start} - make_interval(secs => ${seconds})`)} as previous,
   (extract(epoch from now() - ${start}) * 1000)::int as elapsed_ms`;

/** A fixed window's count so far and the previous window's, for a sliding estimate; writes nothing. */
export async function readTwoWindows(sql: Sql, key: string, windowSeconds: number): Promise<TwoWindowRow> {
  const { rows } = await sql.query<TwoWindowRow>(
    `select ${countAt('$1::text', 'w.start')} as current, ${withPrevious('$1::text', 'w.start', '$2::int')}
       from (select ${windowStart('$2::int')} as start) w`,
    [key, windowSeconds],
    'intake_read_two_windows',
  );
  return rows[0]!;
}

/** One hit in a fixed window, answering its count with this hit and the previous window's, for a sliding estimate. */
export async function hitTwoWindows(sql: Sql, key: string, windowSeconds: number): Promise<TwoWindowRow> {
  const { rows } = await sql.query<TwoWindowRow>(
    `with hit as (${windowHit('$1::text', '$2::int')}), start as (select ${windowStart('$2::int')} as start)
     select hit.hits as current, ${withPrevious('$1::text', 'start.start', '$2::int')} from hit, start`,
    [key, windowSeconds],
    'intake_hit_two_windows',
  );
  return rows[0]!;
}

/**
 * Takes up to `wanted` units from a window holding `limit`: how many were granted, and the seconds until reset.
 * All of `wanted` is counted, so a spent window stays spent however the takers race.
 */
export async function takeFromWindow(
  sql: Sql,
  key: string,
  windowSeconds: number,
  wanted: number,
  limit: number,
): Promise<{ granted: number; reset: number }> {
  const { rows } = await sql.query<{ granted: number; reset: number }>(
    `with hit as (${windowHit('$1::text', '$2::int', '', '$3::int')})
     select greatest(0, least($3::int, $4::int - (hits - $3::int)))::int as granted, reset from hit`,
    [key, windowSeconds, wanted, limit],
    'intake_take_from_window',
  );
  return rows[0]!;
}

/** Adds `by` to a fixed window's count, answering the count and the seconds until it resets. */
export async function addToWindow(sql: Sql, key: string, windowSeconds: number, by: number): Promise<WindowRow> {
  const { rows } = await sql.query<WindowRow>(
    windowHit('$1::text', '$2::int', '', '$3::int'),
    [key, windowSeconds, by],
    'intake_add_to_window',
  );
  return rows[0]!;
}

export async function hitWindow(sql: Sql, key: string, windowSeconds: number): Promise<WindowRow> {
  const { rows } = await sql.query<WindowRow>(
    windowHit('$1::text', '$2::int'),
    [key, windowSeconds],
    'intake_hit_window',
  );
  return rows[0]!;
}

/**
 * One hit in a token's window and, only when within `tokenLimit`, in its team's (null otherwise): a token over
 * its own budget spends nothing of the team's, so one looping integration cannot lock its teammates out.
 */
export async function hitTokenAndTeamWindows(
  sql: Sql,
  keys: { token: string; team: string },
  tokenLimit: number,
  windowSeconds: number,
): Promise<{ token: WindowRow; team: WindowRow | null }> {
  const { rows } = await sql.query<{
    token_hits: number;
    token_reset: number;
    team_hits: number | null;
    team_reset: number | null;
  }>(
    `with token as (${windowHit('$1::text', '$3::int')}),
          team as (${windowHit('$2::text', '$3::int', 'where (select hits from token) <= $4::int')})
     select token.hits as token_hits, token.reset as token_reset, team.hits as team_hits, team.reset as team_reset
       from token left join team on true`,
    [keys.token, keys.team, windowSeconds, tokenLimit],
    'intake_hit_api_windows',
  );
  const r = rows[0]!;
  return {
    token: { hits: r.token_hits, reset: r.token_reset },
    team: r.team_hits === null ? null : { hits: r.team_hits, reset: r.team_reset! },
  };
}

/** The token window's, then (within the token's limit) the team window's hits of one API request. */
export type ApiWindowHits = { token: WindowRow; team: WindowRow | null };

/** The statement of hitTokenAndTeamWindows over a CTE `caller` (id, team_id): `charged` a condition on `c`. */
const apiWindowsHit = (windowSeconds: string, tokenLimit: string, charged: string) =>
  `token as (${windowHit(`'api:' || c.id`, windowSeconds, `from caller c where ${charged}`)}),
   team as (${windowHit(`'api-team:' || c.team_id`, windowSeconds, `from caller c where (select hits from token) <= ${tokenLimit}`)})`;

/**
 * The usable token with this hash and its member's role (tokens.ts's findByHash), and in the same statement
 * its API windows hit as hitTokenAndTeamWindows does, only when the token may make the call: `ability` among
 * its abilities (null: any token) and its role one of `roles` (those whose ceiling holds the ability).
 */
export async function findCallerHittingApiWindows(
  sql: Sql,
  tokenHash: string,
  teamId: string,
  charge: { ability: string | null; roles: readonly string[]; tokenLimit: number; windowSeconds: number },
): Promise<{ caller: CallerRow; hits: ApiWindowHits | null } | undefined> {
  const { rows } = await sql.query<
    CallerRow & {
      token_hits: number | null;
      token_reset: number | null;
      team_hits: number | null;
      team_reset: number | null;
    }
  >(
    `with caller as (
       select t.id, t.team_id, t.user_id, t.abilities, m.role, t.last_used_at
         from api_tokens t join memberships m on m.team_id = t.team_id and m.user_id = t.user_id
        where t.token_hash = $1 and t.team_id = $6 and m.team_id = $6 and ${USABLE_TOKEN}),
     ${apiWindowsHit('$2::int', '$3::int', '($4::text is null or ($4::text = any(c.abilities) and c.role = any($5::text[])))')}
     select caller.*, token.hits as token_hits, token.reset as token_reset, team.hits as team_hits, team.reset as team_reset
       from caller left join token on true left join team on true`,
    [tokenHash, charge.windowSeconds, charge.tokenLimit, charge.ability, charge.roles, teamId],
    'intake_token_hit_api_windows',
  );
  const r = rows[0];
  if (!r) return undefined;
  const { token_hits, token_reset, team_hits, team_reset, ...caller } = r;
  const hits =
    token_hits === null
      ? null
      : {
          token: { hits: token_hits, reset: token_reset! },
          team: team_hits === null ? null : { hits: team_hits, reset: team_reset! },
        };
  return { caller, hits };
}

export async function pruneWindows(sql: Sql): Promise<void> {
  await sql.query(`delete from rate_limit_windows where window_start < now() - interval '1 hour'`);
}
