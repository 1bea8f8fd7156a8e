import type { AppContext } from '../context.ts';
import { ApiToken, User } from '../db/entities.ts';
import { iso } from '../db/sql.ts';
import type { Caller } from './caller.ts';
import { findTeam } from './teams.ts';

export async function getMe(ctx: AppContext, caller: Caller) {
  const em = ctx.orm.em.fork();
  const [user, team, token] = await Promise.all([
    em.findOneOrFail(User, { id: caller.userId }),
    findTeam(em, caller.teamId),
    em.findOneOrFail(ApiToken, { id: caller.tokenId }),
  ]);
  return {
    user: { id: user.id, email: user.email, name: user.name, created_at: iso(user.createdAt) },
    team: { id: team.id, name: team.name, plan: team.planId, created_at: iso(team.createdAt) },
    role: caller.role,
    token: { id: token.id, name: token.name, abilities: [...caller.abilities] },
  };
}
