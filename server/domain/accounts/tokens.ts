import { createHash, randomInt } from 'node:crypto';
import { type Ability, isAbility, ROLE_CEILINGS, type Role } from '../../../contract/abilities.ts';
import { toInstant } from '../../../contract/common.ts';
import type { AppContext } from '../../context.ts';
import type { Sql } from '../../infra/db/database.ts';
import * as queries from '../../infra/db/queries/tokens.ts';
import type { Caller } from './caller.ts';
import { AppError, notFound, validationFailed } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { findTeam } from './teams.ts';
import { iso } from '../shared/timestamps.ts';
import { findMember } from './users.ts';
import { lastingMemo } from '../shared/lasting-memo.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LAST_USED_RESOLUTION_MS = 60_000;
/** The longest lifetime a token may be given: long enough for any deploy key, short of "forever by accident". */
export const MAX_TOKEN_LIFETIME_YEARS = 10;

export type TokenMetadata = {
  id: string;
  name: string;
  abilities: Ability[];
  created_at: string;
  last4: string;
  expires_at: string | null;
};

/** Plaintext `intk_` + 40 base62 characters; only its SHA-256 is stored. */
function mintPlaintext(): string {
  let body = '';
  for (let i = 0; i < 40; i++) body += BASE62[randomInt(62)];
  return `intk_${body}`;
}

export function hashToken(plaintext: string): string {
  return createHash('sha256').update(plaintext).digest('hex');
}

function toMetadata(t: queries.TokenRow): TokenMetadata {
  return {
    id: t.id,
    name: t.name,
    abilities: t.abilities.filter(isAbility),
    created_at: iso(t.created_at),
    last4: t.last4,
    expires_at: iso(t.expires_at),
  };
}

/**
 * A requested expiry: none (undefined or null), or a real instant in the future and at most
 * MAX_TOKEN_LIFETIME_YEARS ahead. Returns the instant to store (microseconds and zone kept) or null.
 */
function parseExpiry(value: string | null | undefined, now = new Date()): string | null {
  if (value === undefined || value === null) return null;
  const refuse = (message: string) =>
    validationFailed([{ in: 'body', path: 'expires_at', message }], `Invalid expires_at: ${message}`);
  const instant = toInstant(value);
  const at = instant === null ? NaN : Date.parse(instant);
  if (Number.isNaN(at)) throw refuse(`"${value}" is not a real ISO 8601 date or date-time (without a zone it is UTC).`);
  if (at <= now.getTime()) throw refuse('it must be in the future.');
  const latest = new Date(now);
  latest.setUTCFullYear(latest.getUTCFullYear() + MAX_TOKEN_LIFETIME_YEARS);
  if (at > latest.getTime())
    throw refuse(`it must be at most ${MAX_TOKEN_LIFETIME_YEARS} years ahead (${latest.toISOString()}).`);
  return instant;
}

/**
 * Resolves a bearer token to its caller, or null. Revocation and expiry are seen at once: nothing is
 * cached, and an expired token is refused exactly like a revoked one.
 */
export async function authenticate(ctx: AppContext, plaintext: string): Promise<Caller | null> {
  if (!isTokenShaped(plaintext)) return null;
  const hash = hashToken(plaintext);
  const token = await tokenOfHash(ctx, hash);
  const row = token && (await queries.findByHash(ctx.db, hash, token.teamId));
  return row ? callerOf(ctx, row) : null;
}

const tokensOfHashes = lastingMemo<{ tokenId: string; teamId: string }>(10_000);

/**
 * The token and team a token's hash names, revoked or not (`api_token_teams`), so the token's own row is read
 * on its team's shard; null for no token's hash. A token never changes team: each process reads it once.
 */
export async function tokenOfHash(ctx: AppContext, hash: string): Promise<{ tokenId: string; teamId: string } | null> {
  return tokensOfHashes(ctx.db, hash, () => queries.teamOfTokenHash(ctx.db, hash));
}

/** Whether a bearer value can be a token at all (no lookup for one that cannot). */
export function isTokenShaped(plaintext: string): boolean {
  return /^intk_[0-9A-Za-z]{40}$/.test(plaintext);
}

/** The caller of a usable token's row, its abilities within its role's ceiling; last use noted once a minute. */
export async function callerOf(ctx: AppContext, row: queries.CallerRow): Promise<Caller> {
  if (!row.last_used_at || Date.now() - new Date(row.last_used_at).getTime() >= LAST_USED_RESOLUTION_MS) {
    await queries.touchLastUsed(ctx.db, row.team_id, row.id);
  }
  const role = row.role as Role;
  // A member whose role was lowered keeps their tokens, but only within the new role's ceiling.
  const ceiling = ROLE_CEILINGS[role];
  const abilities = row.abilities.filter((a): a is Ability => isAbility(a) && ceiling.includes(a));
  return { userId: row.user_id, teamId: row.team_id, role, tokenId: row.id, abilities };
}

function parseAbilities(requested: string[]): Ability[] {
  if (requested.length === 0)
    throw validationFailed([{ in: 'body', path: 'abilities', message: 'At least one ability is required.' }]);
  const unknown = requested.filter((a) => !isAbility(a));
  if (unknown.length) {
    throw validationFailed(
      unknown.map((a) => ({ in: 'body' as const, path: 'abilities', message: `Unknown ability "${a}".` })),
      `Unknown abilities: ${unknown.join(', ')}.`,
    );
  }
  return [...new Set(requested as Ability[])];
}

function roleForbids(role: Role, abilities: Ability[]): Ability[] {
  return abilities.filter((a) => !ROLE_CEILINGS[role].includes(a));
}

async function insertToken(
  sql: Sql,
  owner: { teamId: string; userId: string },
  token: { name: string; abilities: Ability[]; expiresAt: string | null },
) {
  const plaintext = mintPlaintext();
  const row = await queries.insertToken(sql, {
    id: newId('tok'),
    teamId: owner.teamId,
    userId: owner.userId,
    name: token.name,
    abilities: token.abilities,
    tokenHash: hashToken(plaintext),
    last4: plaintext.slice(-4),
    expiresAt: token.expiresAt,
  });
  return { data: toMetadata(row), token: plaintext };
}

export async function listTokens(ctx: AppContext, caller: Caller) {
  const tokens = await queries.listLive(ctx.db, caller.teamId, caller.userId);
  return tokens.map((t) => ({ ...toMetadata(t), last_used_at: iso(t.last_used_at) }));
}

/** POST /tokens: the free plan has no API (402); every ability must be held by the caller and allowed by the role. */
export async function createToken(
  ctx: AppContext,
  caller: Caller,
  input: { name: string; abilities: string[]; expires_at?: string | null },
) {
  const name = input.name.trim();
  if (!name) throw validationFailed([{ in: 'body', path: 'name', message: 'The name must not be blank.' }]);
  const abilities = parseAbilities(input.abilities);
  const expiresAt = parseExpiry(input.expires_at);
  const team = await findTeam(ctx.db, caller.teamId);
  if (team.planId === 'free') {
    throw new AppError('payment_required', 'API tokens are not available on the free plan. Upgrade to create tokens.');
  }
  // The caller's abilities are already capped by its role, so an ability the role forbids is also one the
  // calling token does not hold: the spec names that case `ability_exceeds_caller`, with the list.
  const exceeded = abilities.filter((a) => !caller.abilities.includes(a));
  if (exceeded.length) {
    const beyondRole = roleForbids(caller.role, exceeded);
    const notHeld = exceeded.filter((a) => !beyondRole.includes(a));
    const reasons = [
      beyondRole.length ? `your role (${caller.role}) does not permit ${beyondRole.join(', ')}` : '',
      notHeld.length ? `the calling token does not hold ${notHeld.join(', ')}` : '',
    ].filter(Boolean);
    throw new AppError('ability_exceeds_caller', `Cannot grant more than the caller has: ${reasons.join('; ')}.`, {
      exceeded,
    });
  }
  const forbidden = roleForbids(caller.role, abilities);
  if (forbidden.length) {
    throw new AppError('forbidden', `Your role (${caller.role}) does not permit: ${forbidden.join(', ')}.`, {
      forbidden,
    });
  }
  return insertToken(ctx.db, caller, { name, abilities, expiresAt });
}

export async function revokeToken(ctx: AppContext, caller: Caller, tokenId: string): Promise<void> {
  const token = await queries.findLive(ctx.db, caller.teamId, tokenId);
  if (!token) throw notFound('Token');
  if (token.id === caller.tokenId) {
    throw new AppError('cannot_revoke_active_token', 'The token used for this request cannot revoke itself.');
  }
  if (token.user_id !== caller.userId) {
    throw new AppError('forbidden', 'Tokens of other members cannot be revoked.');
  }
  await queries.revoke(ctx.db, caller.teamId, token.id);
}

/**
 * Admin path (CLI, dev bootstrap): mint a token for a member without a calling token. Without
 * `abilities` the token gets everything the member's role allows. Plan rules do not apply here:
 * an operator may hand out tokens on any plan.
 */
export async function issueToken(
  ctx: AppContext,
  input: { teamId: string; userId: string; name: string; abilities?: string[]; expiresAt?: string | null },
) {
  await findTeam(ctx.db, input.teamId);
  const member = await findMember(ctx.db, input.teamId, input.userId);
  const role = member.role as Role;
  const abilities = input.abilities ? parseAbilities(input.abilities) : [...ROLE_CEILINGS[role]];
  const forbidden = roleForbids(role, abilities);
  if (forbidden.length) throw new AppError('forbidden', `Role ${role} does not permit: ${forbidden.join(', ')}.`);
  const name = input.name.trim();
  if (!name) throw new AppError('validation_failed', 'Token name must not be empty.');
  const expiresAt = parseExpiry(input.expiresAt);
  return insertToken(ctx.db, input, { name, abilities, expiresAt });
}

/** A token as an operator sees it: metadata (never plaintext or hash) and whose it is. */
export type TeamTokenEntry = {
  id: string;
  user_id: string;
  name: string;
  abilities: Ability[];
  created_at: string;
  last4: string;
  last_used_at: string | null;
  expires_at: string | null;
};

function toTeamEntry(t: queries.TokenRow): TeamTokenEntry {
  const { id, name, abilities, created_at, last4, expires_at } = toMetadata(t);
  return { id, user_id: t.user_id, name, abilities, created_at, last4, last_used_at: iso(t.last_used_at), expires_at };
}

/** Admin path: a team's tokens not revoked (expired ones too), of every member or of one. */
export async function listTeamTokens(
  ctx: AppContext,
  input: { teamId: string; userId?: string },
): Promise<TeamTokenEntry[]> {
  await findTeam(ctx.db, input.teamId);
  if (input.userId !== undefined) await findMember(ctx.db, input.teamId, input.userId);
  const rows = await queries.listLiveInTeam(ctx.db, input.teamId, input.userId ?? null);
  return rows.map(toTeamEntry);
}

/** Admin path: revokes any token by id, whoever holds it; it fails with 401 from the next request on. */
export async function revokeTokenById(
  ctx: AppContext,
  tokenId: string,
): Promise<TeamTokenEntry & { team_id: string; revoked_at: string }> {
  const token = await queries.teamOfTokenId(ctx.db, tokenId);
  const row = token && (await queries.revokeById(ctx.db, token.teamId, tokenId));
  if (!row) throw new AppError('not_found', `Token "${tokenId}" not found (or already revoked).`);
  return { ...toTeamEntry(row), team_id: row.team_id, revoked_at: iso(row.revoked_at) };
}

/** The token of an `Authorization: Bearer <token>` header, or null when there is none (the one bearer parser). */
export function bearerToken(header: string | undefined): string | null {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? null;
}
