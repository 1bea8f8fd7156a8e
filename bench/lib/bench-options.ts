/** The ingest bench's forms: `default` a plain contact form; `admission` the same with a unique rule and an entry limit. */
export const INGEST_SHAPES = ['default', 'admission'] as const;
export type IngestShape = (typeof INGEST_SHAPES)[number];

/**
 * What `node bench/run.ts` passes each benchmark. Its own module so a benchmark (bench/ingest.ts) and the
 * runner that loads it (bench/run.ts) both import it without importing each other.
 */
export type BenchOptions = {
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** Repetitions of all targets, alternating (a noisy machine drifts; each round compares like with like). */
  rounds: number;
  /** Write a V8 CPU profile of each server and summarise it. */
  cpuProf: boolean;
  /** pg_stat_statements (restarts the embedded Postgres with it preloaded). */
  pgStats: boolean;
  verbose: boolean;
  /** Run one target of a benchmark only (e.g. `intake`); ratios need all. */
  only: string | null;
  /** The ingest bench's form (see INGEST_SHAPES). */
  shape: IngestShape;
  command: string;
};
