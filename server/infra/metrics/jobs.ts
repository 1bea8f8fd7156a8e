import { Counter, Gauge, Histogram } from 'prom-client';
import { registry } from './registry.ts';

/** One queue's live jobs, as the queue tables hold them now. */
export type QueueStat = {
  queue: string;
  waiting: number;
  running: number;
  deferred: number;
  oldestWaitingSeconds: number;
};

/** Queue figures are read at most this often: scrapes in between (several Prometheus replicas) share them. */
const QUEUE_STATS_TTL_MS = 5_000;
/** How long a scrape waits for a read of them; past it the scrape goes on without them. */
const QUEUE_STATS_WAIT_MS = 1_500;

const processed = new Counter({
  name: 'intake_jobs_processed_total',
  help: 'Background jobs this process ran, by queue and outcome (completed, or failed: pg-boss retries it or gives up after its retry limit).',
  labelNames: ['queue', 'outcome'] as const,
  registers: [registry],
});

const jobDuration = new Histogram({
  name: 'intake_job_duration_seconds',
  help: "Time a background job's handler ran, by queue.",
  labelNames: ['queue'] as const,
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
  registers: [registry],
});

/** Runs one job's handler, counted by queue and outcome. */
export async function countJob<T>(queue: string, run: () => Promise<T>): Promise<T> {
  const end = jobDuration.startTimer({ queue });
  try {
    const result = await run();
    processed.inc({ queue, outcome: 'completed' });
    return result;
  } catch (err) {
    processed.inc({ queue, outcome: 'failed' });
    throw err;
  } finally {
    end();
  }
}

const queueStatErrors = new Counter({
  name: 'intake_queue_stats_errors_total',
  help: 'Scrapes whose read of the queue figures failed (the database was down or slow); the queue gauges are left out of those scrapes.',
  registers: [registry],
});

type QueueSource = { read: () => Promise<QueueStat[]>; busy: () => boolean };
let source: QueueSource | null = null;
let cached: { at: number; stats: QueueStat[] } | null = null;
let reading: Promise<QueueStat[]> | null = null;

/**
 * The queue figures for a scrape: cached briefly, one read at a time, none while requests wait for a pooled
 * connection. A failed read leaves them out; a slow one is not waited for past QUEUE_STATS_WAIT_MS.
 */
async function queueStats(): Promise<QueueStat[]> {
  const s = source;
  if (!s) return [];
  if (cached && Date.now() - cached.at < QUEUE_STATS_TTL_MS) return cached.stats;
  if (cached && s.busy()) return cached.stats;
  reading ??= s
    .read()
    .then((stats) => {
      cached = { at: Date.now(), stats };
      return stats;
    })
    .catch(() => {
      queueStatErrors.inc();
      cached = null;
      return [];
    })
    .finally(() => (reading = null));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<QueueStat[]>((resolve) => (timer = setTimeout(() => resolve([]), QUEUE_STATS_WAIT_MS)));
  try {
    return await Promise.race([reading, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A gauge per queue figure, each set from the one cached read when scraped. */
function queueGauge(name: string, help: string, pick: (s: QueueStat) => number) {
  return new Gauge({
    name,
    help,
    labelNames: ['queue'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const s of await queueStats()) this.set({ queue: s.queue }, pick(s));
    },
  });
}

queueGauge(
  'intake_jobs_waiting',
  'Jobs due and waiting for a worker, by queue (over the whole database: every process reports the same figure).',
  (s) => s.waiting,
);
queueGauge('intake_jobs_running', 'Jobs a worker holds now, by queue (over the whole database).', (s) => s.running);
queueGauge(
  'intake_jobs_deferred',
  'Jobs scheduled for later (retries and delayed attempts not yet due), by queue (over the whole database).',
  (s) => s.deferred,
);
queueGauge(
  'intake_jobs_oldest_waiting_seconds',
  "How long the oldest due job of each queue has waited for a worker (0 when none waits): the backlog's lag. Bulk replay attempts, paced on purpose, are left out.",
  (s) => s.oldestWaitingSeconds,
);

/**
 * Where the queue gauges read from (a process with a queue registers its reader at start); returns the
 * unregistration. The last one registered is read: the figures are the database's, not the process's.
 */
export function watchQueues(read: () => Promise<QueueStat[]>, busy: () => boolean): () => void {
  const mine: QueueSource = { read, busy };
  source = mine;
  cached = null;
  return () => {
    if (source !== mine) return;
    source = null;
    cached = null;
  };
}
