import { STREAM_BATCH, STREAM_HEARTBEAT_SECONDS, STREAM_LIMITS } from '../../../contract/events.ts';
import type { AppContext } from '../../context.ts';
import { pooledListener, type PooledListener } from '../../infra/db/pooled-listener.ts';
import * as leases from '../../infra/db/queries/leases.ts';
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
 * the body its webhooks are sent, and, when asked, each one filed as spam. A position is a Postgres snapshot
 * (processing order is not arrival order, so a (received_at, id) cursor would skip a late settler); an event
 * id is the position right after it. Idle streams hold nothing: a NOTIFY or a poll wakes them to read, and
 * a lease row bounds the open streams per token and team.
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

type Within = { upto: string; xid: string; id: string };
/** Sent: events visible in snapshot `past`, and, of the batch read at `within.upto`, those up to (xid, id). */
type Position = { past: string; within: Within | null };

const BIGINT_MAX = 2n ** 63n;
const B36 = /^[0-9a-z]{1,13}$/;

function fromBase36(text: string): bigint | null {
  if (!B36.test(text)) return null;
  let n = 0n;
  for (const ch of text) n = n * 36n + BigInt(parseInt(ch, 36));
  return n < BIGINT_MAX ? n : null;
}

/** `xmin:xmax:xip,…` (Postgres's text) as base-36 numbers, the later ones relative to xmin: shorter ids. */
function packSnapshot(text: string): string {
  const [xmin = '0', xmax = '0', xip = ''] = text.split(':');
  const base = BigInt(xmin);
  const parts = [base, BigInt(xmax) - base, ...(xip ? xip.split(',').map((x) => BigInt(x) - base) : [])];
  return parts.map((n) => n.toString(36)).join('.');
}

/** The snapshot text back, or null unless it is one Postgres would accept (xip ascending, within [xmin, xmax)). */
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
  const w = p.within;
  const fields = [
    1,
    formId,
    spam ? 1 : 0,
    packSnapshot(p.past),
    w ? packSnapshot(w.upto) : null,
    w ? BigInt(w.xid).toString(36) : null,
    w?.id ?? null,
  ];
  return Buffer.from(JSON.stringify(fields)).toString('base64url');
}

function decodePosition(formId: string, spam: boolean, from: NonNullable<StreamOptions['lastEventId']>): Position {
  const invalid = (message: string) =>
    validationFailed(
      [{ in: from.in, path: from.in === 'header' ? 'last-event-id' : 'last_event_id', message }],
      message,
    );
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(from.value, 'base64url').toString('utf8'));
  } catch {
    throw invalid('Not an event id of this API.');
  }
  if (!Array.isArray(fields) || fields.length !== 7 || fields[0] !== 1) throw invalid('Not an event id of this API.');
  const [, form, flag, past, upto, xid, id] = fields as unknown[];
  if (form !== formId) throw invalid('This event id belongs to another form.');
  if (flag !== (spam ? 1 : 0))
    throw invalid(`This event id was given ${flag === 1 ? 'with' : 'without'} include=spam: resume with the same.`);
  const pastText = unpackSnapshot(past);
  if (!pastText) throw invalid('Not an event id of this API.');
  if (upto === null && xid === null && id === null) return { past: pastText, within: null };
  const uptoText = unpackSnapshot(upto);
  const xidValue = typeof xid === 'string' ? fromBase36(xid) : null;
  if (!uptoText || xidValue === null || typeof id !== 'string' || !isId('subm', id))
    throw invalid('Not an event id of this API.');
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

/**
 * The next batch after a position, each event with the id of the position right after it, and the
 * position after the batch. `more`: read again at once (the batch was full, or it finished an older one).
 */
async function readBatch(
  ctx: AppContext,
  scope: Scope,
  pos: Position,
  limit = STREAM_BATCH,
): Promise<{ events: StreamEvent[]; next: Position; more: boolean }> {
  const { rows, snapshot } = await queries.streamEvents(ctx.db, {
    teamId: scope.teamId,
    formId: scope.formId,
    past: pos.past,
    within: pos.within,
    statuses: statusesOf(scope.spam),
    limit,
  });
  const full = rows.length === limit;
  // Finishing the batch of an earlier read keeps its snapshot; a fresh read is bounded by this one's.
  const upto = pos.within?.upto ?? snapshot;
  const after = (r: queries.StreamEventRow): Position => ({
    past: pos.past,
    within: { upto, xid: r.stream_xid, id: r.id },
  });
  const done: Position = { past: upto, within: null };
  const events = rows.map((r, i) => {
    const p = !full && i === rows.length - 1 ? done : after(r);
    return { id: encodePosition(scope.formId, scope.spam, p), ...eventOf(ctx, r) };
  });
  if (full) return { events, next: after(rows[rows.length - 1]!), more: true };
  return { events, next: done, more: pos.within !== null };
}

async function startingPosition(ctx: AppContext, scope: Scope, opts: StreamOptions): Promise<Position> {
  if (opts.lastEventId) return decodePosition(scope.formId, scope.spam, opts.lastEventId);
  return { past: await queries.currentSnapshot(ctx.db), within: null };
}

async function scopeOf(ctx: AppContext, caller: Caller, formId: string, opts: StreamOptions): Promise<Scope> {
  await requireForm(ctx, caller, formId);
  return { teamId: caller.teamId, formId, spam: opts.include === 'spam' };
}

/** A stream carries each submission as its submission.created body (spam is marked by the SSE event name, not the body). */
type CreatedEvent = SubmissionEvent & { type: 'submission.created' };

/**
 * One JSON answer: up to STREAM_BATCH events after `last_event_id` (none without it: it starts now) and
 * where they end. Event ids are positions, not names: the same submission read at another time may carry
 * another id, and any of them resumes right after it.
 */
export async function readSubmissionEvents(ctx: AppContext, caller: Caller, formId: string, opts: StreamOptions) {
  const scope = await scopeOf(ctx, caller, formId, opts);
  let position = await startingPosition(ctx, scope, opts);
  const events: StreamEvent[] = [];
  let more = Boolean(opts.lastEventId);
  while (more && events.length < STREAM_BATCH) {
    const batch = await readBatch(ctx, scope, position, STREAM_BATCH - events.length);
    events.push(...batch.events);
    position = batch.next;
    more = batch.more;
  }
  return {
    data: events.map((e) => ({ id: e.id, event: e.event, submission: JSON.parse(e.data) as CreatedEvent })),
    meta: { last_event_id: encodePosition(scope.formId, scope.spam, position), has_more: more },
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
