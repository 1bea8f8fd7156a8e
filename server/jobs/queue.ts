import { PgBoss, type Job, type Queue as QueueConfig } from 'pg-boss';
import type { PoolClient } from 'pg';
import type { Logger } from 'pino';
import type { z } from 'zod';

/** Queue settings a definition may carry (retries, expiry, dead letter queue). */
export type QueueOptions = Omit<QueueConfig, 'name' | 'policy' | 'partition'>;

/** A background job's queue: its name, payload schema and queue options (retries, expiry). */
export type JobDefinition<T> = {
  name: string;
  payload: z.ZodType<T>;
  queue: QueueOptions;
};

/** What a worker process runs for one queue. */
export type JobWorker<C, T = unknown> = {
  job: JobDefinition<T>;
  concurrency?: number;
  handler(ctx: C, data: T, job: Job<T>): Promise<void>;
};

export function worker<C, T>(job: JobDefinition<T>, handler: JobWorker<C, T>['handler'], concurrency?: number): JobWorker<C> {
  return { job, handler, concurrency } as JobWorker<C>;
}

export type SendOptions = { db?: PoolClient; singletonKey?: string; startAfter?: Date | number };

/**
 * pg-boss over the same Postgres: every process that writes can enqueue; workers poll and are woken by
 * LISTEN/NOTIFY so latency is not bound to the polling interval. `send` takes the caller's transaction
 * client so a job is created in the same transaction as the row that causes it.
 */
export type Queue = {
  boss: PgBoss;
  send<T>(job: JobDefinition<T>, data: T, opts?: SendOptions): Promise<string | null>;
  work<C>(ctx: C, workers: JobWorker<C>[]): Promise<void>;
  stop(): Promise<void>;
};

export async function startQueue(
  databaseUrl: string,
  log: Logger,
  jobs: Array<{ name: string; queue: QueueOptions }>,
  opts: { supervise: boolean },
): Promise<Queue> {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: 'pgboss',
    max: 6,
    useListenNotify: true,
    supervise: opts.supervise,
    schedule: opts.supervise,
  });
  boss.on('error', (err) => log.error({ err }, 'queue error'));
  await boss.start();
  for (const job of jobs) {
    const existing = await boss.getQueue(job.name);
    if (!existing) await boss.createQueue(job.name, { notify: true, ...job.queue });
    else await boss.updateQueue(job.name, { notify: true, ...job.queue });
  }
  return {
    boss,
    async send(job, data, sendOpts = {}) {
      const payload = job.payload.parse(data) as object;
      const { db, ...options } = sendOpts;
      return boss.send(job.name, payload, {
        ...options,
        ...(db ? { db: { executeSql: (text: string, values?: unknown[]) => db.query(text, values) } } : {}),
      });
    },
    async work(ctx, workers) {
      for (const w of workers) {
        await boss.work(
          w.job.name,
          { batchSize: 1, localConcurrency: w.concurrency ?? 4, pollingIntervalSeconds: 2, notifyPollingIntervalSeconds: 10 },
          async ([job]) => {
            const data = w.job.payload.parse(job!.data);
            await w.handler(ctx, data, job!);
          },
        );
      }
    },
    stop: () => boss.stop({ graceful: true, timeout: 10_000 }),
  };
}
