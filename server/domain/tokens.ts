import { createHash, randomInt } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferEntity } from '@mikro-orm/core';
import { type Ability, isAbility, ROLE_CEILINGS, type Role } from '../../contract/abilities.ts';
import type { AppContext } from '../context.ts';
import { ApiToken, Membership } from '../db/entities.ts';
import { iso, query, queryOne } from '../db/sql.ts';
import type { Caller } from './caller.ts';
import { AppError, notFound, validationFailed } from './errors.ts';
import { newId } from './ids.ts';
import { findTeam } from './teams.ts';

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

function toMetadata(t: InferEntity<typeof ApiToken>): TokenMetadata {
  return { id: t.id, name: t.name, abilities: t.abilities as Ability[], created_at: iso(t.createdAt), last4: t.last4 };
}

/** Resolves a bearer token to its caller, or null. Revocation is seen at once: nothing is cached. */
export async function authenticate(ctx: AppContext, plaintext: string): Promise<Caller | null> {
  if (!/^intk_[0-9A-Za-z]{40}$/.test(plaintext)) return null;
  const em = ctx.orm.em.fork();
  const row = await queryOne<{ id: string; team_id: string; user_id: string; abilities: string[]; role: Role; last_used_at: string | null }>(
    em,
    `select t.id, t.team_id, t.user_id, t.abilities, m.role, t.last_used_at
       from api_tokens t join memberships m on m.team_id = t.team_id and m.user_id = t.user_id
      where t.token_hash = ? and t.revoked_at is null`,
    [hashToken(plaintext)],
  );
  if (!row) return null;
  if (!row.last_used_at || Date.now() - new Date(row.last_used_at).getTime() >= LAST_USED_RESOLUTION_MS) {
    // At most one write a minute per token; the guard keeps concurrent requests from all writing.
    await query(em, `update api_tokens set last_used_at = now() where id = ? and (last_used_at is null or last_used_at < now() - interval '1 minute')`, [row.id]);
  }
  // A member whose role was lowered keeps their tokens, but only within the new role's ceiling.
  const ceiling = ROLE_CEILINGS[row.role];
  const abilities = row.abilities.filter((a): a is Ability => isAbility(a) && ceiling.includes(a));
  return { userId: row.user_id, teamId: row.team_id, role: row.role, tokenId: row.id, abilities };
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

async function insertToken(em: EntityManager, owner: { teamId: string; userId: string }, name: string, abilities: Ability[]) {
  const plaintext = mintPlaintext();
  const token = em.create(ApiToken, {
    id: newId('tok'),
    teamId: owner.teamId,
    userId: owner.userId,
    name,
    abilities,
    tokenHash: hashToken(plaintext),
    last4: plaintext.slice(-4),
    lastUsedAt: null,
    createdAt: new Date(),
    revokedAt: null,
  });
  await em.flush();
  return { data: toMetadata(token), token: plaintext };
}

export async function listTokens(ctx: AppContext, caller: Caller) {
  const tokens = await ctx.orm.em.fork().find(
    ApiToken,
    { teamId: caller.teamId, userId: caller.userId, revokedAt: null },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  return tokens.map((t) => ({ ...toMetadata(t), last_used_at: t.lastUsedAt ? iso(t.lastUsedAt) : null }));
}

/** POST /tokens: the free plan has no API (402); every ability must be held by the caller and allowed by the role. */
export async function createToken(ctx: AppContext, caller: Caller, input: { name: string; abilities: string[] }) {
  const name = input.name.trim();
  if (!name) throw validationFailed([{ in: 'body', path: 'name', message: 'The name must not be blank.' }]);
  const abilities = parseAbilities(input.abilities);
  const em = ctx.orm.em.fork();
  const team = await findTeam(em, caller.teamId);
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
  return insertToken(em, caller, name, abilities);
}

export async function revokeToken(ctx: AppContext, caller: Caller, tokenId: string): Promise<void> {
  const em = ctx.orm.em.fork();
  const token = await em.findOne(ApiToken, { id: tokenId, teamId: caller.teamId, revokedAt: null });
  if (!token) throw notFound('Token');
  if (token.id === caller.tokenId) {
    throw new AppError('cannot_revoke_active_token', 'The token used for this request cannot revoke itself.');
  }
  if (token.userId !== caller.userId) {
    throw new AppError('forbidden', "Tokens of other members cannot be revoked.");
  }
  token.revokedAt = new Date();
  await em.flush();
}

/**
 * Admin path (CLI, dev bootstrap): mint a token for a member without a calling token. Without
 * `abilities` the token gets everything the member's role allows. Plan rules do not apply here:
 * an operator may hand out tokens on any plan.
 */
export async function issueToken(ctx: AppContext, input: { teamId: string; userId: string; name: string; abilities?: string[] }) {
  const em = ctx.orm.em.fork();
  await findTeam(em, input.teamId);
  const member = await em.findOne(Membership, { teamId: input.teamId, userId: input.userId });
  if (!member) throw new AppError('not_found', `User "${input.userId}" is not a member of team "${input.teamId}".`);
  const role = member.role as Role;
  const abilities = input.abilities ? parseAbilities(input.abilities) : [...ROLE_CEILINGS[role]];
  const forbidden = roleForbids(role, abilities);
  if (forbidden.length) throw new AppError('forbidden', `Role ${role} does not permit: ${forbidden.join(', ')}.`);
  const name = input.name.trim();
  if (!name) throw new AppError('validation_failed', 'Token name must not be empty.');
  return insertToken(em, input, name, abilities);
}
