import type { Sql, Tx } from '../database.ts';
import { USABLE_TOKEN } from './tokens.ts';

/**
 * Leases of long-lived work shared by every process: a row per running export or open event stream, renewed
 * while it runs, so a dead process's leases expire. Owns `export_leases` and `submission_streams`.
 */
const KINDS = {
  export: { table: 'export_leases', lockSpace: 781237 },
  stream: { table: 'submission_streams', lockSpace: 781236 },
} as const;

export type LeaseKind = keyof typeof KINDS;
export type Lease = { id: string; teamId: string; tokenId: string; formId: string; seconds: number };
/** At most this many live leases of a kind per token and per team (a missing one is no limit). */
export type LeaseLimits = { token?: number; team: number };

/**
 * Takes a lease unless the token or team holds its limit (answering which), serialised per team by a
 * transaction lock so concurrent takers cannot both take the last one. Null when taken.
 */
export async function takeLease(
  tx: Tx,
  kind: LeaseKind,
  lease: Lease,
  limits: LeaseLimits,
): Promise<'token' | 'team' | null> {
  const { table, lockSpace } = KINDS[kind];
  await tx.query('select pg_advisory_xact_lock($1, hashtext($2))', [lockSpace, lease.teamId]);
  // The team's leases of work that died with its process: a team holds at most its limit of them.
  await tx.query(`delete from ${table} where team_id = $1 and expires_at <= now()`, [lease.teamId]);
  const { rows } = await tx.query<{ token: number; team: number }>(
    `select count(*) filter (where token_id = $2)::int as token, count(*)::int as team from ${table} where team_id = $1 and expires_at > now()`,
    [lease.teamId, lease.tokenId],
  );
  const held = rows[0]!;
  if (limits.token !== undefined && held.token >= limits.token) return 'token';
  if (held.team >= limits.team) return 'team';
  await tx.query(
    `insert into ${table} (id, team_id, token_id, form_id, expires_at) values ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
    [lease.id, lease.teamId, lease.tokenId, lease.formId, lease.seconds],
  );
  return null;
}

export async function renewLease(sql: Sql, kind: LeaseKind, lease: Lease): Promise<void> {
  await sql.query(
    `update ${KINDS[kind].table} set expires_at = now() + make_interval(secs => $2) where id = $1 and team_id = $3`,
    [lease.id, lease.seconds, lease.teamId],
    `intake_${kind}_lease_renew`,
  );
}

export async function dropLease(sql: Sql, kind: LeaseKind, lease: Pick<Lease, 'id' | 'teamId'>): Promise<void> {
  await sql.query(`delete from ${KINDS[kind].table} where id = $1 and team_id = $2`, [lease.id, lease.teamId]);
}

export type Renewal = { renewed: boolean; tokenUsable: boolean; formLive: boolean };

/**
 * Extends a lease while its token still authenticates (not revoked or expired, its member still in the
 * team) and its form is still live; otherwise leaves it to expire and says why.
 */
export async function renewStreamLease(sql: Sql, lease: Lease): Promise<Renewal> {
  const { rows } = await sql.query<{ token_usable: boolean; form_live: boolean; renewed: boolean }>(
    `with checks as (
       select exists (select 1 from api_tokens t join memberships m on m.team_id = t.team_id and m.user_id = t.user_id
                       where t.id = $2 and t.team_id = $3 and ${USABLE_TOKEN}) as token_usable,
              exists (select 1 from forms f where f.id = $4 and f.team_id = $3 and f.deleted_at is null) as form_live
     ), renewed as (
       update submission_streams set expires_at = now() + make_interval(secs => $5)
        where id = $1 and team_id = $3 and (select token_usable and form_live from checks)
       returning id
     )
     select token_usable, form_live, exists (select 1 from renewed) as renewed from checks`,
    [lease.id, lease.tokenId, lease.teamId, lease.formId, lease.seconds],
    'intake_stream_renew',
  );
  const r = rows[0]!;
  return { renewed: r.renewed, tokenUsable: r.token_usable, formLive: r.form_live };
}
