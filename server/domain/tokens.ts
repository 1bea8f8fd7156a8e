import { createHash, randomInt } from 'node:crypto';
import { type Ability, isAbility, ROLE_CEILINGS, type Role } from '../../contract/abilities.ts';
import type { AppContext } from '../context.ts';
import type { Sql } from '../db/database.ts';
import { Membership } from '../db/entities.ts';
import * as queries from '../db/queries/tokens.ts';
import type { Caller } from './caller.ts';
import { AppError, notFound, validationFailed } from './errors.ts';
import { newId } from './ids.ts';
import { findTeam } from './teams.ts';
import { iso } from './timestamps.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LAST_USED_RESOLUTION_MS = 60_000;

export type TokenMetadata = { id: string; name: string; abilities: Ability[]; created_at: string; last4: string };

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
  return { id: t.id, name: t.name, abilities: t.abilities.filter(isAbility), created_at: iso(t.created_at), last4: t.last4 };
}

/** Resolves a bearer token to its caller, or null. Revocation is seen at once: nothing is cached. */
export async function authenticate(ctx: AppContext, plaintext: string): Promise<Caller | null> {
  if (!/^intk_[0-9A-Za-z]{40}$/.test(plaintext)) return null;
  const row = await queries.findByHash(ctx.db, hashToken(plaintext));
  if (!row) return null;
  if (!row.last_used_at || Date.now() - new Date(row.last_used_at).getTime() >= LAST_USED_RESOLUTION_MS) {
    await queries.touchLastUsed(ctx.db, row.id);
  }
  const role = row.role as Role;
  // A member whose role was lowered keeps their tokens, but only within the new role's ceiling.
  const ceiling = ROLE_CEILINGS[role];
  const abilities = row.abilities.filter((a): a is Ability => isAbility(a) && ceiling.includes(a));
  return { userId: row.user_id, teamId: row.team_id, role, tokenId: row.id, abilities };
}

function parseAbilities(requested: string[]): Ability[] {
  if (requested.length === 0) throw validationFailed([{ in: 'body', path: 'abilities', message: 'At least one ability is required.' }]);
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

async function insertToken(sql: Sql, owner: { teamId: string; userId: string }, name: string, abilities: Ability[]) {
  const plaintext = mintPlaintext();
  const token = await queries.insertToken(sql, {
    id: newId('tok'),
    teamId: owner.teamId,
    userId: owner.userId,
    name,
    abilities,
    tokenHash: hashToken(plaintext),
    last4: plaintext.slice(-4),
  });
  return { data: toMetadata(token), token: plaintext };
}

export async function listTokens(ctx: AppContext, caller: Caller) {
  const tokens = await queries.listLive(ctx.db, caller.teamId, caller.userId);
  return tokens.map((t) => ({ ...toMetadata(t), last_used_at: iso(t.last_used_at) }));
}

/** POST /tokens: the free plan has no API (402); every ability must be held by the caller and allowed by the role. */
export async function createToken(ctx: AppContext, caller: Caller, input: { name: string; abilities: string[] }) {
  const name = input.name.trim();
  if (!name) throw validationFailed([{ in: 'body', path: 'name', message: 'The name must not be blank.' }]);
  const abilities = parseAbilities(input.abilities);
  const team = await findTeam(ctx.db.em(), caller.teamId);
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
    throw new AppError('ability_exceeds_caller', `Cannot grant more than the caller has: ${reasons.join('; ')}.`, { exceeded });
  }
  const forbidden = roleForbids(caller.role, abilities);
  if (forbidden.length) {
    throw new AppError('forbidden', `Your role (${caller.role}) does not permit: ${forbidden.join(', ')}.`, { forbidden });
  }
  return insertToken(ctx.db, caller, name, abilities);
}

export async function revokeToken(ctx: AppContext, caller: Caller, tokenId: string): Promise<void> {
  const token = await queries.findLive(ctx.db, caller.teamId, tokenId);
  if (!token) throw notFound('Token');
  if (token.id === caller.tokenId) {
    throw new AppError('cannot_revoke_active_token', 'The token used for this request cannot revoke itself.');
  }
  if (token.user_id !== caller.userId) {
    throw new AppError('forbidden', "Tokens of other members cannot be revoked.");
  }
  await queries.revoke(ctx.db, token.id);
}

/**
 * Admin path (CLI, dev bootstrap): mint a token for a member without a calling token. Without
 * `abilities` the token gets everything the member's role allows. Plan rules do not apply here:
 * an operator may hand out tokens on any plan.
 */
export async function issueToken(ctx: AppContext, input: { teamId: string; userId: string; name: string; abilities?: string[] }) {
  const em = ctx.db.em();
  await findTeam(em, input.teamId);
  const member = await em.findOne(Membership, { teamId: input.teamId, userId: input.userId });
  if (!member) throw new AppError('not_found', `User "${input.userId}" is not a member of team "${input.teamId}".`);
  const role = member.role as Role;
  const abilities = input.abilities ? parseAbilities(input.abilities) : [...ROLE_CEILINGS[role]];
  const forbidden = roleForbids(role, abilities);
  if (forbidden.length) throw new AppError('forbidden', `Role ${role} does not permit: ${forbidden.join(', ')}.`);
  const name = input.name.trim();
  if (!name) throw new AppError('validation_failed', 'Token name must not be empty.');
  return insertToken(ctx.db, input, name, abilities);
}
