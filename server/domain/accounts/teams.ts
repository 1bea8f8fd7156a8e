import type { AppContext } from '../../context.ts';
import * as queries from '../../infra/db/queries/accounts.ts';
import type { MemberRow, TeamRecord } from '../../infra/db/queries/accounts.ts';
import { findPlan, insertSubscription, setSubscriptionPlan } from '../../infra/db/queries/billing.ts';
import type { Sql } from '../../infra/db/database.ts';
import { AppError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { currentPeriod, getPlan, type PlanRecord } from './plans.ts';
import { iso } from '../shared/timestamps.ts';

export type { TeamRecord };

/** A team always has a subscription: created with the team, kept in step with the plan. */
export async function createTeam(ctx: AppContext, input: { name: string; plan: string }): Promise<TeamRecord> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw new AppError('validation_failed', 'Team name must be 1–200 characters.');
  return ctx.db.transaction(async (tx) => {
    const plan = await getPlan(tx, input.plan);
    const team = await queries.insertTeam(tx, { id: newId('team'), name, planId: plan.id });
    const period = currentPeriod();
    await insertSubscription(tx, {
      id: newId('sub'),
      teamId: team.id,
      planId: plan.id,
      status: 'active',
      currentPeriodStart: period.start,
      currentPeriodEnd: period.end,
    });
    return team;
  });
}

/** The oldest team with this name (the dev bootstrap finds its team again by name). */
export async function findTeamByName(ctx: AppContext, name: string): Promise<TeamRecord | null> {
  return queries.findTeamByName(ctx.db, name);
}

export async function findTeam(on: Sql, id: string): Promise<TeamRecord> {
  const team = await queries.findTeam(on, id);
  if (!team) throw new AppError('not_found', `Team "${id}" not found.`);
  return team;
}

/** The plan the team is on (the team must exist: not_found otherwise). */
export async function findTeamPlan(on: Sql, teamId: string): Promise<PlanRecord> {
  const team = await findTeam(on, teamId);
  const plan = await findPlan(on, team.planId);
  if (!plan) throw new Error(`Team "${teamId}" is on plan "${team.planId}", which does not exist.`);
  return plan;
}

export async function setTeamPlan(ctx: AppContext, teamId: string, planId: string): Promise<TeamRecord> {
  return ctx.db.transaction(async (tx) => {
    await findTeam(tx, teamId);
    const plan = await getPlan(tx, planId);
    const team = await queries.setTeamPlan(tx, teamId, plan.id);
    await setSubscriptionPlan(tx, teamId, plan.id);
    return team;
  });
}

export type TeamSummary = {
  id: string;
  name: string;
  plan: string;
  created_at: string;
  member_count: number;
  token_count: number;
};

/** Every team, oldest first, with how many members and usable tokens it has (operator listing). */
export async function listTeams(ctx: AppContext): Promise<TeamSummary[]> {
  const rows = await queries.listTeamSummaries(ctx.db);
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
export type MemberSummary = {
  id: string;
  email: string;
  name: string;
  role: string;
  joined_at: string;
  token_count: number;
};

export function toMemberSummary(r: MemberRow): MemberSummary {
  return {
    id: r.id,
    email: r.email,
    name: r.name,
    role: r.role,
    joined_at: iso(r.joined_at),
    token_count: r.token_count,
  };
}

/** One team: plan, members with their roles, and its usable token count. */
export async function showTeam(
  ctx: AppContext,
  teamId: string,
): Promise<{
  id: string;
  name: string;
  plan: string;
  created_at: string;
  token_count: number;
  members: MemberSummary[];
}> {
  const team = await findTeam(ctx.db, teamId);
  const members = (await queries.listMembers(ctx.db, teamId)).map(toMemberSummary);
  return {
    id: team.id,
    name: team.name,
    plan: team.planId,
    created_at: iso(team.createdAt),
    token_count: members.reduce((n, m) => n + m.token_count, 0),
    members,
  };
}
