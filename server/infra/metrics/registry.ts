import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The process's one metrics registry. Metrics are counted whether or not anything scrapes them (an
 * increment costs less than asking whether to make it); what is served, and to whom, is server/transports/http/metrics.ts.
 * Process-wide rather than per runtime: the hooks sit in code that has no context to carry a registry
 * (the sender's callers, the stream registries), and a process serves one Intake.
 */
export const registry = new Registry();

let processMetrics = false;

/**
 * prom-client's process and Node.js metrics (CPU, memory, event-loop lag, GC, handles), under their usual
 * names so existing dashboards read them. Started only where metrics are served: the event-loop and GC
 * observers cost a little in every process otherwise.
 */
export function startProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: registry });
}

/** The Prometheus text exposition of every metric, collected now. */
export async function scrape(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
