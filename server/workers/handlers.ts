import { sendAssignmentNotice } from '../domain/notifications/assignment.ts';
import type { AppContext } from '../context.ts';
import { runSpamDeliveries } from '../domain/delivery/fan-out.ts';
import { maintainDeliveries, sendDeactivationNotice } from '../domain/delivery/maintenance.ts';
import { runReplayJob } from '../domain/delivery/replay.ts';
import { announceFormClosed } from '../domain/forms/closed-notice.ts';
import { generateInsights, queueWeeklyInsights, sendInsightsDigest } from '../domain/insights/insights.ts';
import { sendAutoresponse } from '../domain/notifications/autoresponder.ts';
import { runErasure } from '../domain/lifecycle/erasure.ts';
import { sweepRetention } from '../domain/lifecycle/retention.ts';
import { sendConfirmation } from '../domain/notifications/addresses.ts';
import { sendDigests, sendNotification } from '../domain/notifications/notifications.ts';
import { markFailed, processSubmissions, recordProcessingError } from '../domain/submissions/processing.ts';
import { runSpamRules } from '../domain/rules/spam-rules.ts';
import { compactFolderCounts } from '../domain/submissions/submissions.ts';
import { backfillUniqueKeys } from '../domain/submissions/unique-keys.ts';
import { countVerdict } from '../infra/metrics/public-posts.ts';
import * as jobs from '../infra/queue/definitions.ts';
import { worker, type JobWorker } from '../infra/queue/queue.ts';

/** Every queue a worker process consumes, with its handler (webhook attempts have their own loop, the delivery runner). */
export function workers(ctx: AppContext): JobWorker<AppContext>[] {
  return [
    worker(
      jobs.processSubmission,
      async (c: AppContext, data, job) => {
        const trusted = 'trusted' in data && data.trusted === true;
        const teamId = data.teamId;
        // A batch's submissions each get their attempt: one that fails does not hold back the others.
        let failure: unknown = null;
        for (const result of await processSubmissions(c, jobs.submissionIdsOf(data), { trusted, teamId })) {
          if ('outcome' in result) {
            countVerdict(result.outcome);
            continue;
          }
          // pg-boss retries the job, and dead-letters it after the last attempt (see below); a retried batch
          // skips the submissions it already settled.
          const { submissionId, error } = result;
          c.log.warn({ err: error, submissionId, attempt: job.retryCount + 1 }, 'processing attempt failed');
          await recordProcessingError(c, submissionId, (error as Error).message, teamId).catch(() => {});
          failure ??= error;
        }
        if (failure) throw failure;
      },
      ctx.config.workerConcurrency,
    ),
    worker(
      jobs.processSubmissionFailed,
      async (c: AppContext, data) => {
        // Only those still `received`: a batch's others were processed.
        for (const submissionId of jobs.submissionIdsOf(data)) {
          if (await markFailed(c, submissionId, data.teamId))
            c.log.error({ submissionId }, 'processing failed for good; submission marked failed');
        }
      },
      1,
    ),
    worker(
      jobs.notificationEmail,
      async (c: AppContext, data) =>
        void (await sendNotification(c, data.submissionId, data.rule, Date.now(), data.teamId)),
      2,
    ),
    worker(
      jobs.autoresponseEmail,
      async (c: AppContext, data) => void (await sendAutoresponse(c, data.submissionId, data.teamId)),
      2,
    ),
    worker(jobs.confirmAddressEmail, async (c: AppContext, data) => sendConfirmation(c, data), 1),
    worker(jobs.notificationDigests, async (c: AppContext) => void (await sendDigests(c)), 1),
    // Two slots, one per team: another team's erasure never waits behind a long one.
    worker(jobs.eraseData, async (c: AppContext, data) => runErasure(c, data.erasureId, data.teamId), 2, 1),
    worker(
      jobs.retentionSweep,
      async (c: AppContext) => {
        const swept = await sweepRetention(c);
        if (swept.submissions) c.log.info(swept, 'retention: aged-out submissions deleted');
      },
      1,
    ),
    worker(
      jobs.compactFolderCounts,
      async (c: AppContext) => {
        const compacted = await compactFolderCounts(c);
        if (compacted.days) c.log.info(compacted, 'folder counters compacted');
      },
      1,
    ),
    worker(jobs.deleteObjects, async (c: AppContext, data) => c.storage.remove(data.keys), 2),
    worker(jobs.replayWebhook, async (c: AppContext, data) => runReplayJob(c, data.jobId, data.teamId), 2),
    worker(jobs.spamDeliveries, async (c: AppContext) => void (await runSpamDeliveries(c)), 1),
    worker(
      jobs.deliveriesMaintenance,
      async (c: AppContext) => {
        const done = await maintainDeliveries(c);
        if (done.requeued || done.pruned) c.log.info(done, 'deliveries maintained');
      },
      1,
    ),
    worker(jobs.uniqueKeysBackfill, async (c: AppContext, data) => void (await backfillUniqueKeys(c, data.formId)), 1),
    worker(
      jobs.webhookDeactivatedEmail,
      async (c: AppContext, data) => void (await sendDeactivationNotice(c, data.webhookId, data.teamId, data.at)),
      1,
    ),
    worker(jobs.formClosed, async (c: AppContext, data) => void (await announceFormClosed(c, data)), 1),
    worker(jobs.assignmentEmail, async (c: AppContext, data) => void (await sendAssignmentNotice(c, data)), 1),
    worker(
      jobs.spamRulesJob,
      async (c: AppContext, data) => void (await runSpamRules(c, data.submissionId, data.teamId)),
      1,
    ),
    worker(
      jobs.generateInsights,
      async (c: AppContext, data) =>
        void (await generateInsights(c, data.teamId, data.at ? new Date(data.at) : new Date())),
      1,
    ),
    worker(jobs.weeklyInsights, async (c: AppContext) => void (await queueWeeklyInsights(c)), 1),
    worker(
      jobs.insightsDigestEmail,
      async (c: AppContext, data) => void (await sendInsightsDigest(c, data.insightId)),
      1,
    ),
  ];
}
