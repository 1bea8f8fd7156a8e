import type { z } from 'zod';
import type { ReplayWebhookBody } from '../../../contract/webhooks.ts';
import type { AppContext } from '../../context.ts';
import { findDelivery } from '../../infra/db/queries/deliveries.ts';
import {
  countReplayable,
  nextReplayBatch,
  waitingReplays,
  type ReplayFilter,
} from '../../infra/db/queries/delivery-replays.ts';
import * as jobQueries from '../../infra/db/queries/jobs.ts';
import { replayWebhook } from '../../infra/queue/definitions.ts';
import type { Caller } from '../accounts/caller.ts';
import { takeReplayAllowance } from '../accounts/rate-windows.ts';
import { AppError, notFound, validationFailed } from '../shared/errors.ts';
import { mayBeUnseen, newId } from '../shared/ids.ts';
import { requireWebhook } from '../webhooks/webhooks.ts';
import { queueDeliveries } from './schedule.ts';

/** A bulk replay takes at most this many deliveries; narrow `since`/`until` for more. */
const REPLAY_JOB_LIMIT = 10_000;
const REPLAY_BATCH = 500;
/**
 * A replay job keeps at most this many of its deliveries waiting for a first attempt: it queues the next
 * batch only as workers drain them, and otherwise hands itself back to the queue for REPLAY_PAUSE_SECONDS,
 * so its writes go at the pace its deliveries go out rather than in one burst that every team waits behind.
 */
const REPLAY_WINDOW = 1_000;
const REPLAY_PAUSE_SECONDS = 2;

const inactive = () =>
  new AppError('webhook_inactive', 'The webhook is inactive: activate it (PUT active: true) before replaying.');

/**
 * A replay is a new delivery: same webhook, submission, body bytes and media type, attempts from 1, signed when sent
 * with the webhook's current secret. The original row and the submission stay as they are.
 */
export async function replayDelivery(
  ctx: AppContext,
  caller: Caller,
  deliveryId: string,
  scope: { formId?: string; webhookId?: string } = {},
): Promise<string> {
  const original = await findDelivery(ctx.db, caller.teamId, deliveryId, scope);
  if (!original || original.webhook_deleted) throw notFound('Delivery');
  if (original.request_body === null && original.error?.startsWith('template_error'))
    throw new AppError(
      'conflict',
      'This delivery sent nothing: its body template could not be rendered. Fix the template; later submissions use it.',
    );
  if (original.request_body === null)
    throw new AppError(
      'submission_deleted',
      'The submission of this delivery was deleted; there is nothing to replay.',
    );
  if (!original.webhook_active) throw inactive();
  return ctx.db.transaction(async (tx) => {
    const [id] = await queueDeliveries(ctx, tx, [
      {
        id: newId('whd'),
        team_id: original.team_id,
        webhook_id: original.webhook_id,
        event: original.event,
        submission_id: original.submission_id,
        request_body: original.request_body!,
        content_type: original.content_type,
        next_attempt_at: new Date(),
        replay_of: original.id,
      },
    ]);
    return id!;
  });
}

/**
 * Queues a bulk replay job (at most REPLAY_JOB_LIMIT deliveries), returned at once; `runReplayJob` does the
 * work. It takes the latest delivery of each submission (so what a replay already fixed is not sent again),
 * filtered by status and creation time; deliveries of deleted submissions have no body and are left out, and
 * so are test calls' deliveries, which are no event of the webhook's.
 */
export async function startWebhookReplay(
  ctx: AppContext,
  caller: Caller,
  webhookId: string,
  input: z.infer<typeof ReplayWebhookBody>,
): Promise<string> {
  const webhook = await requireWebhook(ctx, caller, webhookId);
  if (!webhook.active) throw inactive();
  const filter = { webhookId, status: input.status, since: input.since, until: input.until };
  const total = await countReplayable(ctx.db, { ...filter, teamId: caller.teamId });
  if (total > REPLAY_JOB_LIMIT) {
    throw validationFailed(
      [
        {
          in: 'body',
          path: 'since',
          message: `Matches ${total} deliveries; narrow since/until to at most ${REPLAY_JOB_LIMIT}.`,
        },
      ],
      `A replay job takes at most ${REPLAY_JOB_LIMIT} deliveries; this one matches ${total}.`,
    );
  }
  return ctx.db.transaction(async (tx) => {
    const job = await jobQueries.insertJob(tx, {
      id: newId('job'),
      teamId: caller.teamId,
      type: 'webhook_replay',
      params: filter,
      total,
      createdBy: caller.tokenId,
    });
    await ctx.queue.send(replayWebhook, { jobId: job.id, teamId: caller.teamId }, { tx });
    return job.id;
  });
}

/**
 * The bulk replay job: batch by batch, each batch's replays, their jobs and the progress in one transaction,
 * so a worker killed half-way resumes where it stopped and never replays a delivery twice (one replay per
 * original and job, enforced by a unique index). Its deliveries are the team's bulk work. A job whose record
 * is not found within a minute of its making is retried (shared/ids.ts, mayBeUnseen).
 */
export async function runReplayJob(ctx: AppContext, jobId: string, teamId?: string): Promise<void> {
  const job = await jobQueries.findJob(ctx.db, jobId, teamId);
  if (!job && mayBeUnseen(jobId)) throw new Error('the replay is not visible yet; the job is retried');
  if (!job || job.finished_at) return;
  const team = job.team_id;
  await jobQueries.startJob(ctx.db, jobId, team);
  const filter = { ...(job.params as unknown as ReplayFilter), teamId: team };
  for (;;) {
    const waiting = await waitingReplays(ctx.db, team, jobId, REPLAY_WINDOW);
    if (waiting.n >= REPLAY_WINDOW) {
      await ctx.queue.send(replayWebhook, { jobId, teamId: team }, { startAfter: REPLAY_PAUSE_SECONDS });
      return;
    }
    // The team's pace (INTAKE_REPLAY_TEAM_RATE): spent, the job comes back when the allowance renews.
    const { granted, resetSeconds } = await takeReplayAllowance(ctx, team, REPLAY_BATCH);
    if (!granted) {
      await ctx.queue.send(replayWebhook, { jobId, teamId: team }, { startAfter: resetSeconds });
      return;
    }
    const more = await ctx.db.transaction(async (tx) => {
      const batch = await nextReplayBatch(tx, filter, jobId, granted);
      const at = replayDueTimes(ctx, waiting.last_due_ms);
      const rows = batch.map((d, i) => ({
        id: newId('whd'),
        team_id: job.team_id,
        webhook_id: filter.webhookId,
        event: d.event,
        submission_id: d.submission_id,
        request_body: d.request_body,
        content_type: d.content_type,
        next_attempt_at: at(i),
        replay_of: d.id,
        replay_job_id: jobId,
      }));
      const queued = await queueDeliveries(ctx, tx, rows, job.team_id);
      await jobQueries.addProgress(tx, jobId, queued.length, [], team);
      return batch.length === granted;
    });
    if (!more) break;
  }
  await jobQueries.finishJob(ctx.db, jobId, 'succeeded', team);
}

/**
 * When a batch's replays are due: one every 1 / INTAKE_REPLAY_TEAM_RATE s, after the job's last one still
 * waiting (else from now), so its batches make one even stream rather than bursts that other teams'
 * requests queue behind.
 */
function replayDueTimes(ctx: AppContext, lastDueMs: number | null): (i: number) => Date {
  const spacing = 1000 / ctx.config.replayTeamRate;
  const from = Math.max(Date.now(), lastDueMs === null ? 0 : lastDueMs + spacing);
  return (i) => new Date(from + Math.floor(i * spacing));
}
