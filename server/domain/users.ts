import type { InferEntity } from '@mikro-orm/core';
import { z } from 'zod';
import { Role } from '../../contract/abilities.ts';
import type { AppContext } from '../context.ts';
import { findUserIdByEmail } from '../db/queries/accounts.ts';
import { Membership, User } from '../db/entities.ts';
import { AppError } from './errors.ts';
import { newId } from './ids.ts';
import { findTeam } from './teams.ts';

export type UserRecord = InferEntity<typeof User>;

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
