import type { AppContext } from '../../context.ts';
import { findForAttempts, type AttemptRecord, type AttemptRow } from '../../infra/db/queries/deliveries.ts';
import { createSender, type Sender } from '../../infra/outbound/sender.ts';
import { decryptSecret, signatureHeaders } from '../../infra/outbound/signing.ts';
import type { AttemptJob } from '../../infra/queue/definitions.ts';
import { mayBeUnseen } from '../shared/ids.ts';
import type { Pacing } from './pacing.ts';
import { attemptDelay } from './schedule.ts';

/** What one attempt job came to, for `recordAttempts`; `teamId`: the delivery's team. */
export type AttemptOutcome =
  /**
   * A duplicate or stale job (its attempt is already recorded): it only settles. `again`: the delivery's row is
   * not visible yet (shared/ids.ts, mayBeUnseen): the same attempt is queued again for then.
   */
  | { job: AttemptJob; kind: 'skip'; again?: Date }
  /** Not sent: its webhook was deleted or deactivated, or its submission deleted. */
  | { job: AttemptJob; kind: 'stop'; teamId: string; expected: number; reason: string }
  | { job: AttemptJob; kind: 'sent'; teamId: string; webhookId: string; gone: boolean; record: AttemptRecord }
  /**
   * Not sent yet: its webhook had its share of the worker's attempts in flight, its pace had no slot free, or
   * a 429 paused it. The same attempt goes again at `at` (a new job); the delivery's attempt count stays.
   */
  | {
      job: AttemptJob;
      kind: 'postpone';
      teamId: string;
      expected: number;
      at: Date;
      /** Set when the receiver answered 429: the webhook's failure clock runs, so one that throttles for days is deactivated. */
      throttled?: string;
    };

/** What one worker makes attempts with: its connections, and its view of the webhooks' pace. */
export type AttemptTools = { ctx: AppContext; sender: Sender; pacing: Pacing };

/** The sender of webhook requests: the delivery timeout, no redirects, the address guard at connect time. */
export function deliverySender(ctx: AppContext, opts: { version: string; connections: number }): Sender {
  return createSender({
    timeoutMs: ctx.config.deliveryTimeoutMs,
    allowPrivate: ctx.config.allowPrivateWebhooks,
    userAgent: `Intake-Webhooks/${opts.version}`,
    connections: opts.connections,
  });
}

/**
 * The rows a batch of attempt jobs needs: one query per team of the batch (jobs queued without their team
 * make one more, by id alone).
 */
export async function loadAttempts(ctx: AppContext, jobs: AttemptJob[]): Promise<Map<string, AttemptRow>> {
  const byTeam = new Map<string | null, string[]>();
  for (const j of jobs) {
    const team = j.data.teamId ?? null;
    byTeam.set(team, [...(byTeam.get(team) ?? []), j.data.deliveryId]);
  }
  const found = await Promise.all([...byTeam].map(([team, ids]) => findForAttempts(ctx.db, team, ids)));
  return found.length === 1 ? found[0]! : new Map(found.flatMap((m) => [...m]));
}

/** How soon an attempt whose delivery row is not visible yet (shared/ids.ts, mayBeUnseen) looks again. */
const UNSEEN_RETRY_MS = 1_000;

function isNextAttempt(job: AttemptJob, row: AttemptRow | undefined): row is AttemptRow {
  return !!row && row.attempts === job.data.attempt - 1 && (row.status === 'pending' || row.status === 'failed');
}

/**
 * Why an attempt is not made. A deleted webhook's deliveries keep their attempts (the spec: "deliveries already
 * in flight continue; no new submission triggers the webhook"); a deactivated one's stop.
 */
function stopReason(row: AttemptRow): string | null {
  return !row.active ? 'webhook_inactive' : row.request_body === null ? 'submission_deleted' : null;
}

/** Whether the job's attempt would post a request (not a duplicate, not a stopped delivery): only those take a webhook's share. */
export function attemptSends(job: AttemptJob, row: AttemptRow | undefined): row is AttemptRow {
  return isNextAttempt(job, row) && stopReason(row) === null;
}

/** Decrypted webhook secrets by key and stored form, at most SECRET_CACHE a key (the oldest go first). */
const openSecrets = new WeakMap<Buffer, Map<string, string>>();
const SECRET_CACHE = 500;

/**
 * A webhook's secret, decrypted once per worker rather than once per attempt (AES-GCM costs CPU on every
 * attempt of a busy worker). A rotated secret is a new stored value, so it is never stale.
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
 * One attempt of a delivery: within its webhook's pace, the stored body signed now with the webhook's
 * secret(s) and posted as its stored media type, with the webhook's extra headers as they are now, and what
 * to record. A job whose attempt is no longer the next one is skipped; a delivery whose webhook or submission
 * is gone stops; a pace or a 429's pause postpones the attempt.
 */
export async function makeAttempt(
  tools: AttemptTools,
  job: AttemptJob,
  row: AttemptRow | undefined,
): Promise<AttemptOutcome> {
  const { ctx, sender, pacing } = tools;
  if (!row && mayBeUnseen(job.data.deliveryId))
    return { job, kind: 'skip', again: new Date(Date.now() + UNSEEN_RETRY_MS) };
  if (!isNextAttempt(job, row)) return { job, kind: 'skip' };
  const reason = stopReason(row);
  const teamId = row.team_id;
  if (reason || row.request_body === null)
    return { job, kind: 'stop', teamId, expected: row.attempts, reason: reason ?? 'submission_deleted' };
  const slotAt = await pacing.slot(row);
  if (slotAt) return { job, kind: 'postpone', teamId, expected: row.attempts, at: slotAt };

  const key = ctx.keys.webhookSecrets;
  const secrets = [
    openSecret(key, row.secret_encrypted),
    ...(row.previous_secret_encrypted ? [openSecret(key, row.previous_secret_encrypted)] : []),
  ];
  const headers = {
    ...row.headers,
    'content-type': row.content_type ?? 'application/json',
    ...signatureHeaders(secrets, row.id, Math.floor(Date.now() / 1000), row.request_body),
  };
  const out = await sender.send(row.url, row.request_body, headers);
  const pausedUntil = await pacing.pauseFor429(row, out);
  if (pausedUntil)
    return { job, kind: 'postpone', teamId, expected: row.attempts, at: pausedUntil, throttled: row.webhook_id };

  const { attempt } = job.data;
  const schedule = ctx.config.deliverySchedule;
  const ok = out.httpStatus !== null && out.httpStatus >= 200 && out.httpStatus < 300;
  const gone = out.httpStatus === 410;
  const status = ok ? 'succeeded' : gone || attempt >= schedule.length ? 'dead' : 'failed';
  const next =
    status === 'failed' ? new Date(Date.now() + attemptDelay(schedule, attempt + 1, out.retryAfter) * 1000) : null;
  const record = {
    id: row.id,
    expected: row.attempts,
    status,
    httpStatus: out.httpStatus,
    durationMs: out.durationMs,
    responseBody: out.responseBody,
    error: out.error,
    nextAttemptAt: next,
  } as const;
  return { job, kind: 'sent', teamId, webhookId: row.webhook_id, gone, record };
}
