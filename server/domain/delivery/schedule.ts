import type { AppContext } from '../../context.ts';
import type { Tx } from '../../infra/db/database.ts';
import { insertDeliveries, type NewDelivery } from '../../infra/db/queries/deliveries.ts';
import { queueFirstAttempts } from '../../infra/queue/definitions.ts';

/**
 * Seconds to wait before attempt `attempt` (2…n) after the previous one failed: the schedule's slot ±20 %
 * jitter. A `Retry-After` can push it later, up to the slot after it (never sooner than the schedule).
 */
export function attemptDelay(
  schedule: number[],
  attempt: number,
  retryAfter: number | null,
  random: () => number = Math.random,
): number {
  const base = schedule[attempt - 1] ?? schedule[schedule.length - 1] ?? 0;
  const jittered = base * (0.8 + 0.4 * random());
  if (retryAfter === null) return jittered;
  const ceiling = Math.max(base, schedule[attempt] ?? base);
  return Math.max(jittered, Math.min(retryAfter, ceiling));
}

/** When a new delivery's first attempt is due: the schedule's first slot, jittered. */
export function firstAttemptAt(ctx: AppContext): Date {
  return new Date(Date.now() + attemptDelay(ctx.config.deliverySchedule, 1, null) * 1000);
}

/**
 * Inserts deliveries and their first attempts' jobs in the caller's transaction, so none is lost; returns the
 * ids inserted (a bulk replay's rows already made are skipped). A row with an `error` is made dead, with no
 * attempt. `bulkTeam`: the team's bulk work.
 */
export async function queueDeliveries(
  ctx: AppContext,
  tx: Tx,
  rows: NewDelivery[],
  bulkTeam?: string,
): Promise<string[]> {
  const ids = await insertDeliveries(tx, rows);
  const due = new Map(rows.flatMap((r) => (r.error ? [] : [[r.id, r] as const])));
  await queueFirstAttempts(
    ctx.queue,
    tx,
    ids.flatMap((id) => {
      const row = due.get(id);
      return row ? [{ deliveryId: id, teamId: row.team_id, at: row.next_attempt_at }] : [];
    }),
    bulkTeam,
  );
  return ids;
}
