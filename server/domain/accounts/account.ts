import type { AppContext } from '../../context.ts';
import { getUser } from '../../infra/db/queries/accounts.ts';
import { findLive } from '../../infra/db/queries/tokens.ts';
import { iso } from '../shared/timestamps.ts';
import type { Caller } from './caller.ts';
import { AppError } from '../shared/errors.ts';
import { findTeam } from './teams.ts';

export async function getMe(ctx: AppContext, caller: Caller) {
  const [user, team, token] = await Promise.all([
    getUser(ctx.db, caller.userId),
    findTeam(ctx.db, caller.teamId),
    findLive(ctx.db, caller.teamId, caller.tokenId),
  ]);
  if (!token) throw new AppError('unauthenticated', 'The token is invalid or has been revoked.');
  return {
    user: { id: user.id, email: user.email, name: user.name, created_at: iso(user.createdAt) },
    team: { id: team.id, name: team.name, plan: team.planId, created_at: iso(team.createdAt) },
    role: caller.role,
    token: { id: token.id, name: token.name, abilities: [...caller.abilities] },
  };
}
