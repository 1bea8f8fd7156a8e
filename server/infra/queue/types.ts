import type { Job, QueuePolicy, Queue as QueueConfig } from 'pg-boss';
import type { z } from 'zod';

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
  /** At most this many of one group's (a team's) jobs run at once, over every process (pg-boss `groupConcurrency`). */
  perGroup?: number;
  handler(ctx: C, data: T, job: Job<T>): Promise<void>;
};
