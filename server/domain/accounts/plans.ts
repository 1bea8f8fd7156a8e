import { z } from 'zod';
import { PlanId } from '../../../contract/billing.ts';
import { findPlan, type PlanRecord } from '../../infra/db/queries/billing.ts';
import type { Sql } from '../../infra/db/database.ts';
import { AppError } from '../shared/errors.ts';

export type { PlanRecord };
export { PlanId };
export type PlanIdValue = z.infer<typeof PlanId>;

export async function getPlan(on: Sql, id: string): Promise<PlanRecord> {
  const plan = await findPlan(on, id);
  if (!plan) throw new AppError('validation_failed', `Unknown plan "${id}".`);
  return plan;
}

/** The current billing period: the calendar month in UTC. */
export function currentPeriod(now = new Date()): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}
