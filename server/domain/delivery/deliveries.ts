import type { z } from 'zod';
import { PROVIDER_PACE, type DELIVERY_EVENTS, type DeliveryListQuery, type ReplayWebhookBody } from '../../../contract/webhooks.ts';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../infra/db/database.ts';
import * as queries from '../../infra/db/queries/deliveries.ts';
import * as jobQueries from '../../infra/db/queries/jobs.ts';
import {
  anySpamSubscriber,
  deactivateWebhook,
  failingFor,
  findWebhook,
  lockSpamSubscribers,
  pauseWebhook,
  setSpamPosition,
  takeSendSlot,
  teamWebhooksFor,
  webhooksFor,
  type TargetRow,
} from '../../infra/db/queries/webhooks.ts';
import { deliverWebhook, replayWebhook, spamDeliveries, webhookDeactivatedEmail } from '../../infra/queue/definitions.ts';
import { renderBody, type InsightsEvent, type Provider, type SubmissionEvent } from '../../infra/outbound/providers.ts';
import type { Sender } from '../../infra/outbound/sender.ts';
import { decryptSecret, signatureHeaders } from '../../infra/outbound/signing.ts';
import type { Caller } from '../accounts/caller.ts';
import { AppError, notFound, validationFailed } from '../shared/errors.ts';
import { EXPORT_LINK_SECONDS, fileLink } from '../submissions/file-links.ts';
import { isId, newId } from '../shared/ids.ts';
import { takeReplayAllowance } from '../accounts/rate-windows.ts';
import { iso } from '../shared/timestamps.ts';
import { matchesFilter } from '../webhooks/filters.ts';

/** A bulk replay takes at most this many deliveries; narrow `since`/`until` for more. */
export const REPLAY_JOB_LIMIT = 10_000;
const REPLAY_BATCH = 500;
/**
 * A replay job keeps at most this many of its deliveries waiting for a first attempt: it queues the next
 * batch only as workers drain them, and otherwise hands itself back to the queue for REPLAY_PAUSE_SECONDS.
 * 10,000 rows and jobs written in one burst cost every team's posts and deliveries seconds of Postgres;
 * a window keeps the replay's writes at the pace its deliveries go out.
 */
const REPLAY_WINDOW = 1_000;
const REPLAY_PAUSE_SECONDS = 2;

/**
 * Bulk work (a replay job's deliveries) must not hold back anyone else's deliveries, and pg-boss fetches
 * the highest priority first, then the oldest. Every other attempt has priority 0, so a fresh delivery
 * is taken before any bulk attempt however long the bulk queue. Bulk attempts are queued in turns of
 * BULK_TURN deliveries of one team, turn n at priority -n: a team's next turn is the one after its last
 * waiting turn, and never earlier than the turn being served. Two teams' replays thus alternate turn by
 * turn (the earlier-queued first within a turn), however many deliveries or webhooks each has, while
 * every bulk attempt is queued at once, so a replay alone runs as fast as before.
 */
const BULK_TURN = 100;
/** The turns' range of priorities (turn 1 at -1). */
const BULK_TURNS = { min: -1_000_000_000, max: -1 };
/**
 * A bulk attempt that failed and is retried, or one re-queued by maintenance, goes after every team's
 * waiting turns: a replay to a receiver that fails fast would otherwise put its retries ahead of other
 * teams' turns, wave after wave.
 */
const BULK_RETRY_PRIORITY = -2_000_000_000;

/**
 * Which attempt jobs a worker fetches as fresh work (every priority from 0 up) and which as bulk work (every
 * negative priority: turns and bulk retries), so it can bound the bulk ones (see jobs/delivery-runner.ts).
 */
export const FRESH_PRIORITIES = { min: 0 };
export const BULK_PRIORITIES = { max: -1 };

export function deliveryView(r: queries.DeliveryRow) {
  return {
    id: r.id,
    webhook_id: r.webhook_id,
    event: r.event as (typeof DELIVERY_EVENTS)[number],
    status: r.status,
    http_status: r.http_status,
    attempts: r.attempts,
    duration_ms: r.duration_ms,
    submission_id: r.submission_id,
    request_body: r.request_body === null ? null : (JSON.parse(r.request_body) as Record<string, unknown>),
    response_body: r.response_body,
    error: r.error,
    delivered_at: iso(r.delivered_at),
    next_attempt_at: iso(r.next_attempt_at),
    replay_of: r.replay_of,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/**
 * Seconds to wait before attempt `attempt` (2…n) after the previous one failed: the schedule's slot ±20 %
 * jitter. A `Retry-After` can push it later, up to the slot after it (never sooner than the schedule).
 */
export function attemptDelay(schedule: number[], attempt: number, retryAfter: number | null, random: () => number = Math.random): number {
  const base = schedule[attempt - 1] ?? schedule[schedule.length - 1] ?? 0;
  const jittered = base * (0.8 + 0.4 * random());
  if (retryAfter === null) return jittered;
  const ceiling = Math.max(base, schedule[attempt] ?? base);
  return Math.max(jittered, Math.min(retryAfter, ceiling));
}

/** A submission event (`submission.created` by default), as every provider renders it; files as signed links valid 7 days. */
export function submissionEvent(ctx: AppContext, s: queries.SubmissionEventRow, type: SubmissionEvent['type'] = 'submission.created'): SubmissionEvent {
  const scope = { teamId: s.team_id, formId: s.form_id, expires: Math.floor(Date.now() / 1000) + EXPORT_LINK_SECONDS };
  return {
    type,
    submission_id: s.id,
    form_id: s.form_id,
    form_name: s.form_name,
    received_at: iso(s.received_at),
    payload: s.payload,
    files: s.files.map((f) => ({ ...f, url: fileLink(ctx.config.baseUrl, ctx.keys.linkSigning, f.id, scope) })),
    meta: { category: s.category, score: s.score, referrer: s.referrer, user_agent: s.user_agent },
    ...(type === 'submission.spam' ? { spam_reason: s.spam_reason } : {}),
  };
}

/**
 * Inserts the deliveries and their first attempts' jobs in the caller's transaction; returns the ids.
 * `bulk`: they are a team's bulk work, queued in its next turns (see BULK_TURN).
 */
async function queueDeliveries(ctx: AppContext, tx: Tx, rows: queries.NewDelivery[], bulk?: { teamId: string }): Promise<string[]> {
  const ids = await queries.insertDeliveries(tx, rows);
  let turn = 0;
  if (bulk && ids.length) {
    const { head, tail } = await ctx.queue.bulkTurns(deliverWebhook, bulk.teamId, BULK_TURNS, { tx });
    turn = Math.max(head === null ? 1 : -head, tail === null ? 1 : 1 - tail);
  }
  const at = new Map(rows.map((r) => [r.id, r.next_attempt_at]));
  await ctx.queue.insert(
    deliverWebhook,
    ids.map((id, i) => ({
      data: { deliveryId: id, attempt: 1 },
      singletonKey: id,
      startAfter: at.get(id)!,
      ...(bulk ? { priority: Math.max(BULK_TURNS.min, -(turn + Math.floor(i / BULK_TURN))), group: bulk.teamId } : {}),
    })),
    { tx },
  );
  return ids;
}

function firstAttemptAt(ctx: AppContext): Date {
  return new Date(Date.now() + attemptDelay(ctx.config.deliverySchedule, 1, null) * 1000);
}

function newDeliveries(ctx: AppContext, targets: TargetRow[], event: SubmissionEvent | InsightsEvent, submissionId: string | null): queries.NewDelivery[] {
  const at = firstAttemptAt(ctx);
  return targets.map((t) => ({
    id: newId('whd'),
    team_id: t.team_id,
    webhook_id: t.id,
    event: event.type,
    submission_id: submissionId,
    request_body: renderBody(t.provider as Provider, event, t.config),
    next_attempt_at: at,
  }));
}

/** The webhooks whose filter the submission meets. */
function matching(targets: TargetRow[], row: queries.SubmissionEventRow, status: 'processed' | 'spam'): TargetRow[] {
  return targets.filter((t) => matchesFilter(t.filter, { payload: row.payload, category: row.category, status }));
}

/**
 * A submission became `processed`: one delivery per active webhook of its form subscribed to
 * `submission.created` whose filter it meets, created in the same transaction (with their jobs), so none is
 * lost. A webhook that already has this submission's delivery from an earlier pass through processing (it
 * was set back to `received`) gets none: replay is the way to send it again.
 */
export async function createSubmissionDeliveries(ctx: AppContext, tx: Tx, submissionId: string, formId: string): Promise<number> {
  const subscribed = await webhooksFor(tx, formId, 'submission.created', submissionId);
  if (!subscribed.length) return 0;
  const row = await queries.submissionForEvent(tx, submissionId);
  if (!row) return 0;
  const targets = matching(subscribed, row, 'processed');
  return (await queueDeliveries(ctx, tx, newDeliveries(ctx, targets, submissionEvent(ctx, row), submissionId))).length;
}

/** How many webhooks one transaction of the spam-deliveries job serves, and how many of a form's spam events it reads at once. */
const SPAM_WEBHOOKS_PER_TX = 20;
const SPAM_EVENTS_PER_READ = 200;
/**
 * A webhook's spam position is written when events were read, and otherwise only once it is this old: every
 * run would cost a row update per subscriber, and a position never moved would make each read of a form
 * without spam scan its processed submissions since the subscription.
 */
const SPAM_POSITION_REFRESH_MS = 60_000;
/** The spam-deliveries job runs again this many seconds after it finished, while any webhook subscribes to spam. */
export const SPAM_DELIVERY_INTERVAL_SECONDS = 2;

/**
 * The spam-deliveries job: for each webhook subscribed to `submission.spam`, the spam its form stored since
 * the webhook's position (at the door, or by moderation — the submission stream's `spam` events), filtered,
 * becomes deliveries; the position moves on in the same transaction, so an event is sent once. The public
 * endpoint's insert does nothing for it (its spam rows carry `stream_xid` already). Webhooks another worker
 * holds are skipped. Returns the deliveries created.
 */
export async function runSpamDeliveries(ctx: AppContext): Promise<number> {
  let created = 0;
  let after: string | null = null;
  // One read per webhook per run: a form flooded with spam must not hold one transaction (and every other
  // team's spam webhooks) for its whole backlog; the rest goes in the next run, queued at once.
  let backlog = false;
  for (;;) {
    const served = await ctx.db.transaction(async (tx) => {
      const hooks = await lockSpamSubscribers(tx, SPAM_WEBHOOKS_PER_TX, after);
      for (const hook of hooks) {
        const batch = await queries.spamEventsAfter(tx, hook.form_id, hook.spam_position, SPAM_EVENTS_PER_READ);
        backlog ||= batch.more;
        const at = firstAttemptAt(ctx);
        const rows = batch.rows.flatMap((row) =>
          matching([hook], row, 'spam').map((t) => ({
            id: newId('whd'),
            team_id: t.team_id,
            webhook_id: t.id,
            event: 'submission.spam',
            submission_id: row.id,
            request_body: renderBody(t.provider as Provider, submissionEvent(ctx, row, 'submission.spam'), t.config),
            next_attempt_at: at,
          })),
        );
        created += (await queueDeliveries(ctx, tx, rows)).length;
        if (batch.rows.length > 0 || Date.now() - (hook.spam_position.at ?? 0) > SPAM_POSITION_REFRESH_MS) {
          await setSpamPosition(tx, hook.id, { ...batch.next, at: Date.now() });
        }
      }
      return hooks;
    });
    if (served.length < SPAM_WEBHOOKS_PER_TX) break;
    after = served[served.length - 1]!.id;
  }
  if (backlog || (await anySpamSubscriber(ctx.db))) {
    await ctx.queue.send(spamDeliveries, {}, { startAfter: backlog ? 0 : SPAM_DELIVERY_INTERVAL_SECONDS });
  }
  return created;
}

/** Starts the spam-deliveries job now (a webhook subscribed to spam); one waits at most (the queue's policy). */
export async function startSpamDeliveries(ctx: AppContext, tx: Tx): Promise<void> {
  await ctx.queue.send(spamDeliveries, {}, { tx });
}

/** A team-wide event (ai-insights.regenerated) to every webhook of the team subscribed to it. */
export async function createTeamEventDeliveries(ctx: AppContext, tx: Tx, teamId: string, event: InsightsEvent): Promise<number> {
  const targets = await teamWebhooksFor(tx, teamId, event.type);
  return (await queueDeliveries(ctx, tx, newDeliveries(ctx, targets, event, null))).length;
}

/** `priority` and `groupId` as queued: a bulk attempt has a negative priority and its team as group. */
export type AttemptJob = { id: string; retryCount: number; priority?: number; groupId?: string | null; data: { deliveryId: string; attempt: number } };

/** Whether an attempt job is a bulk replay's (queued in turns, or a retry or postponement of one). */
export function isBulkAttempt(job: AttemptJob): boolean {
  return (job.priority ?? 0) < 0;
}

/** How an attempt job queues the next attempt of its delivery: a bulk one stays bulk work (see BULK_TURN). */
function nextAttemptQueueing(job: AttemptJob, kind: 'retry' | 'postpone'): { priority?: number; group?: string } {
  if (!job.groupId) return {};
  // A postponed attempt was not made: it keeps its team's turn. A retry goes after every turn.
  return { priority: kind === 'postpone' ? (job.priority ?? BULK_RETRY_PRIORITY) : BULK_RETRY_PRIORITY, group: job.groupId };
}

/** What one attempt job came to, for `recordAttempts`. */
export type AttemptOutcome =
  /** A duplicate or stale job (its attempt is already recorded): it only settles. */
  | { job: AttemptJob; kind: 'skip' }
  /** Not sent: its webhook was deleted or deactivated, or its submission deleted. */
  | { job: AttemptJob; kind: 'stop'; expected: number; reason: string }
  | { job: AttemptJob; kind: 'sent'; webhookId: string; gone: boolean; record: queries.AttemptRecord; retryAfter?: number | null }
  /**
   * Not sent yet: its webhook already had its share of the worker's attempts in flight, its pace had no slot
   * free, or a 429 paused it (that attempt is not counted). The same attempt
   * goes again at `at` (a new job); the delivery's attempt count stays.
   */
  | {
      job: AttemptJob;
      kind: 'postpone';
      expected: number;
      at: Date;
      /** Set when the receiver answered 429: the webhook's failure clock runs, so one that throttles for days is deactivated. */
      throttled?: string;
    };

export type AttemptRow = queries.AttemptRow;

/** The rows a batch of attempt jobs needs, in one query. */
export function loadAttempts(ctx: AppContext, jobs: AttemptJob[]): Promise<Map<string, queries.AttemptRow>> {
  return queries.findForAttempts(ctx.db, jobs.map((j) => j.data.deliveryId));
}

function isNextAttempt(job: AttemptJob, row: queries.AttemptRow | undefined): row is queries.AttemptRow {
  return !!row && row.attempts === job.data.attempt - 1 && (row.status === 'pending' || row.status === 'failed');
}

/**
 * Why an attempt is not made. A deleted webhook's deliveries keep their attempts (the spec: "deliveries already
 * in flight continue; no new submission triggers the webhook"); a deactivated one's stop.
 */
function stopReason(row: queries.AttemptRow): string | null {
  return !row.active ? 'webhook_inactive' : row.request_body === null ? 'submission_deleted' : null;
}

/** Whether `sendAttempt` would post this job's attempt (not a duplicate, not a stopped delivery): only those take a webhook's share. */
export function attemptSends(job: AttemptJob, row: queries.AttemptRow | undefined): row is queries.AttemptRow {
  return isNextAttempt(job, row) && stopReason(row) === null;
}

/**
 * A paced webhook's `rate` slots span this much more than a second: the slot is taken before the request
 * leaves, and requests' trips to the receiver (a new TLS connection, a busy worker) differ by tens of
 * milliseconds, so slots exactly 1/rate apart could put rate + 1 requests into one second at the receiver.
 */
const PACE_ROOM_MS = 250;
/** A 429's `Retry-After` longer than this is an ordinary failed attempt (a pause must not hold deliveries for days). */
export const MAX_PAUSE_SECONDS = 3_600;

/** The time between two sends to a paced webhook (its `max_per_second`, or its chat provider's limit), in ms; null: unpaced. */
export function paceGapMs(row: Pick<queries.AttemptRow, 'provider' | 'max_per_second'>): number | null {
  const rate = row.max_per_second ?? PROVIDER_PACE[row.provider as keyof typeof PROVIDER_PACE] ?? null;
  return rate === null ? null : (1000 + PACE_ROOM_MS) / rate;
}

/**
 * Whether an attempt may be sent now: a paused webhook's waits for the pause's end; a paced webhook's takes
 * the webhook's next send slot in Postgres (shared by every worker) or is told when the next one is free.
 */
export async function takeSlot(ctx: AppContext, row: queries.AttemptRow): Promise<{ at: Date } | null> {
  if (row.paused_until && new Date(row.paused_until).getTime() > Date.now()) return { at: new Date(row.paused_until) };
  const gap = paceGapMs(row);
  if (gap === null) return null;
  const slot = await takeSendSlot(ctx.db, row.webhook_id, gap);
  return slot.taken ? null : { at: slot.at };
}

/**
 * A receiver's 429 with a usable `Retry-After`: the whole webhook pauses until then (every worker's attempts
 * of it wait), and this attempt is not counted: it goes again when the pause ends. Null: an ordinary outcome.
 */
export async function pauseFor429(ctx: AppContext, outcome: AttemptOutcome): Promise<AttemptOutcome | null> {
  if (outcome.kind !== 'sent' || outcome.record.httpStatus !== 429) return null;
  const retryAfter = outcome.retryAfter ?? null;
  if (retryAfter === null || retryAfter > MAX_PAUSE_SECONDS) return null;
  const until = await pauseWebhook(ctx.db, outcome.webhookId, new Date(Date.now() + Math.max(1, retryAfter) * 1000));
  return { job: outcome.job, kind: 'postpone', expected: outcome.record.expected, at: until, throttled: outcome.webhookId };
}

/** Decrypted webhook secrets by key and stored form, at most SECRET_CACHE a key (the oldest go first). */
const openSecrets = new WeakMap<Buffer, Map<string, string>>();
const SECRET_CACHE = 500;

/**
 * A webhook's secret, decrypted once per worker rather than once per attempt (AES-GCM of every attempt was a
 * measurable share of a busy worker's CPU). A rotated secret is a new stored value, so it is never stale.
 */
function openSecret(key: Buffer, stored: string): string {
  let byStored = openSecrets.get(key);
  if (!byStored) openSecrets.set(key, (byStored = new Map()));
  let secret = byStored.get(stored);
  if (secret === undefined) {
    secret = decryptSecret(key, stored);
    if (byStored.size >= SECRET_CACHE) byStored.delete(byStored.keys().next().value!);
    byStored.set(stored, secret);
  }
  return secret;
}

/**
 * One attempt, without touching the database: signs the stored body with the webhook's secret(s) now, posts
 * it, and says what to record. A job whose attempt is no longer the next one (a duplicate) is skipped.
 */
export async function sendAttempt(ctx: AppContext, sender: Sender, job: AttemptJob, row: queries.AttemptRow | undefined): Promise<AttemptOutcome> {
  const { deliveryId, attempt } = job.data;
  if (!isNextAttempt(job, row)) return { job, kind: 'skip' };
  const reason = stopReason(row);
  if (reason || row.request_body === null) return { job, kind: 'stop', expected: row.attempts, reason: reason ?? 'submission_deleted' };
  const key = ctx.keys.webhookSecrets;
  const secrets = [openSecret(key, row.secret_encrypted), ...(row.previous_secret_encrypted ? [openSecret(key, row.previous_secret_encrypted)] : [])];
  const headers = signatureHeaders(secrets, row.id, Math.floor(Date.now() / 1000), row.request_body);
  const out = await sender.send(row.url, row.request_body, headers);

  const schedule = ctx.config.deliverySchedule;
  const ok = out.httpStatus !== null && out.httpStatus >= 200 && out.httpStatus < 300;
  const gone = out.httpStatus === 410;
  const status = ok ? 'succeeded' : gone || attempt >= schedule.length ? 'dead' : 'failed';
  const next = status === 'failed' ? new Date(Date.now() + attemptDelay(schedule, attempt + 1, out.retryAfter) * 1000) : null;
  const record = { id: deliveryId, expected: row.attempts, status, httpStatus: out.httpStatus, durationMs: out.durationMs, responseBody: out.responseBody, error: out.error, nextAttemptAt: next } as const;
  return { job, kind: 'sent', webhookId: row.webhook_id, gone, record, retryAfter: out.retryAfter };
}

/**
 * Records a batch of outcomes in one transaction — one commit for many attempts: their results, the jobs of
 * the next attempts, webhooks deactivated (410 at once; otherwise after failing for days, with an e-mail to
 * the owners), and the settling of every job of the batch. Returns the earliest next attempt, if any.
 */
export async function recordAttempts(ctx: AppContext, outcomes: AttemptOutcome[]): Promise<Date | null> {
  const sent = outcomes.filter((o) => o.kind === 'sent');
  const waiting = outcomes.filter((o) => o.kind === 'postpone');
  const next = [...sent.flatMap((o) => (o.record.nextAttemptAt ? [o.record.nextAttemptAt] : [])), ...waiting.map((o) => o.at)];
  await ctx.db.transaction(async (tx) => {
    for (const o of outcomes) if (o.kind === 'stop') await queries.stopDelivery(tx, o.job.data.deliveryId, o.expected, o.reason);
    const recorded = await queries.recordAttempts(tx, sent.map((o) => o.record));
    const retries = sent.filter((o) => recorded.has(o.record.id) && o.record.nextAttemptAt);
    // A postponed attempt is queued again only while the row still waits for it, as a retry is.
    const postponed = await queries.postponeAttempts(tx, waiting.map((o) => ({ id: o.job.data.deliveryId, expected: o.expected, at: o.at })));
    await ctx.queue.insert(
      deliverWebhook,
      [
        ...retries.map((o) => ({
          data: { deliveryId: o.record.id, attempt: o.job.data.attempt + 1 },
          singletonKey: o.record.id,
          startAfter: o.record.nextAttemptAt!,
          ...nextAttemptQueueing(o.job, 'retry'),
        })),
        ...waiting
          .filter((o) => postponed.has(o.job.data.deliveryId))
          .map((o) => ({
            data: { deliveryId: o.job.data.deliveryId, attempt: o.job.data.attempt },
            singletonKey: o.job.data.deliveryId,
            startAfter: o.at,
            ...nextAttemptQueueing(o.job, 'postpone'),
          })),
      ],
      { tx },
    );
    // Per webhook, once: the last failure of the batch decides (a 410 anywhere in it counts).
    const failed = new Map<string, boolean>();
    for (const o of sent) if (recorded.has(o.record.id) && o.record.status !== 'succeeded') failed.set(o.webhookId, (failed.get(o.webhookId) ?? false) || o.gone);
    for (const o of waiting) if (o.throttled && postponed.has(o.job.data.deliveryId)) failed.set(o.throttled, failed.get(o.throttled) ?? false);
    for (const [webhookId, gone] of failed) {
      const failingTooLong = await failingFor(tx, webhookId, ctx.config.webhookDisableAfterSeconds);
      if ((gone || failingTooLong) && (await deactivateWebhook(tx, webhookId, gone ? 'gone' : 'failing'))) {
        await ctx.queue.send(webhookDeactivatedEmail, { webhookId }, { tx });
      }
    }
    await ctx.queue.complete(deliverWebhook, outcomes.map((o) => o.job), { tx });
  });
  return next.length ? new Date(Math.min(...next.map((d) => d.getTime()))) : null;
}

/** A duration in words: "5 days", "36 hours", "10 minutes". */
function span(seconds: number): string {
  const [n, unit] = seconds >= 2 * 86_400 ? [seconds / 86_400, 'day'] : seconds >= 2 * 3600 ? [seconds / 3600, 'hour'] : [Math.max(1, seconds / 60), 'minute'];
  const rounded = Math.round(n);
  return `${rounded} ${unit}${rounded === 1 ? '' : 's'}`;
}

/** The e-mail to a team's owners and admins when the service deactivated one of their webhooks. */
export async function sendDeactivationNotice(ctx: AppContext, webhookId: string): Promise<'sent' | 'skipped'> {
  const n = await queries.deactivationNotice(ctx.db, webhookId);
  if (!n || !n.emails.length) return 'skipped';
  const why =
    n.reason === 'gone'
      ? 'the receiving endpoint answered 410 Gone'
      : `every delivery attempt has failed for ${span(ctx.config.webhookDisableAfterSeconds)}`;
  const text = [
    `The webhook "${n.label}" of the form "${n.form_name}" was deactivated because ${why}.`,
    '',
    `Endpoint: ${n.url}`,
    '',
    'No new deliveries are made to it, and its queued retries have stopped. Once the endpoint works again,',
    're-activate it (PUT active: true) and replay what it missed:',
    `  POST ${ctx.config.baseUrl}/v1/webhooks/${webhookId}/replay  {"status": "dead"}`,
    '',
    `Delivery log: ${ctx.config.baseUrl}/v1/forms/${n.form_id}/webhooks/${webhookId}/deliveries`,
  ].join('\n');
  await ctx.mailer.send({ to: n.emails, subject: `Webhook deactivated: ${n.label.slice(0, 100)}`, text });
  return 'sent';
}

async function liveWebhook(ctx: AppContext, caller: Caller, webhookId: string, formId?: string, opts: { deleted?: boolean } = {}) {
  const w = await findWebhook(ctx.db, caller.teamId, webhookId, { formId, ...opts });
  if (!w) throw notFound('Webhook');
  return w;
}

/** A deleted webhook's log stays readable: its retries already scheduled still run (see `stopReason`). */
export async function listDeliveries(ctx: AppContext, caller: Caller, formId: string, webhookId: string, q: z.infer<typeof DeliveryListQuery>) {
  await liveWebhook(ctx, caller, webhookId, formId, { deleted: true });
  if (q.cursor !== undefined && !isId('whd', q.cursor)) throw validationFailed([{ in: 'query', path: 'cursor', message: 'Invalid cursor.' }]);
  const rows = await queries.listDeliveries(ctx.db, {
    webhookId,
    status: q.status,
    submissionId: q.submission_id,
    before: q.cursor,
    limit: q.per_page + 1,
  });
  const page = rows.slice(0, q.per_page);
  const more = rows.length > q.per_page;
  return { data: page.map(deliveryView), meta: { per_page: q.per_page, next_cursor: more ? page[page.length - 1]!.id : null } };
}

/**
 * A replay is a new delivery: same webhook, submission and body bytes, attempts from 1, signed when sent
 * with the webhook's current secret. The original row and the submission stay as they are.
 */
export async function replayDelivery(ctx: AppContext, caller: Caller, deliveryId: string, scope: { formId?: string; webhookId?: string } = {}): Promise<string> {
  const original = await queries.findDelivery(ctx.db, caller.teamId, deliveryId, scope);
  if (!original || original.webhook_deleted) throw notFound('Delivery');
  if (original.request_body === null) throw new AppError('submission_deleted', 'The submission of this delivery was deleted; there is nothing to replay.');
  if (!original.webhook_active) throw new AppError('webhook_inactive', 'The webhook is inactive: activate it (PUT active: true) before replaying.');
  return ctx.db.transaction(async (tx) => {
    const [id] = await queueDeliveries(ctx, tx, [
      {
        id: newId('whd'),
        team_id: original.team_id,
        webhook_id: original.webhook_id,
        event: original.event,
        submission_id: original.submission_id,
        request_body: original.request_body!,
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
 * filtered by status and creation time; deliveries of deleted submissions have no body and are left out.
 */
export async function startWebhookReplay(ctx: AppContext, caller: Caller, webhookId: string, input: z.infer<typeof ReplayWebhookBody>): Promise<string> {
  const webhook = await liveWebhook(ctx, caller, webhookId);
  if (!webhook.active) throw new AppError('webhook_inactive', 'The webhook is inactive: activate it (PUT active: true) before replaying.');
  const filter = { webhookId, status: input.status, since: input.since, until: input.until };
  // A test call's delivery is not an event of the webhook's: a bulk replay leaves it out (queries.LATEST).
  const total = await queries.countReplayable(ctx.db, filter);
  if (total > REPLAY_JOB_LIMIT) {
    throw validationFailed(
      [{ in: 'body', path: 'since', message: `Matches ${total} deliveries; narrow since/until to at most ${REPLAY_JOB_LIMIT}.` }],
      `A replay job takes at most ${REPLAY_JOB_LIMIT} deliveries; this one matches ${total}.`,
    );
  }
  return ctx.db.transaction(async (tx) => {
    const job = await jobQueries.insertJob(tx, { id: newId('job'), teamId: caller.teamId, type: 'webhook_replay', params: filter, total, createdBy: caller.tokenId });
    await ctx.queue.send(replayWebhook, { jobId: job.id }, { tx });
    return job.id;
  });
}

/**
 * The bulk replay job: batch by batch, each batch's replays, their jobs and the progress in one transaction,
 * so a worker killed half-way resumes where it stopped and never replays a delivery twice (one replay per
 * original and job, enforced by a unique index).
 */
export async function runReplayJob(ctx: AppContext, jobId: string): Promise<void> {
  const job = await jobQueries.findJob(ctx.db, jobId);
  if (!job || job.finished_at) return;
  await jobQueries.startJob(ctx.db, jobId);
  const filter = job.params as unknown as queries.ReplayFilter;
  for (;;) {
    const waiting = await queries.waitingReplays(ctx.db, jobId, REPLAY_WINDOW);
    if (waiting.n >= REPLAY_WINDOW) {
      await ctx.queue.send(replayWebhook, { jobId }, { startAfter: REPLAY_PAUSE_SECONDS });
      return;
    }
    // The team's pace (INTAKE_REPLAY_TEAM_RATE): spent, the job comes back when the allowance renews.
    const { granted, resetSeconds } = await takeReplayAllowance(ctx, job.team_id, REPLAY_BATCH);
    if (!granted) {
      await ctx.queue.send(replayWebhook, { jobId }, { startAfter: resetSeconds });
      return;
    }
    const more = await ctx.db.transaction(async (tx) => {
      const batch = await queries.nextReplayBatch(tx, filter, jobId, granted);
      const at = replayDueTimes(ctx, waiting.last_due_ms);
      const queued = await queueDeliveries(
        ctx,
        tx,
        batch.map((d, i) => ({
          id: newId('whd'),
          team_id: job.team_id,
          webhook_id: filter.webhookId,
          event: d.event,
          submission_id: d.submission_id,
          request_body: d.request_body,
          next_attempt_at: at(i),
          replay_of: d.id,
          replay_job_id: jobId,
        })),
        { teamId: job.team_id },
      );
      await jobQueries.addProgress(tx, jobId, queued.length, []);
      return batch.length === granted;
    });
    if (!more) break;
  }
  await jobQueries.finishJob(ctx.db, jobId, 'succeeded');
}

/**
 * When a window's replays are due: one every 1 / INTAKE_REPLAY_TEAM_RATE s, after the job's last one still
 * waiting (else from now), so its windows make one even stream. Due together, the 50 of a default window
 * went out in the first half second (the worker's bulk pace is 50 a second): a burst of ~0.6 s of CPU
 * between the worker and Postgres every 5 s, which other teams' requests queued behind.
 */
function replayDueTimes(ctx: AppContext, lastDueMs: number | null): (i: number) => Date {
  const spacing = 1000 / ctx.config.replayTeamRate;
  const from = Math.max(Date.now(), lastDueMs === null ? 0 : lastDueMs + spacing);
  return (i) => new Date(from + Math.floor(i * spacing));
}

/**
 * The periodic pass: re-queues attempts whose job was lost (a delivery overdue by far more than a job's
 * expiry, with no job of its own waiting, retrying or running), and prunes deliveries past the retention
 * window in batches.
 */
export async function maintainDeliveries(ctx: AppContext): Promise<{ requeued: number; pruned: number }> {
  const overdue = await queries.overdueDeliveries(ctx.db, 15 * 60, 1000);
  const live = await ctx.queue.liveKeys(deliverWebhook, overdue.map((d) => d.id));
  const lost = overdue.filter((d) => !live.has(d.id));
  if (lost.length) {
    await ctx.db.transaction((tx) =>
      ctx.queue.insert(
        deliverWebhook,
        lost.map((d) => ({
          data: { deliveryId: d.id, attempt: d.attempts + 1 },
          singletonKey: d.id,
          ...(d.bulk ? { priority: BULK_RETRY_PRIORITY, group: d.team_id } : {}),
        })),
        { tx },
      ),
    );
  }
  // The spam-deliveries job queues itself again after each run; should that chain have broken (its last retry
  // failed), this starts it again.
  if (await anySpamSubscriber(ctx.db)) await ctx.queue.send(spamDeliveries, {});
  let pruned = 0;
  for (let n = -1; n !== 0; pruned += n) n = await queries.pruneDeliveries(ctx.db, ctx.config.deliveryRetentionDays, 1000);
  return { requeued: lost.length, pruned };
}
