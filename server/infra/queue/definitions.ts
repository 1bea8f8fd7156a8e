import { z } from 'zod';
import type { JobDefinition } from './queue.ts';

/** Every queue Intake uses. Handlers live in jobs/workers.ts; senders import only these. */

/**
 * Where pg-boss puts a process-submission job it has given up on: its last attempt threw, or expired
 * because the worker holding it died. The handler marks the submission failed, so none stays
 * `received` for ever. Listed before its source queue in `allJobs`: a queue can only name an
 * existing dead letter queue.
 */
export const processSubmissionFailed: JobDefinition<SubmissionsToProcess> = {
  name: 'process-submission-failed',
  payload: z.union([z.object({ submissionId: z.string() }), z.object({ submissionIds: z.array(z.string()).min(1).max(1000) })]),
  queue: { retryLimit: 10, retryDelay: 30, retryBackoff: true, expireInSeconds: 60 },
};

/**
 * What one process-submission job processes: one submission, or the clean submissions one accepting statement
 * of the public endpoint stored together (a group commit's batch: one job row, its index entries and its
 * queue lock per batch instead of per post — issue 30). Processing is idempotent per submission (only a
 * `received` row is settled), so a retried batch skips what it already processed.
 */
export type SubmissionsToProcess = { submissionId: string } | { submissionIds: string[] };

export function submissionIdsOf(data: SubmissionsToProcess): string[] {
  return 'submissionIds' in data ? data.submissionIds : [data.submissionId];
}

/** `trusted`: a person marked the submission not spam; moderation may not move it back to spam. */
export const processSubmission: JobDefinition<{ submissionId: string; trusted?: boolean } | { submissionIds: string[] }> = {
  name: 'process-submission',
  payload: z.union([
    z.object({ submissionId: z.string(), trusted: z.boolean().optional() }),
    z.object({ submissionIds: z.array(z.string()).min(1).max(1000) }),
  ]),
  // AI moderation and categorisation; retried with backoff, then dead-lettered (marked failed).
  queue: { retryLimit: 4, retryDelay: 5, retryBackoff: true, expireInSeconds: 300, deadLetter: processSubmissionFailed.name },
};

export const notificationEmail: JobDefinition<{ submissionId: string }> = {
  name: 'notification-email',
  payload: z.object({ submissionId: z.string() }),
  queue: { retryLimit: 6, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
};

/** The autoresponder's e-mail to the submitter of a clean submission (queued by processing). */
export const autoresponseEmail: JobDefinition<{ submissionId: string }> = {
  name: 'autoresponse-email',
  payload: z.object({ submissionId: z.string() }),
  queue: { retryLimit: 6, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
};

/** The confirmation link for a notification address (queued when a form names an unconfirmed one). */
export const confirmAddressEmail: JobDefinition<{ teamId: string; formId: string; email: string }> = {
  name: 'confirm-address-email',
  payload: z.object({ teamId: z.string(), formId: z.string(), email: z.string() }),
  queue: { retryLimit: 6, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
};

/** An erasure request (`POST /v1/erasure`): resumable, batch by batch. */
export const eraseData: JobDefinition<{ erasureId: string }> = {
  name: 'erase-data',
  payload: z.object({ erasureId: z.string() }),
  queue: { retryLimit: 10, retryDelay: 10, retryBackoff: true, expireInSeconds: 3600 },
};

/** Daily: deletes what each form's retention says has aged out. */
export const retentionSweep: JobDefinition<Record<string, never>> = {
  name: 'retention-sweep',
  payload: z.object({}).strict() as z.ZodType<Record<string, never>>,
  queue: { retryLimit: 3, retryDelay: 300, expireInSeconds: 3600 },
};

/** Daily: folds the finished days' folder counters (domain/submissions.ts compactFolderCounts). */
export const compactFolderCounts: JobDefinition<Record<string, never>> = {
  name: 'compact-folder-counts',
  payload: z.object({}).strict() as z.ZodType<Record<string, never>>,
  queue: { retryLimit: 3, retryDelay: 300, expireInSeconds: 3600 },
};

/** Hourly: the notification digests of forms in `hourly` mode (and at 08:00 UTC those in `daily` mode). */
export const notificationDigests: JobDefinition<Record<string, never>> = {
  name: 'notification-digests',
  payload: z.object({}).strict() as z.ZodType<Record<string, never>>,
  queue: { retryLimit: 3, retryDelay: 60, expireInSeconds: 1800 },
};

export const deleteObjects: JobDefinition<{ keys: string[] }> = {
  name: 'delete-objects',
  payload: z.object({ keys: z.array(z.string()).max(1000) }),
  queue: { retryLimit: 10, retryDelay: 60, retryBackoff: true, expireInSeconds: 300 },
};

/**
 * One attempt of one webhook delivery (`attempt` from 1). Run by the delivery runner (jobs/delivery-runner.ts),
 * which settles the job in the transaction that records the attempt, and creates the next attempt's job there.
 * Jobs carry the delivery id as `singletonKey` (for the sweeper's lookup; the queue policy stays `standard`:
 * pg-boss's singleton policy skips keys active at its last monitor pass, which would hold a retry back for a
 * minute). An attempt is recorded only once (`attempts = expected`), so a duplicate job only settles.
 * The job expires well after the HTTP timeout, so a slow receiver is not sent the same attempt twice.
 */
export const deliverWebhook: JobDefinition<{ deliveryId: string; attempt: number }> = {
  name: 'deliver-webhook',
  payload: z.object({ deliveryId: z.string(), attempt: z.number().int().min(1) }),
  queue: { retryLimit: 20, retryDelay: 10, retryBackoff: true, retryDelayMax: 600, expireInSeconds: 180 },
};

/** A bulk replay (`POST /v1/webhooks/{id}/replay`): creates the replays batch by batch, resumable. */
export const replayWebhook: JobDefinition<{ jobId: string }> = {
  name: 'replay-webhook',
  payload: z.object({ jobId: z.string() }),
  queue: { retryLimit: 10, retryDelay: 10, retryBackoff: true, expireInSeconds: 900 },
};

/**
 * Turns the spam of forms whose webhooks subscribe to `submission.spam` into deliveries (domain/deliveries.ts
 * runSpamDeliveries), then queues itself again a moment later while any webhook subscribes. `stately`: at
 * most one waits and one runs, however many webhooks, maintenance passes and reruns queue it.
 */
export const spamDeliveries: JobDefinition<Record<string, never>> = {
  name: 'spam-deliveries',
  payload: z.object({}).strict() as z.ZodType<Record<string, never>>,
  queue: { retryLimit: 5, retryDelay: 5, expireInSeconds: 300 },
  policy: 'stately',
};

/** Every few minutes: re-queues deliveries whose attempt job was lost, prunes the log past its retention. */
export const deliveriesMaintenance: JobDefinition<Record<string, never>> = {
  name: 'deliveries-maintenance',
  payload: z.object({}).strict() as z.ZodType<Record<string, never>>,
  queue: { retryLimit: 2, retryDelay: 30, expireInSeconds: 600 },
};

/** Tells a team's owners and admins that the service deactivated one of their webhooks. */
export const webhookDeactivatedEmail: JobDefinition<{ webhookId: string }> = {
  name: 'webhook-deactivated-email',
  payload: z.object({ webhookId: z.string() }),
  queue: { retryLimit: 6, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
};

/**
 * Generates a team's weekly insights (the last full week before `at`), stores them, emits
 * `ai-insights.regenerated` and queues the digest e-mail. Queued by a regenerate call (under its 5-minute
 * lock) or by the weekly schedule (keyed by team and week, so a retried schedule queues nothing twice).
 */
export const generateInsights: JobDefinition<{ teamId: string; at?: string }> = {
  name: 'generate-insights',
  payload: z.object({ teamId: z.string(), at: z.string().datetime({ offset: true }).optional() }),
  // Kept 8 days once finished, not the minute other jobs are: the weekly schedule's key (team and week, a
  // 7-day singleton slot) is held by the finished job, so a retried schedule cannot queue a team's week twice.
  queue: { retryLimit: 3, retryDelay: 30, retryBackoff: true, expireInSeconds: 600, deleteAfterSeconds: 8 * 86_400 },
};

/** Monday 06:00 UTC: one generate-insights job per team whose plan has AI. */
export const weeklyInsights: JobDefinition<Record<string, never>> = {
  name: 'weekly-insights',
  payload: z.object({}).strict() as z.ZodType<Record<string, never>>,
  queue: { retryLimit: 2, retryDelay: 60, expireInSeconds: 600 },
};

/** The weekly digest e-mail of one stored insights row, to the team's owners and admins. */
export const insightsDigestEmail: JobDefinition<{ insightId: string }> = {
  name: 'insights-digest-email',
  payload: z.object({ insightId: z.string() }),
  queue: { retryLimit: 6, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
};

/** Jobs the one-statement ingest embeds (pg-boss's insert inside its own statement): verified when the queue starts. */
export const embeddableJobs = [
  { job: processSubmission as JobDefinition<unknown>, sample: { submissionId: 'subm_00000000000000000000000000' } },
  // Spam the form asks to be told about (notify_spam) carries its notification instead.
  { job: notificationEmail as JobDefinition<unknown>, sample: { submissionId: 'subm_00000000000000000000000000' } },
];

export const allJobs: JobDefinition<never>[] = [
  processSubmissionFailed,
  processSubmission,
  notificationEmail,
  autoresponseEmail,
  confirmAddressEmail,
  eraseData,
  retentionSweep,
  compactFolderCounts,
  notificationDigests,
  deleteObjects,
  deliverWebhook,
  replayWebhook,
  spamDeliveries,
  deliveriesMaintenance,
  webhookDeactivatedEmail,
  generateInsights,
  weeklyInsights,
  insightsDigestEmail,
] as JobDefinition<never>[];
