import { LockMode, type InferEntity } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { Role } from '../../contract/abilities.ts';
import type { AppContext } from '../context.ts';
import { findUserIdByEmail, listMembers } from '../db/queries/accounts.ts';
import { revokeMemberTokens } from '../db/queries/tokens.ts';
import { Membership, User } from '../db/entities.ts';
import { AppError } from './errors.ts';
import { newId } from './ids.ts';
import { findTeam, type MemberSummary, toMemberSummary } from './teams.ts';

export type UserRecord = InferEntity<typeof User>;
export type MembershipRecord = InferEntity<typeof Membership>;

const Email = z.string().trim().email().max(320);

/** Creates the user (or reuses the one with that e-mail) and makes them a member of the team. */
export async function addMember(
  ctx: AppContext,
  input: { email: string; name: string; teamId: string; role: string },
): Promise<{ user: UserRecord; role: Role }> {
  const email = Email.safeParse(input.email);
  if (!email.success) throw new AppError('validation_failed', `"${input.email}" is not a valid e-mail address.`);
  const role = Role.safeParse(input.role);
  if (!role.success) throw new AppError('validation_failed', `Unknown role "${input.role}": use one of ${Role.options.join(', ')}.`);
  const name = input.name.trim();
  if (!name) throw new AppError('validation_failed', 'Name must not be empty.');
  return ctx.db.transaction(async (tx) => {
    const { em } = tx;
    await findTeam(em, input.teamId);
    const existing = await findUserIdByEmail(tx, email.data);
    const user = existing
      ? await em.findOneOrFail(User, { id: existing })
      : em.create(User, { id: newId('usr'), email: email.data, name, createdAt: new Date() });
    await em.flush(); // the membership row references the user
    const member = await em.findOne(Membership, { teamId: input.teamId, userId: user.id });
    if (member) member.role = role.data;
    else em.create(Membership, { teamId: input.teamId, userId: user.id, role: role.data, createdAt: new Date() });
    return { user, role: role.data };
  });
}

export async function findMember(em: EntityManager, teamId: string, userId: string): Promise<MembershipRecord> {
  const member = await em.findOne(Membership, { teamId, userId });
  if (!member) throw new AppError('not_found', `User "${userId}" is not a member of team "${teamId}".`);
  return member;
}

/** A team's members with their roles and usable token counts, in the order they joined. */
export async function listTeamMembers(ctx: AppContext, teamId: string): Promise<MemberSummary[]> {
  await findTeam(ctx.db.em(), teamId);
  return (await listMembers(ctx.db, teamId)).map(toMemberSummary);
}

/**
 * Removes a member from a team and, in the same transaction, revokes every token they hold in it: the
 * tokens stop working at once and do not come back if the user is added again. The team's last owner
 * cannot be removed (make another member owner first), so every team keeps someone who can run it.
 */
export async function removeMember(
  ctx: AppContext,
  input: { teamId: string; userId: string },
): Promise<{ team: string; user: string; role: Role; revoked_tokens: number }> {
  return ctx.db.transaction(async (tx) => {
    const { em } = tx;
    await findTeam(em, input.teamId);
    // The owners' rows are locked first, so two concurrent removals cannot each leave the other as last owner.
    const owners = await em.find(Membership, { teamId: input.teamId, role: 'owner' }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const member = await em.findOne(Membership, { teamId: input.teamId, userId: input.userId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!member) throw new AppError('not_found', `User "${input.userId}" is not a member of team "${input.teamId}".`);
    if (member.role === 'owner' && owners.length === 1) {
      throw new AppError('conflict', `User "${input.userId}" is the last owner of team "${input.teamId}": make another member owner first.`);
    }
    em.remove(member);
    const revoked = await revokeMemberTokens(tx, input.teamId, input.userId);
    return { team: input.teamId, user: input.userId, role: member.role as Role, revoked_tokens: revoked };
  });
}
