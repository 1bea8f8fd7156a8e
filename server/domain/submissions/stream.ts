import { STREAM_BATCH, STREAM_HEARTBEAT_SECONDS, STREAM_LIMITS } from '../../../contract/events.ts';
import type { AppContext } from '../../context.ts';
import { pooledListener, type PooledListener } from '../../infra/db/pooled-listener.ts';
import * as leases from '../../infra/db/queries/leases.ts';
import { streamHead } from '../../infra/db/queries/stream-heads.ts';
import * as queries from '../../infra/db/queries/submission-stream.ts';
import { eventStreamsOpen } from '../../infra/metrics/open-streams.ts';
import { renderBody, type SubmissionEvent } from '../../infra/outbound/providers.ts';
import type { Caller } from '../accounts/caller.ts';
import { requireForm } from '../forms/live-form.ts';
import { AppError, notFound, validationFailed } from '../shared/errors.ts';
import { isId, newId } from '../shared/ids.ts';
import { submissionEvent } from './view.ts';

/**
 * A form's submissions as a stream of events (docs/listen.md): each clean submission once processed, with
 * the body its webhooks are sent, and, when asked, each one filed as spam. Events come in the order their
 * form's stream numbers committed (processing order is not arrival order, so a (received_at, id) cursor
 * would skip a late settler); an event id is the position right after it. Idle streams hold nothing: a
 * NOTIFY or a poll wakes them to read, and a lease row bounds the open streams per token and team.
 */

export type StreamEventName = 'submission' | 'spam';

/** One event: `data` is the exact JSON text a `webhook` provider would be sent. */
export type StreamEvent = { id: string; event: StreamEventName; data: string };

export type StreamOptions = {
  /** The last event id the client saw, and where it came from (for the error's `details`). */
  lastEventId?: { value: string; in: 'header' | 'query' };
  include?: 'spam';
};

/** A lease lives this long unless renewed (each heartbeat renews it). */
const LEASE_SECONDS = STREAM_HEARTBEAT_SECONDS * 3;
/** The poll that catches what no NOTIFY announced: a lost notification, or spam stopped at the door. */
const POLL_MS = { announced: 5000, unannounced: 1000 };
/** Announcements of one form are sent at most this often per process, with a trailing one for a burst. */
const ANNOUNCE_MS = 50;

// --- positions ---------------------------------------------------------------------------------------------

type Position = queries.StreamPosition;

const BIGINT_MAX = 2n ** 63n;
const B36 = /^[0-9a-z]{1,13}$/;

function fromBase36(text: unknown): bigint | null {
  if (typeof text !== 'string' || !B36.test(text)) return null;
  let n = 0n;
  for (const ch of text) n = n * 36n + BigInt(parseInt(ch, 36));
  return n < BIGINT_MAX ? n : null;
}

/** The snapshot text of a version-1 event id, or null unless it is one Postgres would accept. */
function unpackSnapshot(packed: unknown): string | null {
  if (typeof packed !== 'string') return null;
  const parts = packed.split('.');
  if (parts.length < 2 || parts.length > 2000) return null;
  const numbers = parts.map(fromBase36);
  if (numbers.some((n) => n === null)) return null;
  const [base, span, ...deltas] = numbers as bigint[];
  const xmax = base! + span!;
  if (xmax >= BIGINT_MAX) return null;
  for (let i = 0; i < deltas.length; i += 1) {
    if (deltas[i]! >= span! || (i > 0 && deltas[i]! <= deltas[i - 1]!)) return null;
  }
  return `${base}:${xmax}:${deltas.map((d) => base! + d).join(',')}`;
}

function encodePosition(formId: string, spam: boolean, p: Position): string {
  const fields = [2, formId, spam ? 1 : 0, BigInt(p.seq).toString(36), p.id];
  return Buffer.from(JSON.stringify(fields)).toString('base64url');
}

function decodePosition(
  formId: string,
  spam: boolean,
  from: NonNullable<StreamOptions['lastEventId']>,
): Position | queries.SnapshotPosition {
  const invalid = (message: string) =>
    validationFailed(
      [{ in: from.in, path: from.in === 'header' ? 'last-event-id' : 'last_event_id', message }],
      message,
    );
  const foreign = () => invalid('Not an event id of this API.');
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(from.value, 'base64url').toString('utf8'));
  } catch {
    throw foreign();
  }
  if (!Array.isArray(fields) || fields.length !== (fields[0] === 1 ? 7 : 5) || (fields[0] !== 1 && fields[0] !== 2))
    throw foreign();
  const [version, form, flag, ...rest] = fields as unknown[];
  if (form !== formId) throw invalid('This event id belongs to another form.');
  if (flag !== (spam ? 1 : 0))
    throw invalid(`This event id was given ${flag === 1 ? 'with' : 'without'} include=spam: resume with the same.`);
  if (version === 2) {
    const [seq, id] = rest;
    const n = fromBase36(seq);
    if (n === null || typeof id !== 'string' || (id !== '' && !isId('subm', id))) throw foreign();
    return { seq: n.toString(), id };
  }
  const [past, upto, xid, id] = rest;
  const pastText = unpackSnapshot(past);
  if (!pastText) throw foreign();
  if (upto === null && xid === null && id === null) return { past: pastText, within: null };
  const uptoText = unpackSnapshot(upto);
  const xidValue = fromBase36(xid);
  if (!uptoText || xidValue === null || typeof id !== 'string' || !isId('subm', id)) throw foreign();
  return { past: pastText, within: { upto: uptoText, xid: xidValue.toString(), id } };
}

// --- reading -----------------------------------------------------------------------------------------------

type Scope = { teamId: string; formId: string; spam: boolean };

const statusesOf = (spam: boolean) => (spam ? ['processed', 'spam'] : ['processed']);

function eventOf(ctx: AppContext, row: queries.StreamEventRow): Omit<StreamEvent, 'id'> {
  return {
    event: row.status === 'spam' ? 'spam' : 'submission',
    data: renderBody('webhook', submissionEvent(ctx, row), {}),
  };
}

/** The next batch after a position, each event with the id of the position right after it; `more` when it was full. */
async function readBatch(
  ctx: AppContext,
  scope: Scope,
  after: Position,
  limit = STREAM_BATCH,
): Promise<{ events: StreamEvent[]; next: Position; more: boolean }> {
  const rows = await queries.streamEvents(ctx.db, {
    teamId: scope.teamId,
    formId: scope.formId,
    after,
    statuses: statusesOf(scope.spam),
    limit,
  });
  const events = rows.map((r) => ({
    id: encodePosition(scope.formId, scope.spam, { seq: r.stream_seq, id: r.id }),
    ...eventOf(ctx, r),
  }));
  const last = rows[rows.length - 1];
  return { events, next: last ? { seq: last.stream_seq, id: last.id } : after, more: rows.length === limit };
}

async function startingPosition(ctx: AppContext, scope: Scope, opts: StreamOptions): Promise<Position> {
  if (!opts.lastEventId) return streamHead(ctx.db, scope.teamId, scope.formId);
  const from = decodePosition(scope.formId, scope.spam, opts.lastEventId);
  if ('seq' in from) return from;
  return queries.positionOfSnapshot(ctx.db, { ...scope, statuses: statusesOf(scope.spam), ...from });
}

async function scopeOf(ctx: AppContext, caller: Caller, formId: string, opts: StreamOptions): Promise<Scope> {
  await requireForm(ctx, caller, formId);
  return { teamId: caller.teamId, formId, spam: opts.include === 'spam' };
}

/** A stream carries each submission as its submission.created body (spam is marked by the SSE event name, not the body). */
type CreatedEvent = SubmissionEvent & { type: 'submission.created' };

/**
 * One JSON answer: up to STREAM_BATCH events after `last_event_id` (none without it: it starts now) and
 * where they end. An event's id is its position in the form's stream: resuming from it sends what follows.
 */
export async function readSubmissionEvents(ctx: AppContext, caller: Caller, formId: string, opts: StreamOptions) {
  const scope = await scopeOf(ctx, caller, formId, opts);
  const position = await startingPosition(ctx, scope, opts);
  const batch = opts.lastEventId ? await readBatch(ctx, scope, position) : { events: [], next: position, more: false };
  const events = batch.events;
  return {
    data: events.map((e) => ({ id: e.id, event: e.event, submission: JSON.parse(e.data) as CreatedEvent })),
    meta: { last_event_id: encodePosition(scope.formId, scope.spam, batch.next), has_more: batch.more },
  };
}

// --- open streams ------------------------------------------------------------------------------------------

export type SubmissionStream = {
  /** The id to send before any event when the client gave none: the position "now", so a reconnect loses nothing. */
  readonly startId: string | null;
  readonly heartbeatMs: number;
  /** Aborted when the stream must end; `reason` is an AppError when the client should not reconnect (token, form). */
  readonly ended: AbortSignal;
  /** The next events, waiting (with no connection held) until there are some; [] once the stream has ended. */
  next(): Promise<StreamEvent[]>;
  /** Renews the lease (each heartbeat); ends the stream when its token no longer works or its form is gone. */
  renew(): Promise<void>;
  /** Releases the lease and the subscription. Idempotent. */
  close(): Promise<void>;
};

type Hub = {
  listener: PooledListener;
  streams: Set<{ end(): void; close(): Promise<void> }>;
  closing: boolean;
  /** Forms announced within ANNOUNCE_MS, and whether another announcement is due after it. */
  announced: Map<string, boolean>;
};

const hubs = new WeakMap<AppContext, Hub>();

function hubOf(ctx: AppContext): Hub {
  let hub = hubs.get(ctx);
  if (!hub) {
    const listener = pooledListener(ctx.db, queries.STREAM_CHANNEL, (err) =>
      ctx.log.warn({ err }, 'submission stream LISTEN session lost; streams poll meanwhile'),
    );
    hubs.set(ctx, (hub = { listener, streams: new Set(), closing: false, announced: new Map() }));
  }
  return hub;
}

/**
 * Wakes the streams of a form, on every API process: called after the commit that settled a submission
 * (a NOTIFY inside the transaction would queue every commit behind one global lock). A burst of one form
 * costs one announcement per ANNOUNCE_MS; a lost one is caught by the streams' poll.
 */
export function announceSubmissionEvent(ctx: AppContext, formId: string): void {
  const { announced } = hubOf(ctx);
  if (announced.has(formId)) {
    announced.set(formId, true);
    return;
  }
  announced.set(formId, false);
  queries
    .announceEvents(ctx.db, formId)
    .catch((err: unknown) =>
      ctx.log.warn({ err, formId }, 'could not announce a submission to streams; they will poll'),
    );
  setTimeout(() => {
    const again = announced.get(formId);
    announced.delete(formId);
    if (again) announceSubmissionEvent(ctx, formId);
  }, ANNOUNCE_MS).unref();
}

/**
 * Opens a stream for the caller: the form must be a live form of the caller's team (404), the event id
 * one of this form's (400), and the token and team under their stream limits (429).
 */
export async function openSubmissionStream(
  ctx: AppContext,
  caller: Caller,
  formId: string,
  opts: StreamOptions,
): Promise<SubmissionStream> {
  const hub = hubOf(ctx);
  const scope = await scopeOf(ctx, caller, formId, opts);
  let position = await startingPosition(ctx, scope, opts);
  const lease: leases.Lease = {
    id: newId('evt'),
    teamId: caller.teamId,
    tokenId: caller.tokenId,
    formId,
    seconds: LEASE_SECONDS,
  };
  const take = async () => {
    const refused = await ctx.db.transaction((tx) =>
      leases.takeLease(tx, 'stream', lease, { token: STREAM_LIMITS.token, team: STREAM_LIMITS.team }),
    );
    if (!refused) return;
    const limit = refused === 'token' ? `${STREAM_LIMITS.token} per token` : `${STREAM_LIMITS.team} per team`;
    throw new AppError('rate_limited', `Too many open streams (at most ${limit}): close one first.`, {
      retry_after: STREAM_HEARTBEAT_SECONDS,
    });
  };
  await take();

  const controller = new AbortController();
  let woken = false;
  let wake: (() => void) | null = null;
  const poke = () => {
    woken = true;
    wake?.();
  };
  const unsubscribe = hub.listener.subscribe(formId, poke);
  controller.signal.addEventListener('abort', poke);

  /** Until a NOTIFY, the poll timer or the end, whichever comes first. */
  const waitForWake = () =>
    new Promise<void>((resolve) => {
      if (woken || controller.signal.aborted) return resolve();
      const pollMs = hub.listener.live && !scope.spam ? POLL_MS.announced : POLL_MS.unannounced;
      const timer = setTimeout(() => {
        wake = null;
        resolve();
      }, pollMs);
      wake = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
    });

  let closed: Promise<void> | null = null;
  const handle = {
    end: () => controller.abort(),
    close: () =>
      (closed ??= (async () => {
        controller.abort();
        unsubscribe();
        hub.streams.delete(handle);
        eventStreamsOpen.dec();
        await leases
          .dropLease(ctx.db, 'stream', lease)
          .catch((err: unknown) => ctx.log.warn({ err }, 'could not drop a stream lease; it expires by itself'));
      })()),
  };
  hub.streams.add(handle);
  eventStreamsOpen.inc();
  if (hub.closing) controller.abort();

  return {
    startId: opts.lastEventId ? null : encodePosition(formId, scope.spam, position),
    heartbeatMs: STREAM_HEARTBEAT_SECONDS * 1000,
    ended: controller.signal,
    async next() {
      for (;;) {
        if (controller.signal.aborted) return [];
        woken = false;
        const batch = await readBatch(ctx, scope, position);
        position = batch.next;
        if (batch.events.length) return batch.events;
        if (!batch.more) await waitForWake();
      }
    },
    async renew() {
      if (controller.signal.aborted) return;
      const r = await leases.renewStreamLease(ctx.db, lease);
      if (r.renewed) return;
      if (!r.tokenUsable)
        controller.abort(
          new AppError('unauthenticated', 'The token was revoked or has expired: the stream has ended.'),
        );
      else if (!r.formLive) controller.abort(notFound('Form'));
      // The lease expired (this process stalled past it): take it again, within the limits like a new stream.
      else await take().catch((err: unknown) => controller.abort(err));
    },
    close: handle.close,
  };
}

/** Ends every open stream of this process (shutdown): clients reconnect, with their last event id, elsewhere. */
export async function closeSubmissionStreams(ctx: AppContext): Promise<void> {
  const hub = hubs.get(ctx);
  if (!hub) return;
  hub.closing = true;
  const open = [...hub.streams];
  for (const s of open) s.end();
  await Promise.all(open.map((s) => s.close()));
  await hub.listener.close();
}
