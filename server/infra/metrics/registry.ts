import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The process's one metrics registry, counted whether or not anything scrapes it. Process-wide rather than
 * per runtime: the hooks sit in code with no context to carry one, and a process serves one Intake.
 */
export const registry = new Registry();

let processMetrics = false;

/** prom-client's process and Node.js metrics under their usual names; started only where metrics are served. */
export function startProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: registry });
}

/** The Prometheus text exposition of every metric, collected now. */
export async function scrape(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
