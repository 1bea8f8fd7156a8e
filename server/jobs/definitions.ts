import { z } from 'zod';
import type { JobDefinition } from './queue.ts';

/** Every queue Intake uses. Handlers live in jobs/workers.ts; senders import only these. */

export const processSubmission: JobDefinition<{ submissionId: string }> = {
  name: 'process-submission',
  payload: z.object({ submissionId: z.string() }),
  // AI moderation and categorisation; retried with backoff, then the submission is marked failed.
  queue: { retryLimit: 4, retryDelay: 5, retryBackoff: true, expireInSeconds: 300 },
};

export const notificationEmail: JobDefinition<{ submissionId: string }> = {
  name: 'notification-email',
  payload: z.object({ submissionId: z.string() }),
  queue: { retryLimit: 6, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
};

export const deleteObjects: JobDefinition<{ keys: string[] }> = {
  name: 'delete-objects',
  payload: z.object({ keys: z.array(z.string()).max(1000) }),
  queue: { retryLimit: 10, retryDelay: 60, retryBackoff: true, expireInSeconds: 300 },
};

export const allJobs: JobDefinition<never>[] = [processSubmission, notificationEmail, deleteObjects] as JobDefinition<never>[];
