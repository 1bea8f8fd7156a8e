import autocannon, { type RequestSpec, type Result } from 'autocannon';
import { Interrupted, isInterrupted, onInterrupt } from './cleanup.ts';

export type LoadOptions = {
  url: string;
  connections: number;
  seconds: number;
  requests: RequestSpec[];
  title: string;
};

export type LoadSummary = {
  seconds: number;
  requests: number;
  /** All responses per second (2xx and others), as autocannon counts them. */
  reqPerSec: number;
  /** 2xx responses per second: what the benchmark is about. */
  okPerSec: number;
  latencyMs: { avg: number; p50: number; p90: number; p99: number; p99_9: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
};

export function summarise(r: Result): LoadSummary {
  const statusCodes = Object.fromEntries(
    Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, Number(s.count)]),
  );
  const ok = Object.entries(statusCodes)
    .filter(([code]) => code.startsWith('2'))
    .reduce((n, [, c]) => n + c, 0);
  const total = Object.values(statusCodes).reduce((n, c) => n + c, 0);
  return {
    seconds: r.duration,
    requests: total,
    reqPerSec: total / r.duration,
    okPerSec: ok / r.duration,
    latencyMs: {
      avg: r.latency.average,
      p50: r.latency.p50,
      p90: r.latency.p90,
      p99: r.latency.p99,
      p99_9: r.latency.p99_9,
      max: r.latency.max,
    },
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes,
  };
}

/** One autocannon run; Ctrl-C stops it and raises Interrupted. Progress: a line every 5 s on stderr. */
export async function runLoad(opts: LoadOptions): Promise<LoadSummary> {
  if (isInterrupted()) throw new Interrupted();
  const instance = autocannon({
    url: opts.url,
    connections: opts.connections,
    duration: opts.seconds,
    timeout: 10,
    title: opts.title,
    requests: opts.requests,
  });
  let seconds = 0;
  let window = 0;
  instance.on('tick', (t: { counter: number }) => {
    seconds++;
    window += t.counter;
    if (seconds % 5 === 0) {
      process.stderr.write(`  ${opts.title}: ${seconds}s ${Math.round(window / 5)} req/s\n`);
      window = 0;
    }
  });
  const off = onInterrupt(() => instance.stop());
  try {
    const result = await instance;
    if (isInterrupted()) throw new Interrupted();
    return summarise(result);
  } finally {
    off();
  }
}
