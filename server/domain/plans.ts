import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferEntity } from '@mikro-orm/core';
import { z } from 'zod';
import { PlanId } from '../../contract/billing.ts';
import { Plan } from '../db/entities.ts';
import { AppError } from './errors.ts';

export type PlanRecord = InferEntity<typeof Plan>;
export { PlanId };
export type PlanIdValue = z.infer<typeof PlanId>;

export async function getPlan(em: EntityManager, id: string): Promise<PlanRecord> {
  const plan = await em.findOne(Plan, { id });
  if (!plan) throw new AppError('validation_failed', `Unknown plan "${id}".`);
  return plan;
}

/** The current billing period: the calendar month in UTC. */
export function currentPeriod(now = new Date()): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}
