import { z } from 'zod';
import { Role } from '../../../contract/abilities.ts';
import type { AppContext } from '../../context.ts';
import * as queries from '../../infra/db/queries/accounts.ts';
import type { MembershipRecord, UserRecord } from '../../infra/db/queries/accounts.ts';
import type { Sql } from '../../infra/db/database.ts';
import { revokeMemberTokens } from '../../infra/db/queries/tokens.ts';
import { AppError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { findTeam, type MemberSummary, toMemberSummary } from './teams.ts';

export type { MembershipRecord, UserRecord };

const Email = z.string().trim().email().max(320);

/** Creates the user (or reuses the one with that e-mail) and makes them a member of the team. */
export async function addMember(
  ctx: AppContext,
  input: { email: string; name: string; teamId: string; role: string },
): Promise<{ user: UserRecord; role: Role }> {
  const email = Email.safeParse(input.email);
  if (!email.success) throw new AppError('validation_failed', `"${input.email}" is not a valid e-mail address.`);
  const role = Role.safeParse(input.role);
  if (!role.success)
    throw new AppError('validation_failed', `Unknown role "${input.role}": use one of ${Role.options.join(', ')}.`);
  const name = input.name.trim();
  if (!name) throw new AppError('validation_failed', 'Name must not be empty.');
  return ctx.db.transaction(async (tx) => {
    await findTeam(tx, input.teamId);
    const existing = await queries.findUserIdByEmail(tx, email.data);
    const user = existing
      ? await queries.getUser(tx, existing)
      : await queries.insertUser(tx, { id: newId('usr'), email: email.data, name });
    await queries.putMembership(tx, { teamId: input.teamId, userId: user.id, role: role.data });
    return { user, role: role.data };
  });
}

export async function findMember(on: Sql, teamId: string, userId: string): Promise<MembershipRecord> {
  const member = await queries.findMembership(on, teamId, userId);
  if (!member) throw new AppError('not_found', `User "${userId}" is not a member of team "${teamId}".`);
  return member;
}

/** A team's members with their roles and usable token counts, in the order they joined. */
export async function listTeamMembers(ctx: AppContext, teamId: string): Promise<MemberSummary[]> {
  await findTeam(ctx.db, teamId);
  return (await queries.listMembers(ctx.db, teamId)).map(toMemberSummary);
}

/**
 * Removes a member and, in the same transaction, revokes their tokens in the team for good. The last owner
 * cannot be removed, so every team keeps someone who can run it.
 */
export async function removeMember(
  ctx: AppContext,
  input: { teamId: string; userId: string },
): Promise<{ team: string; user: string; role: Role; revoked_tokens: number }> {
  return ctx.db.transaction(async (tx) => {
    await findTeam(tx, input.teamId);
    // The owners' rows are locked first, so two concurrent removals cannot each leave the other as last owner.
    const { owners, member } = await queries.lockOwnersAndMember(tx, input.teamId, input.userId);
    if (!member) throw new AppError('not_found', `User "${input.userId}" is not a member of team "${input.teamId}".`);
    if (member.role === 'owner' && owners.length === 1) {
      throw new AppError(
        'conflict',
        `User "${input.userId}" is the last owner of team "${input.teamId}": make another member owner first.`,
      );
    }
    const revoked = await revokeMemberTokens(tx, input.teamId, input.userId);
    await queries.deleteMembership(tx, input.teamId, input.userId);
    return { team: input.teamId, user: input.userId, role: member.role as Role, revoked_tokens: revoked };
  });
}
