import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferEntity } from '@mikro-orm/core';
import type { AppContext } from '../context.ts';
import { Subscription, Team } from '../db/entities.ts';
import { AppError } from './errors.ts';
import { newId } from './ids.ts';
import { currentPeriod, getPlan } from './plans.ts';

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
