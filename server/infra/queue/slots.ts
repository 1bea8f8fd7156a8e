import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { countJob } from '../metrics/jobs.ts';
import type { JobWorker } from './types.ts';

/**
 * Starts each worker's slots (its concurrency, default 4). pg-boss waits out the polling interval after
 * every fetch, even one that found a job (at batchSize 1 it never bursts), so a backlog no NOTIFY wakes for
 * would be taken one job per slot per interval. Each slot is a pg-boss worker of its own that its handler
 * wakes once a job is done: it fetches the next at once, and only an empty fetch (or a failed job) leaves it
 * to polling and LISTEN. A failed attempt is logged with its job: the job table forgets finished jobs within
 * minutes (see queue.ts, finishedJobs), so the log is where a failure's error stays.
 */
export async function startWorkerSlots<C>(boss: PgBoss, ctx: C, log: Logger, workers: JobWorker<C>[], pollSeconds: number): Promise<void> {
  for (const w of workers) {
    for (let slot = 0; slot < (w.concurrency ?? 4); slot++) {
      let workerId: string | null = null;
      const options = { batchSize: 1, localConcurrency: 1, pollingIntervalSeconds: pollSeconds, ...(w.perGroup ? { groupConcurrency: w.perGroup } : {}) };
      workerId = await boss.work(w.job.name, options, async ([job]) => {
        await countJob(w.job.name, () => w.handler(ctx, w.job.payload.parse(job!.data), job!)).catch((err: unknown) => {
          log.warn({ err, queue: w.job.name, jobId: job!.id, attempt: job!.retryCount + 1 }, 'job failed; the queue retries it up to its retry limit');
          throw err;
        });
        if (workerId) boss.notifyWorker(workerId);
      });
    }
  }
}
