import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { PgBoss, type Job, type QueuePolicy, type Queue as QueueConfig } from 'pg-boss';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Db, Tx } from '../db/database.ts';
import { listen } from '../db/listener.ts';
import { groupTail, lockGroup, queueHead } from '../db/queries/jobs.ts';
import { keysWithLiveJobs, notifyQueue, planEmbedded } from '../db/queries/queue.ts';
import { queueStats } from '../db/queries/queue-stats.ts';
import { countJob, type QueueStat } from '../metrics/jobs.ts';

/** Queue settings a definition may carry (retries, expiry, dead letter queue). */
export type QueueOptions = Omit<QueueConfig, 'name' | 'policy' | 'partition'>;

/** A background job's queue: its name, payload schema and queue options (retries, expiry). */
export type JobDefinition<T> = {
  name: string;
  payload: z.ZodType<T>;
  queue: QueueOptions;
  /** pg-boss's queue policy, set when the queue is created (it cannot change later); default `standard`. */
  policy?: QueuePolicy;
};

/** What a worker process runs for one queue. */
export type JobWorker<C, T = unknown> = {
  job: JobDefinition<T>;
  concurrency?: number;
  handler(ctx: C, data: T, job: Job<T>): Promise<void>;
};

export function worker<C, T>(job: JobDefinition<T>, handler: JobWorker<C, T>['handler'], concurrency?: number): JobWorker<C> {
  return { job, handler, concurrency } as JobWorker<C>;
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
 * pg-boss's insert of one job, to be embedded as a CTE in a statement whose `$1` is `value`: the JSON text of
 * an array of jobs (verified at start), so the jobs of several posts can be inserted by one statement.
 */
export type EmbeddedInsert = { text: string; value: string };

/**
 * pg-boss over the process's one database handle: every process that writes can enqueue; workers poll and
 * are woken by LISTEN/NOTIFY so latency is not bound to the polling interval.
 */
export type Queue = {
  boss: PgBoss;
  send<T>(job: JobDefinition<T>, data: T, opts?: SendOptions): Promise<string | null>;
  /**
   * pg-boss's own insert statement for one job (what `send` would execute, captured instead) with its one
   * parameter, for the one-statement ingest. Its shape is verified when the queue starts; after the
   * embedding statement has committed, call `wake(job)`.
   */
  embeddedInsert<T>(job: JobDefinition<T>, data: T): Promise<EmbeddedInsert>;
  wake(job: { name: string }): void;
  /** Creates many jobs of one queue in one statement, in the transaction `tx`; workers are woken after commit. */
  insert<T>(job: JobDefinition<T>, items: Array<InsertItem<T>>, opts: { tx: Tx }): Promise<void>;
  /**
   * Up to `batchSize` jobs of a queue a custom worker loop takes (see jobs/delivery-runner.ts); `priority`
   * restricts it to jobs of priorities in that range (either bound optional).
   */
  fetch<T>(job: JobDefinition<T>, batchSize: number, priority?: { min?: number; max?: number }): Promise<Array<FetchedJob<T>>>;
  /**
   * Where a group's next jobs go among the queue's waiting jobs of priorities in `[min, max]`: the highest
   * priority waiting (the turn being served), and the lowest of the group's own (its last turn), each
   * null when there is none. Locks the group for `tx`, so two transactions of one group take turns one
   * after the other (see domain/deliveries.ts, bulk turns).
   */
  bulkTurns(job: { name: string }, group: string, range: { min: number; max: number }, opts: { tx: Tx }): Promise<{ head: number | null; tail: number | null }>;
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

export const PG_BOSS_VERSION: string = (createRequire(import.meta.url)('pg-boss/package.json') as { version: string }).version;

const SCHEMA = 'pgboss';
/** A job id no job has, for a lookup that only fills pg-boss's queue cache. */
const NO_JOB = '00000000-0000-0000-0000-000000000000';

/**
 * Wakes the workers of a queue through pg-boss's LISTEN channel, outside any transaction. A NOTIFY inside
 * a transaction makes every committing transaction queue behind one global lock, so senders notify after
 * commit instead — at most once per WAKE_MS per queue and process, with a trailing wake so the last job
 * of a burst is never left to the polling interval.
 */
const WAKE_MS = 50;

function waker(db: Db, log: Logger) {
  const state = new Map<string, { last: number; timer: NodeJS.Timeout | null }>();
  const notify = (name: string) => {
    notifyQueue(db, SCHEMA, name).catch((err: unknown) => log.warn({ err, queue: name }, 'could not wake workers; they will poll'));
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

function isJsonArrayOfOne(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) && parsed.length === 1;
  } catch {
    return false;
  }
}

/** What `boss.send` executes for one job, captured instead of run. */
async function captureSend(boss: PgBoss, name: string, payload: object): Promise<Array<{ text: string; values: unknown[] }>> {
  const captured: Array<{ text: string; values: unknown[] }> = [];
  const capture = {
    executeSql: async (text: string, values: unknown[] = []) => {
      captured.push({ text, values });
      return { rows: [{ id: null }] };
    },
  };
  await boss.send(name, payload, { db: capture });
  return captured;
}

/**
 * The one-statement ingest embeds pg-boss's private INSERT. Checked once at start, against the live
 * database, so a pg-boss upgrade that changes it stops the process with a clear message instead of
 * turning every clean post into a 500: one statement, one parameter ($1), valid as a CTE.
 */
export async function verifyEmbeddable(db: Db, boss: PgBoss, job: JobDefinition<unknown>, sample: unknown): Promise<string> {
  const fail = (why: string) =>
    new Error(
      `pg-boss ${PG_BOSS_VERSION}: ${why}. The one-statement ingest (server/db/queries/submission-inserts.ts) embeds pg-boss's job ` +
        'insert and was built against pg-boss 12.35.0; pin that version or adapt the ingest statement.',
    );
  let captured: Array<{ text: string; values: unknown[] }>;
  try {
    captured = await captureSend(boss, job.name, job.payload.parse(sample) as object);
  } catch (err) {
    throw fail(`send failed while being captured (${(err as Error).message})`);
  }
  if (captured.length !== 1) throw fail(`send issued ${captured.length} statements instead of 1`);
  const [{ text, values }] = captured as [{ text: string; values: unknown[] }];
  const placeholders = new Set(text.match(/\$\d+/g) ?? []);
  if (values.length !== 1 || placeholders.size !== 1 || !placeholders.has('$1')) {
    throw fail(`send's statement takes ${values.length} parameter(s) (${[...placeholders].join(', ') || 'none'}) instead of just $1`);
  }
  // Batched ingest merges the jobs of several posts into one array: $1 must be the JSON text of an array.
  if (typeof values[0] !== 'string' || !isJsonArrayOfOne(values[0])) throw fail("send's parameter is no longer a JSON array of jobs");
  try {
    await planEmbedded(db, text, values[0]);
  } catch (err) {
    throw fail(`its insert no longer plans as a CTE (${(err as Error).message})`);
  }
  return text;
}

export type QueueStartOptions = {
  /** Consume jobs: work(), maintenance and schedules, and a LISTEN session for wake-ups. */
  consume: boolean;
  pollSeconds: number;
  /** Where the LISTEN session connects (consumers only; the one connection outside the pool). */
  listen: { url: string; applicationName: string } | null;
  /** Jobs the ingest statement embeds, with a sample payload each, verified at start. */
  embeddable: Array<{ job: JobDefinition<unknown>; sample: unknown }>;
};

export async function startQueue(
  db: Db,
  log: Logger,
  jobs: Array<{ name: string; queue: QueueOptions; policy?: QueuePolicy }>,
  opts: QueueStartOptions,
): Promise<Queue> {
  const { listen: listenAt } = opts;
  const wakeHandlers = new Map<string, Array<() => void>>();
  const adapter = {
    executeSql: (text: string, values?: unknown[]) => db.query(text, values),
    ...(listenAt
      ? {
          listen: (channel: string, onNotification: (payload: string) => void, onReconnect: () => void) => {
            const wakeQueue = (payload: string) => {
              onNotification(payload);
              for (const fn of wakeHandlers.get(payload) ?? []) fn();
            };
            return listen(
              listenAt.url,
              listenAt.applicationName,
              channel,
              wakeQueue,
              () => {
                onReconnect();
                // Wakes sent while the session was down (a Postgres restart) were lost. pg-boss's own catch-up
                // only covers queues with in-transaction notify, which ours turn off (see waker): every queue
                // fetches once, so a job sent in the gap does not wait for the polling interval.
                for (const job of jobs) wakeQueue(job.name);
              },
              (err) => log.warn({ err }, 'queue LISTEN session lost; reconnecting'),
            );
          },
        }
      : {}),
  };
  const boss = new PgBoss({
    db: adapter,
    schema: SCHEMA,
    useListenNotify: Boolean(listenAt),
    supervise: opts.consume,
    schedule: opts.consume,
  });
  boss.on('error', (err) => log.error({ err }, 'queue error'));
  await boss.start();
  for (const job of jobs) {
    // notify: false — the in-transaction NOTIFY is replaced by a wake after commit (see waker).
    const existing = await boss.getQueue(job.name);
    if (!existing) await boss.createQueue(job.name, { notify: false, ...job.queue, ...(job.policy ? { policy: job.policy } : {}) });
    else await boss.updateQueue(job.name, { notify: false, ...job.queue });
  }
  // pg-boss looks each queue up in a cache that creating or updating it has just emptied (refilled every
  // minute), and a lookup that misses asks the pool. A job sent inside a transaction, which holds a
  // connection, would then wait for a second one: with as many jobs at work as pooled connections (a worker
  // started on a backlog) every connection waits for another. Filled here, through a lookup by id.
  for (const job of jobs) await boss.getJobById(job.name, NO_JOB);
  const verified = new Map<string, string>();
  for (const { job, sample } of opts.embeddable) verified.set(job.name, await verifyEmbeddable(db, boss, job, sample));

  const wake = waker(db, log);
  return {
    boss,
    async send(job, data, sendOpts = {}) {
      const payload = job.payload.parse(data) as object;
      const { tx, ...options } = sendOpts;
      const through = tx
        ? { executeSql: (text: string, values?: unknown[]) => tx.query(text, values) }
        : { executeSql: (text: string, values?: unknown[]) => db.query(text, values, statementName(text)) };
      const id = await boss.send(job.name, payload, { ...options, db: through });
      if (tx) tx.afterCommit(() => wake(job.name));
      else wake(job.name);
      return id;
    },
    async embeddedInsert(job, data) {
      const text = verified.get(job.name);
      if (!text) throw new Error(`${job.name} is not verified for embedding (list it in the queue's embeddable jobs)`);
      const [captured] = await captureSend(boss, job.name, job.payload.parse(data) as object);
      if (captured?.text !== text) throw new Error(`pg-boss ${PG_BOSS_VERSION} changed its ${job.name} insert since start`);
      return { text, value: captured.values[0] as string };
    },
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
      await boss.insert(job.name, inserts, { db: { executeSql: (text: string, values?: unknown[]) => tx.query(text, values) } });
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
      return { head: await queueHead(tx, SCHEMA, job.name, range), tail: await groupTail(tx, SCHEMA, job.name, group, range) };
    },
    async complete(job, attempts, { tx }) {
      if (!attempts.length) return;
      // Only the fencing pair: the job's id and the attempt (retryCount) this worker fetched.
      const pairs = attempts.map(({ id, retryCount }) => ({ id, retryCount }));
      await boss.complete(job.name, pairs, null, { db: { executeSql: (text: string, values?: unknown[]) => tx.query(text, values) } });
    },
    liveKeys: (job, keys) => keysWithLiveJobs(db, SCHEMA, job.name, keys),
    stats: () => queueStats(db, SCHEMA),
    async schedule(job, cron, data) {
      await boss.schedule(job.name, cron, (data ?? {}) as object, { tz: 'UTC' });
    },
    onWake(job, fn) {
      wakeHandlers.set(job.name, [...(wakeHandlers.get(job.name) ?? []), fn]);
    },
    async work(ctx, workers) {
      // pg-boss waits out the polling interval after every fetch, even one that found a job (at batchSize 1
      // it never bursts), so a backlog no NOTIFY wakes for would be taken one job per slot per interval.
      // Each slot is a pg-boss worker of its own that its handler wakes once a job is done: it fetches the
      // next at once, and only an empty fetch (or a failed job) leaves it to polling and LISTEN.
      for (const w of workers) {
        for (let slot = 0; slot < (w.concurrency ?? 4); slot++) {
          let workerId: string | null = null;
          workerId = await boss.work(
            w.job.name,
            { batchSize: 1, localConcurrency: 1, pollingIntervalSeconds: opts.pollSeconds },
            async ([job]) => {
              const data = w.job.payload.parse(job!.data);
              await countJob(w.job.name, () => w.handler(ctx, data, job!));
              if (workerId) boss.notifyWorker(workerId);
            },
          );
        }
      }
    },
    stop: () => boss.stop({ graceful: true, timeout: 10_000, close: false }),
  };
}
