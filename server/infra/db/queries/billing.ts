/** The owner of `plans`, `subscriptions` and `invoices`. */
import type { InferEntity } from '@mikro-orm/core';
import { Invoice, Plan, Subscription } from '../entities.ts';
import type { Sql, Tx } from '../database.ts';
import { entityManager } from './entity-manager.ts';

export type PlanRecord = InferEntity<typeof Plan>;
export type SubscriptionRecord = InferEntity<typeof Subscription>;
export type InvoiceRecord = InferEntity<typeof Invoice>;

export async function findPlan(on: Sql, id: string): Promise<PlanRecord | null> {
  return entityManager(on).findOne(Plan, { id });
}

export async function insertSubscription(
  tx: Tx,
  s: { id: string; teamId: string; planId: string; status: string; currentPeriodStart: Date; currentPeriodEnd: Date },
): Promise<SubscriptionRecord> {
  const subscription = entityManager(tx).create(Subscription, {
    ...s,
    cancelAtPeriodEnd: false,
    createdAt: new Date(),
    updatedAt: new Date(),
  });
  await entityManager(tx).flush();
  return subscription;
}

/** Every team has exactly one subscription (created with the team). */
export async function findSubscription(on: Sql, teamId: string): Promise<SubscriptionRecord> {
  return entityManager(on).findOneOrFail(Subscription, { teamId });
}

export async function setSubscriptionPlan(tx: Tx, teamId: string, planId: string): Promise<void> {
  const subscription = await entityManager(tx).findOneOrFail(Subscription, { teamId });
  subscription.planId = planId;
  await entityManager(tx).flush();
}

export async function setSubscriptionPeriod(
  on: Sql,
  teamId: string,
  period: { start: Date; end: Date },
): Promise<SubscriptionRecord> {
  const em = entityManager(on);
  const subscription = await em.findOneOrFail(Subscription, { teamId });
  subscription.currentPeriodStart = period.start;
  subscription.currentPeriodEnd = period.end;
  await em.flush();
  return subscription;
}

/** A team's invoices, newest first. */
export async function listInvoices(on: Sql, teamId: string): Promise<InvoiceRecord[]> {
  return entityManager(on).find(Invoice, { teamId }, { orderBy: { issuedAt: 'desc', id: 'desc' } });
}
