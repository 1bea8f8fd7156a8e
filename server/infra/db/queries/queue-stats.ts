import type { Db } from '../database.ts';

export type QueueStatRow = {
  queue: string;
  waiting: number;
  running: number;
  deferred: number;
  oldestWaitingSeconds: number;
};

/** A scrape reads queue figures under this limit: it must never hold a connection long. */
const STATS_TIMEOUT_MS = 2_000;

/**
 * Every queue's live jobs in one statement: waiting, running, deferred, and the oldest due job's wait — of fresh
 * work only, since bulk replays (negative priority) are paced on purpose and a long wait there is not a stuck queue.
 */
export async function queueStats(db: Db, schema: string): Promise<QueueStatRow[]> {
  return db.transaction(async (tx) => {
    await tx.query(`set local statement_timeout = ${STATS_TIMEOUT_MS}`);
    const { rows } = await tx.query<QueueStatRow>(
      `select q.name as queue, coalesce(j.waiting, 0)::int as waiting, coalesce(j.running, 0)::int as running,
              coalesce(j.deferred, 0)::int as deferred, coalesce(extract(epoch from now() - j.oldest), 0)::float8 as "oldestWaitingSeconds"
         from ${schema}.queue q
         left join (select name,
                           count(*) filter (where state < 'active' and start_after <= now()) as waiting,
                           count(*) filter (where state = 'active') as running,
                           count(*) filter (where state < 'active' and start_after > now()) as deferred,
                           min(start_after) filter (where state < 'active' and start_after <= now() and priority >= 0) as oldest
                      from ${schema}.job where state <= 'active' group by name) j on j.name = q.name
        order by q.name`,
    );
    return rows;
  });
}
