import { Gauge } from 'prom-client';
import { registry } from './registry.ts';

/** What the gauges read of a database handle: node-postgres's pool counts and the stream slots beside them. */
export type PoolSource = {
  pool: { totalCount: number; idleCount: number; waitingCount: number; options: { max?: number } };
  streams: { limit: number; inUse: number; waiting: number };
};

const sources = new Set<PoolSource>();

/** Sums over the handles this process has open (one, outside tests). */
const sum = (f: (s: PoolSource) => number) => [...sources].reduce((n, s) => n + f(s), 0);

new Gauge({
  name: 'intake_db_pool_connections',
  help: "Pooled Postgres connections of this process, by state: in_use (checked out), idle, max (the pool's size).",
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    this.set(
      { state: 'in_use' },
      sum((s) => s.pool.totalCount - s.pool.idleCount),
    );
    this.set(
      { state: 'idle' },
      sum((s) => s.pool.idleCount),
    );
    this.set(
      { state: 'max' },
      sum((s) => s.pool.options.max ?? 0),
    );
  },
});

new Gauge({
  name: 'intake_db_pool_waiting',
  help: 'Callers of this process waiting for a pooled connection now (above 0 for long: the pool is too small or queries too slow).',
  registers: [registry],
  collect() {
    this.set(sum((s) => s.pool.waitingCount));
  },
});

new Gauge({
  name: 'intake_db_stream_connections',
  help: "Pooled connections held by long-lived work (export chunks, the event streams' LISTEN session), by state: in_use, waiting, limit.",
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    this.set(
      { state: 'in_use' },
      sum((s) => s.streams.inUse),
    );
    this.set(
      { state: 'waiting' },
      sum((s) => s.streams.waiting),
    );
    this.set(
      { state: 'limit' },
      sum((s) => s.streams.limit),
    );
  },
});

/** Reads the handle's pool at each scrape (nothing on the query path); returns the unregistration. */
export function watchPool(source: PoolSource): () => void {
  sources.add(source);
  return () => void sources.delete(source);
}
