import { createHash } from 'node:crypto';
import { PgBoss, type Job } from 'pg-boss';
import type { Logger } from 'pino';
import type { Db, Tx } from '../db/database.ts';
import { groupTail, lockGroup, queueHead } from '../db/queries/jobs.ts';
import { listen } from '../db/listener.ts';
import { keysWithLiveJobs, notifyQueue, planEmbedded } from '../db/queries/queue.ts';
import { queueStats } from '../db/queries/queue-stats.ts';
import type { QueueStat } from '../metrics/jobs.ts';
import type { JobDefinition, JobWorker } from './types.ts';
import { embeddedInserts, verifyEmbedding, type EmbeddedInsert } from './embedded.ts';
import { queueListener } from './listen.ts';
import { startWorkerSlots } from './slots.ts';

export type { JobDefinition, JobWorker, QueueOptions } from './types.ts';
export { PG_BOSS_VERSION, type EmbeddedInsert } from './embedded.ts';

export function worker<C, T>(
  job: JobDefinition<T>,
  handler: JobWorker<C, T>['handler'],
  concurrency?: number,
  perGroup?: number,
): JobWorker<C> {
  return { job, handler, concurrency, perGroup } as JobWorker<C>;
}

/** `tx`: the job is created in that transaction, with the rows that cause it, and workers are woken after commit. */
export type SendOptions = {
  tx?: Tx;
  singletonKey?: string;
  /** With `singletonKey`: one job per key within each slot of this many seconds (pg-boss throttling), whatever the queue's policy. */
  singletonSeconds?: number;
  startAfter?: Date | number;
};

/**
 * A job as a custom worker loop fetches it: with its priority and group (see `insert`), so a job it queues
 * again in its place can keep both.
 */
export type FetchedJob<T> = Job<T> & { priority: number; groupId?: string | null };

/** One job of `Queue.insert`. */
export type InsertItem<T> = {
  data: T;
  startAfter?: Date;
  singletonKey?: string;
  /** Fetched highest first, then oldest first (pg-boss's fetch order); default 0. */
  priority?: number;
  /** Whose job it is (a team), for `bulkTurns`. */
  group?: string;
};

/**
 * pg-boss over the process's one database handle: every process that writes can enqueue; workers poll and
 * are woken by LISTEN/NOTIFY so latency is not bound to the polling interval.
 */
export type Queue = {
  boss: PgBoss;
  send<T>(job: JobDefinition<T>, data: T, opts?: SendOptions): Promise<string | null>;
  /**
   * pg-boss's own insert for one job (what `send` would run) with its one parameter, for the one-statement
   * ingest; verified at start. Call `wake(job)` once the embedding statement has committed.
   */
  embeddedInsert<T>(job: JobDefinition<T>, data: T): Promise<EmbeddedInsert>;
  wake(job: { name: string }): void;
  /** Creates many jobs of one queue in one statement, in the transaction `tx`; workers are woken after commit. */
  insert<T>(job: JobDefinition<T>, items: Array<InsertItem<T>>, opts: { tx: Tx }): Promise<void>;
  /** Up to `batchSize` jobs for a custom worker loop (the delivery runner), optionally within a priority range. */
  fetch<T>(
    job: JobDefinition<T>,
    batchSize: number,
    priority?: { min?: number; max?: number },
  ): Promise<Array<FetchedJob<T>>>;
  /**
   * Among waiting jobs of priorities in `[min, max]`: the highest (the turn being served) and the group's lowest
   * (its last turn), null when none. Locks the group for `tx`, so one group's transactions take turns.
   */
  bulkTurns(
    job: { name: string },
    group: string,
    range: { min: number; max: number },
    opts: { tx: Tx },
  ): Promise<{ head: number | null; tail: number | null }>;
  /**
   * Queues one job of `group` (a team) in the group's next turn, in `tx`: turns are priorities, fetched highest
   * first, so groups' jobs alternate however many one group queues.
   */
  sendInTurn<T>(job: JobDefinition<T>, data: T, opts: { tx: Tx; group: string }): Promise<void>;
  /** Settles fetched jobs in the transaction that records their outcomes: both commit or neither. */
  complete(job: { name: string }, attempts: Array<{ id: string; retryCount: number }>, opts: { tx: Tx }): Promise<void>;
  /** Which of these singleton keys have a job of the queue not yet completed (created, retry or active). */
  liveKeys(job: { name: string }, keys: string[]): Promise<Set<string>>;
  /** Runs the job on a cron schedule (UTC), once across all processes. */
  schedule<T>(job: JobDefinition<T>, cron: string, data?: T): Promise<void>;
  /** Calls `fn` whenever workers of the queue are woken (LISTEN), in consuming processes. */
  onWake(job: { name: string }, fn: () => void): void;
  work<C>(ctx: C, workers: JobWorker<C>[]): Promise<void>;
  /** Every queue's waiting and running jobs now, over the whole database (for the metrics). */
  stats(): Promise<QueueStat[]>;
  stop(): Promise<void>;
};

const SCHEMA = 'pgboss';
/** The priorities of `sendInTurn`'s turns (turn 1 at -1). */
const TURNS = { min: -1_000_000_000, max: -1 };
/** A job id no job has, for a lookup that only fills pg-boss's queue cache. */
const NO_JOB = '00000000-0000-0000-0000-000000000000';

/**
 * Wakes a queue's workers after commit: a NOTIFY inside a transaction serializes every commit behind one
 * global lock. At most once per WAKE_MS per queue, with a trailing wake so a burst's last job is not left to polling.
 */
const WAKE_MS = 50;

function waker(db: Db, log: Logger) {
  const state = new Map<string, { last: number; timer: NodeJS.Timeout | null }>();
  const notify = (name: string) => {
    notifyQueue(db, SCHEMA, name).catch((err: unknown) =>
      log.warn({ err, queue: name }, 'could not wake workers; they will poll'),
    );
  };
  return (name: string) => {
    const s = state.get(name) ?? { last: 0, timer: null };
    state.set(name, s);
    const wait = s.last + WAKE_MS - Date.now();
    if (wait <= 0) {
      s.last = Date.now();
      notify(name);
    } else if (!s.timer) {
      s.timer = setTimeout(() => {
        s.timer = null;
        s.last = Date.now();
        notify(name);
      }, wait);
      s.timer.unref();
    }
  };
}

/** pg-boss's statements are the same text every time: name them so Postgres plans each once per connection. */
const statementName = (text: string) => `pgboss_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;

/** A queue the process uses: created at start if missing, else updated to these options. */
type QueueSpec = Pick<JobDefinition<unknown>, 'name' | 'queue' | 'policy'>;

export type QueueStartOptions = {
  /** Consume jobs: work(), maintenance and schedules, and a LISTEN session for wake-ups. */
  consume: boolean;
  pollSeconds: number;
  /** How long a finished job stays in the job table (see `finishedJobs`); a definition's `deleteAfterSeconds` wins. */
  keepFinishedSeconds: number;
  /** Where the LISTEN session connects (consumers only; the one connection outside the pool). */
  listen: { url: string; applicationName: string } | null;
  /** Jobs the ingest statement embeds, with a sample payload each, verified at start. */
  embeddable: Array<{ job: JobDefinition<unknown>; sample: unknown }>;
};

/** pg-boss's job insert, checked against the live database (see embedded.ts). */
export const verifyEmbeddable = (db: Db, boss: PgBoss, job: JobDefinition<unknown>, sample: unknown): Promise<string> =>
  verifyEmbedding((text, value) => planEmbedded(db, text, value), boss, job, sample);

/**
 * Finished jobs are deleted soon rather than kept pg-boss's default week: Intake's own tables record every
 * outcome, and pg-boss scans the whole job table every minute for its statistics. The pass that deletes them
 * runs every minute, or every `keep` seconds when shorter.
 */
const finishedJobs = (keepSeconds: number) => ({
  queue: { deleteAfterSeconds: keepSeconds },
  pass: { superviseIntervalSeconds: Math.min(60, keepSeconds), maintenanceIntervalSeconds: Math.min(60, keepSeconds) },
});

/** The process's queues, created with their options or updated to them. */
async function ensureQueues(boss: PgBoss, jobs: QueueSpec[], keepFinishedSeconds: number): Promise<void> {
  const defaults = { notify: false, ...finishedJobs(keepFinishedSeconds).queue };
  for (const job of jobs) {
    // notify: false — the in-transaction NOTIFY is replaced by a wake after commit (see waker).
    const existing = await boss.getQueue(job.name);
    if (!existing)
      await boss.createQueue(job.name, { ...defaults, ...job.queue, ...(job.policy ? { policy: job.policy } : {}) });
    else await boss.updateQueue(job.name, { ...defaults, ...job.queue });
  }
  // Refill pg-boss's queue cache, which creating or updating just emptied: a miss asks the pool, so a send
  // inside a transaction would wait for a second connection, and a full pool would deadlock.
  for (const job of jobs) await boss.getJobById(job.name, NO_JOB);
}

/** pg-boss's statements run through a transaction's connection (the job commits with its rows). */
const through = (tx: Tx) => ({ executeSql: (text: string, values?: unknown[]) => tx.query(text, values) });

/** pg-boss on the process's handle: polling always, LISTEN wake-ups, maintenance and schedules when consuming. */
async function startBoss(db: Db, log: Logger, jobs: QueueSpec[], opts: QueueStartOptions) {
  const at = opts.listen;
  const listener = at
    ? queueListener(
        (channel, ...callbacks) => listen(at.url, at.applicationName, channel, ...callbacks),
        jobs.map((j) => j.name),
        log,
      )
    : null;
  const adapter = {
    executeSql: (text: string, values?: unknown[]) => db.query(text, values),
    ...(listener ? { listen: listener.listen } : {}),
  };
  const boss = new PgBoss({
    db: adapter,
    schema: SCHEMA,
    useListenNotify: Boolean(listener),
    supervise: opts.consume,
    schedule: opts.consume,
    ...finishedJobs(opts.keepFinishedSeconds).pass,
  });
  boss.on('error', (err) => log.error({ err }, 'queue error'));
  await boss.start();
  return { boss, onWake: listener ? listener.onWake : () => {} };
}

export async function startQueue(db: Db, log: Logger, jobs: QueueSpec[], opts: QueueStartOptions): Promise<Queue> {
  const { boss, onWake } = await startBoss(db, log, jobs, opts);
  await ensureQueues(boss, jobs, opts.keepFinishedSeconds);
  const embeddedInsert = await embeddedInserts((text, value) => planEmbedded(db, text, value), boss, opts.embeddable);
  const wake = waker(db, log);
  const queue: Queue = {
    boss,
    async send(job, data, sendOpts = {}) {
      const payload = job.payload.parse(data) as object;
      const { tx, ...options } = sendOpts;
      const via = tx
        ? through(tx)
        : { executeSql: (text: string, values?: unknown[]) => db.query(text, values, statementName(text)) };
      const id = await boss.send(job.name, payload, { ...options, db: via });
      if (tx) tx.afterCommit(() => wake(job.name));
      else wake(job.name);
      return id;
    },
    embeddedInsert,
    wake: (job) => wake(job.name),
    async insert(job, items, { tx }) {
      if (!items.length) return;
      const inserts = items.map((i) => ({
        data: job.payload.parse(i.data) as object,
        ...(i.startAfter ? { startAfter: i.startAfter } : {}),
        ...(i.singletonKey ? { singletonKey: i.singletonKey } : {}),
        ...(i.priority ? { priority: i.priority } : {}),
        ...(i.group ? { group: { id: i.group } } : {}),
      }));
      await boss.insert(job.name, inserts, { db: through(tx) });
      tx.afterCommit(() => wake(job.name));
    },
    fetch: (job, batchSize, priority) =>
      boss.fetch(job.name, {
        batchSize,
        includeMetadata: true,
        ...(priority?.min !== undefined ? { minPriority: priority.min } : {}),
        ...(priority?.max !== undefined ? { maxPriority: priority.max } : {}),
      }),
    async bulkTurns(job, group, range, { tx }) {
      await lockGroup(tx, `${job.name}:${group}`);
      return {
        head: await queueHead(tx, SCHEMA, job.name, range),
        tail: await groupTail(tx, SCHEMA, job.name, group, range),
      };
    },
    async sendInTurn(job, data, { tx, group }) {
      const { head, tail } = await queue.bulkTurns(job, group, TURNS, { tx });
      const turn = Math.max(head === null ? 1 : -head, tail === null ? 1 : 1 - tail);
      await queue.insert(job, [{ data, priority: Math.max(TURNS.min, -turn), group }], { tx });
    },
    async complete(job, attempts, { tx }) {
      if (!attempts.length) return;
      // Only the fencing pair: the job's id and the attempt (retryCount) this worker fetched.
      const pairs = attempts.map(({ id, retryCount }) => ({ id, retryCount }));
      await boss.complete(job.name, pairs, null, { db: through(tx) });
    },
    liveKeys: (job, keys) => keysWithLiveJobs(db, SCHEMA, job.name, keys),
    stats: () => queueStats(db, SCHEMA),
    async schedule(job, cron, data) {
      await boss.schedule(job.name, cron, (data ?? {}) as object, { tz: 'UTC' });
    },
    onWake: (job, fn) => onWake(job.name, fn),
    work: (ctx, workers) => startWorkerSlots(boss, ctx, log, workers, opts.pollSeconds),
    stop: () => boss.stop({ graceful: true, timeout: 10_000, close: false }),
  };
  return queue;
}
