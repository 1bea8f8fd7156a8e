import { createHash } from 'node:crypto';
import { PgBoss, type Job, type Queue as QueueConfig } from 'pg-boss';
import type { PoolClient } from 'pg';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { afterCommit } from '../db/sql.ts';

/** Queue settings a definition may carry (retries, expiry, dead letter queue). */
export type QueueOptions = Omit<QueueConfig, 'name' | 'policy' | 'partition'>;

/** A background job's queue: its name, payload schema and queue options (retries, expiry). */
export type JobDefinition<T> = {
  name: string;
  payload: z.ZodType<T>;
  queue: QueueOptions;
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

export type SendOptions = { db?: PoolClient; singletonKey?: string; startAfter?: Date | number };

/**
 * pg-boss over the same Postgres: every process that writes can enqueue; workers poll and are woken by
 * LISTEN/NOTIFY so latency is not bound to the polling interval. `send` takes the caller's transaction
 * client so a job is created in the same transaction as the row that causes it.
 */
export type Queue = {
  boss: PgBoss;
  send<T>(job: JobDefinition<T>, data: T, opts?: SendOptions): Promise<string | null>;
  /**
   * pg-boss's own insert statement for one job (what `send` would execute, captured instead), with
   * its single parameter, for a caller that embeds it in a statement of its own. After that statement
   * has committed, call `wake(job)`.
   */
  insertStatement<T>(job: JobDefinition<T>, data: T): Promise<{ text: string; value: unknown }>;
  wake(job: { name: string }): void;
  work<C>(ctx: C, workers: JobWorker<C>[]): Promise<void>;
  stop(): Promise<void>;
};

/** pg-boss's statements are the same text every time: name them so Postgres plans each once per connection. */
function prepared(db: PoolClient) {
  return {
    executeSql: (text: string, values?: unknown[]) =>
      db.query({ name: `pgboss_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`, text, values }),
  };
}

/**
 * Wakes the workers of a queue through pg-boss's LISTEN channel, outside any transaction. A NOTIFY
 * inside a transaction makes every committing transaction queue behind one global lock, so senders
 * notify after commit instead — at most once per WAKE_MS per queue and process, with a trailing wake
 * so the last job of a burst is never left to the polling interval.
 */
const WAKE_MS = 50;
const SCHEMA = 'pgboss';

function waker(boss: PgBoss, log: Logger) {
  const state = new Map<string, { last: number; timer: NodeJS.Timeout | null }>();
  // pg-boss's channel for a schema (its notifyChannelSql); the queue-wake test fails if it ever differs.
  const channel = `'pgboss_' || left(encode(sha224('${SCHEMA}'::bytea), 'hex'), 24)`;
  const notify = (name: string) => {
    boss
      .getDb()
      .executeSql(`SELECT pg_notify(${channel}, $1)`, [name])
      .catch((err: unknown) => log.warn({ err, queue: name }, 'could not wake workers; they will poll'));
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

export async function startQueue(
  databaseUrl: string,
  log: Logger,
  jobs: Array<{ name: string; queue: QueueOptions }>,
  opts: { supervise: boolean; pollSeconds: number },
): Promise<Queue> {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: SCHEMA,
    max: 6,
    useListenNotify: true,
    supervise: opts.supervise,
    schedule: opts.supervise,
  });
  boss.on('error', (err) => log.error({ err }, 'queue error'));
  await boss.start();
  for (const job of jobs) {
    // notify: false — the in-transaction NOTIFY is replaced by a wake after commit (see waker).
    const existing = await boss.getQueue(job.name);
    if (!existing) await boss.createQueue(job.name, { notify: false, ...job.queue });
    else await boss.updateQueue(job.name, { notify: false, ...job.queue });
  }
  const wake = waker(boss, log);
  return {
    boss,
    async send(job, data, sendOpts = {}) {
      const payload = job.payload.parse(data) as object;
      const { db, ...options } = sendOpts;
      const id = await boss.send(job.name, payload, { ...options, ...(db ? { db: prepared(db) } : {}) });
      if (db) afterCommit(db, () => wake(job.name));
      else wake(job.name);
      return id;
    },
    async insertStatement(job, data) {
      const payload = job.payload.parse(data) as object;
      const captured: Array<{ text: string; values: unknown[] }> = [];
      const capture = {
        executeSql: async (text: string, values: unknown[] = []) => {
          captured.push({ text, values });
          return { rows: [{ id: null }] };
        },
      };
      await boss.send(job.name, payload, { db: capture });
      const [stmt] = captured;
      const placeholders = new Set(stmt?.text.match(/\$\d+/g) ?? []);
      // Embedding relies on send being one statement with one parameter ($1); fail loudly if not.
      if (captured.length !== 1 || stmt!.values.length !== 1 || placeholders.size !== 1 || !placeholders.has('$1')) {
        throw new Error(`pg-boss send no longer issues one single-parameter statement (${captured.length} statements)`);
      }
      return { text: stmt!.text, value: stmt!.values[0] };
    },
    wake: (job) => wake(job.name),
    async work(ctx, workers) {
      for (const w of workers) {
        await boss.work(
          w.job.name,
          { batchSize: 1, localConcurrency: w.concurrency ?? 4, pollingIntervalSeconds: opts.pollSeconds },
          async ([job]) => {
            const data = w.job.payload.parse(job!.data);
            await w.handler(ctx, data, job!);
          },
        );
      }
    },
    stop: () => boss.stop({ graceful: true, timeout: 10_000 }),
  };
}
