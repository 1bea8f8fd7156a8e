import type { AppContext } from '../context.ts';
import { sendNotification } from '../domain/notifications.ts';
import { markFailed, processSubmission } from '../domain/processing.ts';
import * as jobs from './definitions.ts';
import { worker, type JobWorker } from './queue.ts';

/** Every queue a worker process consumes, with its handler. */
export function workers(ctx: AppContext): JobWorker<AppContext>[] {
  return [
    worker(
      jobs.processSubmission,
      async (c: AppContext, data, job) => {
        try {
          await processSubmission(c, data.submissionId);
        } catch (err) {
          if (job.retryCount >= (jobs.processSubmission.queue.retryLimit ?? 0)) {
            c.log.error({ err, submissionId: data.submissionId }, 'processing failed for good; marking the submission failed');
            await markFailed(c, data.submissionId, (err as Error).message);
            return;
          }
          throw err;
        }
      },
      ctx.config.workerConcurrency,
    ),
    worker(jobs.notificationEmail, async (c: AppContext, data) => void (await sendNotification(c, data.submissionId)), 2),
    worker(jobs.deleteObjects, async (c: AppContext, data) => c.storage.remove(data.keys), 2),
  ];
}
