/**
 * An ordinary tenant's traffic for the noisy-neighbour benchmark (bench/noisy-neighbour.ts): visitors posting
 * to its public form and its integration listing submissions through the API, plus a `/healthz` probe.
 *
 * Each client sends a request, waits for the answer, then waits out the rest of its interval before the
 * next (an interval of 0 is a closed loop). A steady, paced tenant is what the benchmark protects: driven
 * flat out, its latency would measure how the two cores are shared, not whether another tenant can hold
 * what it needs. A request that never gets an answer is timed until it fails, so a stall shows in the
 * latencies as well as in the errors.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Pool } from 'undici';
import { BROWSER_HEADERS, contactFormBodies } from './contact-form.ts';

export type LatencyStats = {
  requests: number;
  ok: number;
  /** Non-2xx answers plus requests with no answer (socket errors, timeouts). */
  errors: number;
  perSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  statuses: Record<string, number>;
  errorSamples: string[];
  /** The run's slowest requests, slowest first (the report sets what Postgres was doing beside them). */
  slowest: SlowRequest[];
  /**
   * Where the slowest 1 % fell (the requests at or above the p99): second of the run → how many started in it,
   * busiest seconds first. A tail in a few seconds is a burst of something else; spread out, it is steady contention.
   */
  tailSeconds: Array<[second: number, requests: number]>;
};

export type TenantLoadOptions = {
  origin: string;
  seconds: number;
  formId: string;
  /** One token per lister, so the tenant stays inside its own per-token API budget. */
  listTokens: string[];
  posters: number;
  postIntervalMs: number;
  listIntervalMs: number;
  healthIntervalMs: number;
  /** Number of the first simulated visitor address (so phases do not share addresses and per-address windows). */
  firstClient: number;
  postsPerClient: number;
  timeoutMs: number;
};

/**
 * `clientDelayMs`: the event-loop delay of the process measuring (p99 and max, ms) — a latency is measured
 * from that loop, so a stall of it shows in every request in flight, whatever the server did.
 */
export type TenantLoadResult = {
  posts: LatencyStats;
  lists: LatencyStats;
  health: LatencyStats;
  clientDelayMs: { p99: number; max: number };
};

/** Submission id → Date.now() when its post was answered 201: the start of its delivery's latency. */
export type Accepted = Map<string, number>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return NaN;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10;
}

/** One of the slowest requests of a run: when it started (epoch ms) and how long it took. */
export type SlowRequest = { at: number; ms: number };

class Recorder {
  private latencies: number[] = [];
  private timed: SlowRequest[] = [];
  private statuses: Record<string, number> = {};
  private samples: string[] = [];
  private ok = 0;
  private errors = 0;

  answer(ms: number, status: number, body: string): void {
    this.latencies.push(ms);
    this.timed.push({ at: Date.now() - ms, ms });
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
    if (status >= 200 && status < 300) this.ok += 1;
    else this.fail(`${status} ${body.slice(0, 160)}`);
  }

  noAnswer(ms: number, err: unknown): void {
    this.latencies.push(ms);
    this.timed.push({ at: Date.now() - ms, ms });
    // AbortSignal.timeout's DOMException has a numeric legacy code: its name says more.
    const e = err as { code?: unknown; name?: string };
    const code = typeof e.code === 'string' ? e.code : (e.name ?? 'Error');
    this.statuses[code] = (this.statuses[code] ?? 0) + 1;
    this.fail(`${code}: ${(err as Error).message.slice(0, 160)}`);
  }

  private fail(sample: string): void {
    this.errors += 1;
    if (this.samples.length < 10) this.samples.push(sample);
  }

  stats(seconds: number, startedAt: number): LatencyStats {
    const sorted = this.latencies.slice().sort((a, b) => a - b);
    const p99 = quantile(sorted, 0.99);
    const tail = new Map<number, number>();
    for (const r of this.timed) {
      if (Math.round(r.ms * 10) / 10 < p99) continue;
      const second = Math.floor((r.at - startedAt) / 1000);
      tail.set(second, (tail.get(second) ?? 0) + 1);
    }
    return {
      requests: sorted.length,
      ok: this.ok,
      errors: this.errors,
      perSecond: Math.round((sorted.length / seconds) * 10) / 10,
      latencyMs: { p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9), p99, max: quantile(sorted, 1) },
      statuses: this.statuses,
      errorSamples: this.samples,
      slowest: this.timed
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 8)
        .map((r) => ({ at: r.at, ms: Math.round(r.ms * 10) / 10 })),
      tailSeconds: [...tail].sort((a, b) => b[1] - a[1] || a[0] - b[0]),
    };
  }
}

/** The address of simulated visitor `n`, in 10.0.0.0/8 (the soak's scheme). */
function clientAddress(n: number): string {
  const v = n + 1;
  return `10.${(v >> 16) & 255}.${(v >> 8) & 255}.${v & 255}`;
}

export async function runTenantLoad(
  opts: TenantLoadOptions,
): Promise<TenantLoadResult & { postsSent: number; accepted: Accepted }> {
  const pool = new Pool(opts.origin, {
    connections: opts.posters + opts.listTokens.length + 1,
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  });
  const bodies = contactFormBodies(200, 7);
  const posts = new Recorder();
  const lists = new Recorder();
  const health = new Recorder();
  const started = performance.now();
  const startedAt = Date.now();
  const until = started + opts.seconds * 1000;
  let postSeq = 0;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();

  const accepted: Accepted = new Map();
  const request = async (rec: Recorder, req: Parameters<Pool['request']>[0]) => {
    const t0 = performance.now();
    try {
      const res = await pool.request({ ...req, signal: AbortSignal.timeout(opts.timeoutMs) });
      const text = await res.body.text();
      rec.answer(performance.now() - t0, res.statusCode, text);
      if (rec === posts && res.statusCode === 201) accepted.set((JSON.parse(text) as { id: string }).id, Date.now());
    } catch (err) {
      rec.noAnswer(performance.now() - t0, err);
    }
    return performance.now() - t0;
  };

  const paced = async (intervalMs: number, once: () => Promise<number>) => {
    // Spread the clients over the first interval so they do not fire in lockstep.
    await sleep(Math.random() * intervalMs);
    while (performance.now() < until) {
      const took = await once();
      if (intervalMs > took) await sleep(intervalMs - took);
    }
  };

  const poster = () =>
    paced(opts.postIntervalMs, () => {
      const seq = postSeq++;
      return request(posts, {
        path: `/f/${opts.formId}`,
        method: 'POST',
        headers: {
          ...BROWSER_HEADERS,
          'x-forwarded-for': clientAddress(opts.firstClient + Math.floor(seq / opts.postsPerClient)),
        },
        body: bodies[seq % bodies.length]!,
      });
    });
  const lister = (token: string) =>
    paced(opts.listIntervalMs, () =>
      request(lists, {
        path: `/v1/forms/${opts.formId}/submissions?per_page=25`,
        method: 'GET',
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      }),
    );
  const prober = () => paced(opts.healthIntervalMs, () => request(health, { path: '/healthz', method: 'GET' }));

  try {
    await Promise.all([...Array.from({ length: opts.posters }, poster), ...opts.listTokens.map(lister), prober()]);
  } finally {
    loop.disable();
    await pool.destroy();
  }
  const seconds = (performance.now() - started) / 1000;
  const clientDelayMs = { p99: Math.round(loop.percentile(99) / 1e5) / 10, max: Math.round(loop.max / 1e5) / 10 };
  return {
    posts: posts.stats(seconds, startedAt),
    lists: lists.stats(seconds, startedAt),
    health: health.stats(seconds, startedAt),
    clientDelayMs,
    postsSent: postSeq,
    accepted,
  };
}
