import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferEntity } from '@mikro-orm/core';
import type { AppContext } from '../context.ts';
import { listMembers, listTeamSummaries, type MemberRow } from '../db/queries/accounts.ts';
import { Subscription, Team } from '../db/entities.ts';
import { AppError } from './errors.ts';
import { newId } from './ids.ts';
import { currentPeriod, getPlan } from './plans.ts';
import { iso } from './timestamps.ts';

export type TeamRecord = InferEntity<typeof Team>;

/** A team always has a subscription: created with the team, kept in step with the plan. */
export async function createTeam(ctx: AppContext, input: { name: string; plan: string }): Promise<TeamRecord> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw new AppError('validation_failed', 'Team name must be 1–200 characters.');
  return ctx.db.transaction(async ({ em }) => {
    const plan = await getPlan(em, input.plan);
    const team = em.create(Team, { id: newId('team'), name, planId: plan.id, createdAt: new Date() });
    await em.flush(); // foreign keys are plain columns, so the unit of work cannot order the inserts itself
    const period = currentPeriod();
    em.create(Subscription, {
      id: newId('sub'),
      teamId: team.id,
      planId: plan.id,
      status: 'active',
      currentPeriodStart: period.start,
      currentPeriodEnd: period.end,
      cancelAtPeriodEnd: false,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    return team;
  });
}

/** The oldest team with this name (the dev bootstrap finds its team again by name). */
export async function findTeamByName(ctx: AppContext, name: string): Promise<TeamRecord | null> {
  return ctx.db.em().findOne(Team, { name }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

export async function findTeam(em: EntityManager, id: string): Promise<TeamRecord> {
  const team = await em.findOne(Team, { id });
  if (!team) throw new AppError('not_found', `Team "${id}" not found.`);
  return team;
}

export async function setTeamPlan(ctx: AppContext, teamId: string, planId: string): Promise<TeamRecord> {
  return ctx.db.transaction(async ({ em }) => {
    const team = await findTeam(em, teamId);
    const plan = await getPlan(em, planId);
    team.planId = plan.id;
    const subscription = await em.findOneOrFail(Subscription, { teamId });
    subscription.planId = plan.id;
    return team;
  });
}

export type TeamSummary = { id: string; name: string; plan: string; created_at: string; member_count: number; token_count: number };

/** Every team, oldest first, with how many members and usable tokens it has (operator listing). */
export async function listTeams(ctx: AppContext): Promise<TeamSummary[]> {
  const rows = await listTeamSummaries(ctx.db);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    plan: r.plan_id,
    created_at: iso(r.created_at),
    member_count: r.member_count,
    token_count: r.token_count,
  }));
}

/** A member as an operator sees them; `token_count` counts usable tokens (not revoked, not expired). */
export type MemberSummary = { id: string; email: string; name: string; role: string; joined_at: string; token_count: number };

export function toMemberSummary(r: MemberRow): MemberSummary {
  return { id: r.id, email: r.email, name: r.name, role: r.role, joined_at: iso(r.joined_at), token_count: r.token_count };
}

/** One team: plan, members with their roles, and its usable token count. */
export async function showTeam(
  ctx: AppContext,
  teamId: string,
): Promise<{ id: string; name: string; plan: string; created_at: string; token_count: number; members: MemberSummary[] }> {
  const team = await findTeam(ctx.db.em(), teamId);
  const members = (await listMembers(ctx.db, teamId)).map(toMemberSummary);
  return {
    id: team.id,
    name: team.name,
    plan: team.planId,
    created_at: iso(team.createdAt),
    token_count: members.reduce((n, m) => n + m.token_count, 0),
    members,
  };
}
