import { z } from 'zod';
import type { Tx } from '../db/database.ts';
import type { InsertItem, JobDefinition, Queue } from './queue.ts';

/** Every queue Intake uses. Handlers live in server/workers/handlers.ts; senders import only these. */

/**
 * Where pg-boss puts a process-submission job it has given up on: its last attempt threw, or expired
 * because the worker holding it died. The handler marks the submission failed, so none stays
 * `received` for ever. Listed before its source queue in `allJobs`: a queue can only name an
 * existing dead letter queue.
 */
export const processSubmissionFailed: JobDefinition<SubmissionsToProcess> = {
  name: 'process-submission-failed',
  payload: z.union([
    z.object({ submissionId: z.string(), teamId: z.string().optional() }),
    z.object({ submissionIds: z.array(z.string()).min(1).max(1000), teamId: z.string().optional() }),
  ]),
  queue: { retryLimit: 10, retryDelay: 30, retryBackoff: true, expireInSeconds: 60 },
};

/**
 * What one process-submission job processes: one submission, or the clean submissions one accepting statement
 * of the public endpoint stored together (a group commit's batch: one job row, its index entries and its
 * queue lock per batch rather than per post). Processing is idempotent per submission (only a `received`
 * row is settled), so a retried batch skips what it already processed. `teamId`: the submissions' team (a
 * job queued without it has its submissions' team looked up by id).
 */
export type SubmissionsToProcess =
  { submissionId: string; teamId?: string } | { submissionIds: string[]; teamId?: string };

export function submissionIdsOf(data: SubmissionsToProcess): string[] {
  return 'submissionIds' in data ? data.submissionIds : [data.submissionId];
}

/** `trusted`: a person marked the submission not spam; moderation may not move it back to spam. */
export const processSubmission: JobDefinition<
  { submissionId: string; trusted?: boolean; teamId?: string } | { submissionIds: string[]; teamId?: string }
> = {
  name: 'process-submission',
  payload: z.union([
    z.object({ submissionId: z.string(), trusted: z.boolean().optional(), teamId: z.string().optional() }),
    z.object({ submissionIds: z.array(z.string()).min(1).max(1000), teamId: z.string().optional() }),
  ]),
  // AI moderation and categorisation; retried with backoff, then dead-lettered (marked failed).
  queue: {
    retryLimit: 4,
    retryDelay: 5,
    retryBackoff: true,
    expireInSeconds: 300,
    deadLetter: processSubmissionFailed.name,
  },
};

/**
 * `rule`: a fired rule's `notify`, to its own addresses with its subject template, whatever the form's mode.
 * `teamId` (in this and the jobs below that name one submission): its team; without it, looked up by id.
 */
export const notificationEmail: JobDefinition<{
  submissionId: string;
  teamId?: string | undefined;
  rule?: { ruleId: string; to: string[]; subject: string | null } | undefined;
}> = {
  name: 'notification-email',
  payload: z.object({
    submissionId: z.string(),
    teamId: z.string().optional(),
    rule: z.object({ ruleId: z.string(), to: z.array(z.string()), subject: z.string().nullable() }).optional(),
  }),
  queue: { retryLimit: 6, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
};

/** A post stored as spam at the door of a form whose rules run on spam: the rules, then its notification. */
export const spamRulesJob: JobDefinition<{ submissionId: string; teamId?: string | undefined }> = {
  name: 'spam-rules',
  payload: z.object({ submissionId: z.string(), teamId: z.string().optional() }),
  queue: { retryLimit: 6, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
};

/** The autoresponder's e-mail to the submitter of a clean submission (queued by processing). */
export const autoresponseEmail: JobDefinition<{ submissionId: string; teamId?: string | undefined }> = {
  name: 'autoresponse-email',
  payload: z.object({ submissionId: z.string(), teamId: z.string().optional() }),
  queue: { retryLimit: 6, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
};

/** The confirmation link for a notification address (queued when a form names an unconfirmed one). */
export const confirmAddressEmail: JobDefinition<{ teamId: string; formId: string; email: string }> = {
  name: 'confirm-address-email',
  payload: z.object({ teamId: z.string(), formId: z.string(), email: z.string() }),
  queue: { retryLimit: 6, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
};

/**
 * An erasure request (`POST /v1/erasure`): resumable, batch by batch. `teamId`: the request's team (a job
 * queued without it has its request looked up by id).
 */
export const eraseData: JobDefinition<{ erasureId: string; teamId?: string | undefined }> = {
  name: 'erase-data',
  payload: z.object({ erasureId: z.string(), teamId: z.string().optional() }),
  queue: { retryLimit: 10, retryDelay: 10, retryBackoff: true, expireInSeconds: 3600 },
};

/** Daily: deletes what each form's retention says has aged out. */
export const retentionSweep: JobDefinition<Record<string, never>> = {
  name: 'retention-sweep',
  payload: z.object({}).strict() as z.ZodType<Record<string, never>>,
  queue: { retryLimit: 3, retryDelay: 300, expireInSeconds: 3600 },
};

/** Daily: folds the finished days' folder counters (domain/submissions/submissions.ts compactFolderCounts). */
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
 * Which attempt of which delivery a deliver-webhook job makes (`attempt` from 1), and the delivery's team
 * (a job queued without it has its delivery found by id alone).
 */
export type DeliveryAttempt = { deliveryId: string; attempt: number; teamId?: string | undefined };

/**
 * One attempt of one webhook delivery, made by the delivery loop (domain/delivery/runner.ts), which settles
 * the job in the transaction that records the attempt and queues the next one there. The delivery id is the
 * `singletonKey`, for maintenance's lookup of lost jobs; the policy stays `standard`, as pg-boss's singleton
 * policy would hold a retry back until its next monitor pass. The job expires well after the HTTP timeout.
 */
export const deliverWebhook: JobDefinition<DeliveryAttempt> = {
  name: 'deliver-webhook',
  payload: z.object({ deliveryId: z.string(), attempt: z.number().int().min(1), teamId: z.string().optional() }),
  queue: { retryLimit: 20, retryDelay: 10, retryBackoff: true, retryDelayMax: 600, expireInSeconds: 180 },
};

/**
 * deliver-webhook's two lanes. pg-boss fetches the highest priority first: fresh attempts go at 0, ahead of
 * any bulk backlog. Bulk attempts (a replay job's) go at negative priorities, in turns of BULK_TURN of one
 * team (turn n at -n; a team's next turn follows its last one waiting), so two teams' replays alternate turn
 * by turn. A bulk attempt retried or re-queued goes after every turn, so fast failures cannot jump the line.
 */
const BULK_TURN = 100;
const BULK_TURNS = { min: -1_000_000_000, max: -1 };
const BULK_RETRY_PRIORITY = -2_000_000_000;

/** The priorities the delivery loop fetches as fresh work and as bulk work (turns and bulk retries). */
export const ATTEMPT_LANES = { fresh: { min: 0 }, bulk: { max: -1 } };

/** An attempt job as the delivery loop fetched it: a bulk one has a negative priority and its team as group. */
export type AttemptJob = {
  id: string;
  retryCount: number;
  priority?: number;
  groupId?: string | null;
  data: DeliveryAttempt;
};

export function isBulkAttempt(job: AttemptJob): boolean {
  return (job.priority ?? 0) < 0;
}

/** Queues the first attempts of new deliveries in `tx`; `bulkTeam`: they are that team's bulk work, queued in its next turns. */
export async function queueFirstAttempts(
  queue: Queue,
  tx: Tx,
  first: Array<{ deliveryId: string; teamId: string; at: Date }>,
  bulkTeam?: string,
): Promise<void> {
  let turn = 0;
  if (bulkTeam && first.length) {
    const { head, tail } = await queue.bulkTurns(deliverWebhook, bulkTeam, BULK_TURNS, { tx });
    turn = Math.max(head === null ? 1 : -head, tail === null ? 1 : 1 - tail);
  }
  const items = first.map(({ deliveryId, teamId, at }, i) => ({
    data: { deliveryId, attempt: 1, teamId },
    singletonKey: deliveryId,
    startAfter: at,
    ...(bulkTeam ? { priority: Math.max(BULK_TURNS.min, -(turn + Math.floor(i / BULK_TURN))), group: bulkTeam } : {}),
  }));
  await queue.insert(deliverWebhook, items, { tx });
}

/**
 * The job that follows a fetched attempt job: after a `retry` the next attempt, after a `postpone` the same
 * attempt again. Bulk work stays bulk: a postponed attempt was not made and keeps its turn.
 */
export function nextAttemptJob(job: AttemptJob, kind: 'retry' | 'postpone', at: Date): InsertItem<DeliveryAttempt> {
  const { deliveryId, attempt, teamId } = job.data;
  const priority = kind === 'postpone' ? (job.priority ?? BULK_RETRY_PRIORITY) : BULK_RETRY_PRIORITY;
  return {
    data: { deliveryId, attempt: kind === 'retry' ? attempt + 1 : attempt, ...(teamId ? { teamId } : {}) },
    singletonKey: deliveryId,
    startAfter: at,
    ...(job.groupId ? { priority, group: job.groupId } : {}),
  };
}

/** An attempt of `teamId`'s delivery whose job was lost, queued again now; `bulk`: a replay job's delivery. */
export function requeuedAttemptJob(
  deliveryId: string,
  attempt: number,
  teamId: string,
  bulk: boolean,
): InsertItem<DeliveryAttempt> {
  const lane = bulk ? { priority: BULK_RETRY_PRIORITY, group: teamId } : {};
  return { data: { deliveryId, attempt, teamId }, singletonKey: deliveryId, ...lane };
}

/** A bulk replay (`POST /v1/webhooks/{id}/replay`): creates the replays batch by batch, resumable. */
export const replayWebhook: JobDefinition<{ jobId: string; teamId?: string | undefined }> = {
  name: 'replay-webhook',
  payload: z.object({ jobId: z.string(), teamId: z.string().optional() }),
  queue: { retryLimit: 10, retryDelay: 10, retryBackoff: true, expireInSeconds: 900 },
};

/**
 * Turns the spam of forms whose webhooks subscribe to `submission.spam` into deliveries (domain/delivery/fan-out.ts
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

/**
 * Tells a team's owners and admins that the service deactivated one of their webhooks. `at`: when (jobs queued
 * before it was sent have none); a job that finds the webhook still active this soon after is retried
 * (domain/shared/ids.ts, mayBeUnseenSince).
 */
export const webhookDeactivatedEmail: JobDefinition<{
  webhookId: string;
  teamId?: string | undefined;
  at?: string | undefined;
}> = {
  name: 'webhook-deactivated-email',
  payload: z.object({
    webhookId: z.string(),
    teamId: z.string().optional(),
    at: z.string().datetime({ offset: true }).optional(),
  }),
  queue: { retryLimit: 6, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
};

/**
 * A form reached its `max_submissions`: emits `form.closed` to the webhooks subscribed to it and e-mails the
 * form's notification addresses, queued by the post that filled the last place.
 */
export const formClosed: JobDefinition<{ formId: string; reason: 'limit_reached'; at: string }> = {
  name: 'form-closed',
  payload: z.object({
    formId: z.string(),
    reason: z.literal('limit_reached'),
    at: z.string().datetime({ offset: true }),
  }),
  queue: { retryLimit: 6, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
};

/**
 * Tells a member that a submission was assigned to them (by someone else). `byUserId` null: a rule of the form
 * assigned it. `at`: when (jobs queued before it was sent have none); a job that does not find the assignment
 * this soon after is retried (domain/shared/ids.ts, mayBeUnseenSince).
 */
export const assignmentEmail: JobDefinition<{
  submissionId: string;
  assigneeId: string;
  byUserId: string | null;
  teamId?: string | undefined;
  at?: string | undefined;
}> = {
  name: 'assignment-email',
  payload: z.object({
    submissionId: z.string(),
    assigneeId: z.string(),
    byUserId: z.string().nullable(),
    teamId: z.string().optional(),
    at: z.string().datetime({ offset: true }).optional(),
  }),
  queue: { retryLimit: 6, retryDelay: 30, retryBackoff: true, expireInSeconds: 120 },
};

/**
 * A form's unique rules changed: its clean submissions kept before claim their keys, so a new post repeating
 * one is a duplicate too. One per form at a time (later saves within the slot are read when it runs).
 */
export const uniqueKeysBackfill: JobDefinition<{ formId: string }> = {
  name: 'unique-keys-backfill',
  payload: z.object({ formId: z.string() }),
  queue: { retryLimit: 3, retryDelay: 30, retryBackoff: true, expireInSeconds: 600 },
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
  // Spam of a form whose rules run on spam carries the job that runs them.
  { job: spamRulesJob as JobDefinition<unknown>, sample: { submissionId: 'subm_00000000000000000000000000' } },
];

export const allJobs: JobDefinition<never>[] = [
  processSubmissionFailed,
  processSubmission,
  notificationEmail,
  spamRulesJob,
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
  formClosed,
  assignmentEmail,
  uniqueKeysBackfill,
  generateInsights,
  weeklyInsights,
  insightsDigestEmail,
] as JobDefinition<never>[];
