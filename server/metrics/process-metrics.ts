import type { Logger } from 'pino';
import type { PoolSource } from './database-pool.ts';
import { watchPool } from './database-pool.ts';
import { listenMetrics } from './endpoint.ts';
import { type QueueStat, watchQueues } from './jobs.ts';

/**
 * What a started process adds to its metrics: its database pool, the queue tables (when it has a queue),
 * and INTAKE_METRICS_PORT's listener when set. Returns what undoes it, for the process's shutdown.
 */
export async function startMetrics(
  opts: { host: string; port: number | undefined; log: Logger },
  parts: { db: PoolSource; queue: { stats(): Promise<QueueStat[]> } | null },
): Promise<() => Promise<void>> {
  const unwatchPool = watchPool(parts.db);
  const queue = parts.queue;
  const unwatchQueues = queue ? watchQueues(() => queue.stats(), () => parts.db.pool.waitingCount > 0) : () => {};
  const listener = opts.port === undefined ? null : await listenMetrics({ host: opts.host, port: opts.port });
  if (listener) opts.log.info({ url: listener.url }, 'metrics listening');
  return async () => {
    await listener?.close();
    unwatchQueues();
    unwatchPool();
  };
}
