import type { Sql } from '../database.ts';

/**
 * API tokens are read and written in SQL, not through the ORM: MikroORM inlines values into its SQL
 * text, and a token's hash belongs in a parameter, never in statement text (logs, pg_stat_statements).
 */

/** A token that authenticates: not revoked and not past its expiry (`t` is the api_tokens alias). */
export const USABLE_TOKEN = 't.revoked_at is null and (t.expires_at is null or t.expires_at > now())';

export type CallerRow = {
  id: string;
  team_id: string;
  user_id: string;
  abilities: string[];
  role: string;
  last_used_at: string | null;
};

/** The usable token with this hash and its member's current role (no membership, no caller). */
export async function findByHash(sql: Sql, tokenHash: string, teamId: string): Promise<CallerRow | undefined> {
  const { rows } = await sql.query<CallerRow>(
    `select t.id, t.team_id, t.user_id, t.abilities, m.role, t.last_used_at
       from api_tokens t join memberships m on m.team_id = t.team_id and m.user_id = t.user_id
      where t.token_hash = $1 and t.team_id = $2 and m.team_id = $2 and ${USABLE_TOKEN}`,
    [tokenHash, teamId],
    'intake_token_by_hash',
  );
  return rows[0];
}

export type TokenTeam = { tokenId: string; teamId: string };

const TOKEN_TEAM = 'select token_id as "tokenId", team_id as "teamId" from api_token_teams';

/** The token and team a hash names (`api_token_teams`), revoked or not; undefined for no token's. */
export async function teamOfTokenHash(sql: Sql, hash: string): Promise<TokenTeam | undefined> {
  return (await sql.query<TokenTeam>(`${TOKEN_TEAM} where token_hash = $1`, [hash])).rows[0];
}

/** The team of a token id (an operator's revocation names the token alone). */
export async function teamOfTokenId(sql: Sql, id: string): Promise<TokenTeam | undefined> {
  return (await sql.query<TokenTeam>(`${TOKEN_TEAM} where token_id = $1`, [id])).rows[0];
}

/** At most one write a minute per token; the guard keeps concurrent requests from all writing. */
export async function touchLastUsed(sql: Sql, teamId: string, id: string): Promise<void> {
  await sql.query(
    `update api_tokens set last_used_at = now() where id = $1 and team_id = $2 and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
    [id, teamId],
    'intake_token_touch',
  );
}

export type TokenRow = {
  id: string;
  team_id: string;
  user_id: string;
  name: string;
  abilities: string[];
  last4: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
};

const TOKEN_COLUMNS = 'id, team_id, user_id, name, abilities, last4, created_at, last_used_at, expires_at';

export async function insertToken(
  sql: Sql,
  t: {
    id: string;
    teamId: string;
    userId: string;
    name: string;
    abilities: string[];
    tokenHash: string;
    last4: string;
    expiresAt: string | null;
  },
): Promise<TokenRow> {
  const { rows } = await sql.query<TokenRow>(
    `with lookup as (insert into api_token_teams (token_hash, token_id, team_id) values ($6, $1, $2))
     insert into api_tokens (id, team_id, user_id, name, abilities, token_hash, last4, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8) returning ${TOKEN_COLUMNS}`,
    [t.id, t.teamId, t.userId, t.name, t.abilities, t.tokenHash, t.last4, t.expiresAt],
  );
  return rows[0]!;
}

/** Tokens not revoked (expired ones included: their `expires_at` says so), newest first. */
export async function listLive(sql: Sql, teamId: string, userId: string): Promise<TokenRow[]> {
  const { rows } = await sql.query<TokenRow>(
    `select ${TOKEN_COLUMNS} from api_tokens where team_id = $1 and user_id = $2 and revoked_at is null order by created_at desc, id desc`,
    [teamId, userId],
  );
  return rows;
}

/** A team's tokens not revoked, of every member or of one, newest first (operator listing). */
export async function listLiveInTeam(sql: Sql, teamId: string, userId: string | null): Promise<TokenRow[]> {
  const { rows } = await sql.query<TokenRow>(
    `select ${TOKEN_COLUMNS} from api_tokens
      where team_id = $1 and ($2::text is null or user_id = $2) and revoked_at is null
      order by created_at desc, id desc`,
    [teamId, userId],
  );
  return rows;
}

export async function findLive(sql: Sql, teamId: string, id: string): Promise<TokenRow | undefined> {
  const { rows } = await sql.query<TokenRow>(
    `select ${TOKEN_COLUMNS} from api_tokens where id = $1 and team_id = $2 and revoked_at is null`,
    [id, teamId],
  );
  return rows[0];
}

export async function revoke(sql: Sql, teamId: string, id: string): Promise<void> {
  await sql.query('update api_tokens set revoked_at = now() where id = $1 and team_id = $2 and revoked_at is null', [
    id,
    teamId,
  ]);
}

/** Revokes a token by id alone (operator path); undefined when there is no such token not yet revoked. */
export async function revokeById(
  sql: Sql,
  teamId: string,
  id: string,
): Promise<(TokenRow & { revoked_at: string }) | undefined> {
  const { rows } = await sql.query<TokenRow & { revoked_at: string }>(
    `update api_tokens set revoked_at = now() where id = $1 and team_id = $2 and revoked_at is null returning ${TOKEN_COLUMNS}, revoked_at`,
    [id, teamId],
  );
  return rows[0];
}

/** Revokes every token a member holds in a team (the member is leaving it); returns how many. */
export async function revokeMemberTokens(sql: Sql, teamId: string, userId: string): Promise<number> {
  const { rowCount } = await sql.query(
    'update api_tokens set revoked_at = now() where team_id = $1 and user_id = $2 and revoked_at is null',
    [teamId, userId],
  );
  return rowCount;
}
