import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { countJob } from '../metrics/jobs.ts';
import type { JobWorker } from './types.ts';

/**
 * Starts each worker's slots, each a pg-boss worker its handler wakes once a job is done: pg-boss otherwise
 * waits out the polling interval after every fetch, taking a backlog one job per interval. A failed attempt
 * is logged, since the job table forgets finished jobs within minutes.
 */
export async function startWorkerSlots<C>(
  boss: PgBoss,
  ctx: C,
  log: Logger,
  workers: JobWorker<C>[],
  pollSeconds: number,
): Promise<void> {
  for (const w of workers) {
    for (let slot = 0; slot < (w.concurrency ?? 4); slot++) {
      let workerId: string | null = null;
      const options = {
        batchSize: 1,
        localConcurrency: 1,
        pollingIntervalSeconds: pollSeconds,
        ...(w.perGroup ? { groupConcurrency: w.perGroup } : {}),
      };
      workerId = await boss.work(w.job.name, options, async ([job]) => {
        await countJob(w.job.name, () => w.handler(ctx, w.job.payload.parse(job!.data), job!)).catch((err: unknown) => {
          log.warn(
            { err, queue: w.job.name, jobId: job!.id, attempt: job!.retryCount + 1 },
            'job failed; the queue retries it up to its retry limit',
          );
          throw err;
        });
        if (workerId) boss.notifyWorker(workerId);
      });
    }
  }
}
