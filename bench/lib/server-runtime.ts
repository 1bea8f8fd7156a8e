/**
 * What the server's own runtime went through during a run, read from its Prometheus endpoint
 * (`INTAKE_METRICS_TOKEN`, prom-client's default process metrics): time in garbage collection by kind, the
 * pauses over 10 and 100 ms, and the event loop's delay. A latency tail that no statement explains is most
 * often the event loop held — a long synchronous stretch or a major GC — and these say which.
 */

export type RuntimeSnapshot = { samples: Map<string, number> };

export type RuntimeReport = {
  /** GC seconds in the run, by kind (major = mark-compact, minor = scavenge, incremental, weakcb). */
  gcSeconds: Record<string, number>;
  /** GC pauses in the run longer than 10 ms and than 100 ms (from the histogram's buckets). */
  gcPausesOver10Ms: number;
  gcPausesOver100Ms: number;
  /** Event-loop delay over the run (prom-client resets its monitor at each scrape): max and p99, ms. */
  eventLoopDelayMaxMs: number | null;
  eventLoopDelayP99Ms: number | null;
  heapUsedMb: number | null;
};

/** `name{labels} value` lines of the Prometheus text format, keyed by `name{labels}`. */
function parse(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    const value = Number(line.slice(at + 1));
    if (Number.isFinite(value)) samples.set(line.slice(0, at), value);
  }
  return samples;
}

export async function scrapeRuntime(origin: string, token: string): Promise<RuntimeSnapshot> {
  const res = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET /metrics answered ${res.status}`);
  return { samples: parse(await res.text()) };
}

const round = (n: number, places = 3) => Math.round(n * 10 ** places) / 10 ** places;

/** The run between two scrapes: GC as differences, the event loop as the later scrape saw it. */
export function runtimeBetween(before: RuntimeSnapshot, after: RuntimeSnapshot): RuntimeReport {
  const delta = (key: string) => (after.samples.get(key) ?? 0) - (before.samples.get(key) ?? 0);
  const gcSeconds: Record<string, number> = {};
  let over10 = 0;
  let over100 = 0;
  for (const key of after.samples.keys()) {
    const sum = /^nodejs_gc_duration_seconds_sum\{kind="(\w+)"\}$/.exec(key);
    if (sum) gcSeconds[sum[1]!] = round(delta(key));
    if (!key.startsWith('nodejs_gc_duration_seconds_bucket{')) continue;
    const le = /le="([^"]+)"/.exec(key)?.[1];
    const count = `nodejs_gc_duration_seconds_count{kind="${/kind="(\w+)"/.exec(key)?.[1]}"}`;
    if (le === '0.01') over10 += delta(count) - delta(key);
    if (le === '0.1') over100 += delta(count) - delta(key);
  }
  const ms = (key: string) => {
    const v = after.samples.get(key);
    return v === undefined ? null : round(v * 1000, 1);
  };
  const heap = after.samples.get('nodejs_heap_size_used_bytes');
  return {
    gcSeconds,
    gcPausesOver10Ms: over10,
    gcPausesOver100Ms: over100,
    eventLoopDelayMaxMs: ms('nodejs_eventloop_lag_max_seconds'),
    eventLoopDelayP99Ms: ms('nodejs_eventloop_lag_p99_seconds'),
    heapUsedMb: heap === undefined ? null : Math.round(heap / 1e6),
  };
}
