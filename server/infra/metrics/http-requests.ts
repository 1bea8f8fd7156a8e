import type { NextFunction, Request, Response } from 'express';
import { Counter, Histogram } from 'prom-client';
import { registry } from './registry.ts';

const requests = new Counter({
  name: 'intake_http_requests_total',
  help: 'HTTP requests answered, by method, route template and status ("aborted": the client left before the answer was complete).',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

const duration = new Histogram({
  name: 'intake_http_request_duration_seconds',
  help: "Time from a request's arrival to the end of its answer, by method and route template (a stream or export: its whole length).",
  labelNames: ['method', 'route'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** What a request that reached no route is counted as: its path is the client's, and unbounded. */
export const UNMATCHED = 'unmatched';

/**
 * The route template a request was answered by (`/v1/forms/:form`), never its path: ids would make a label set
 * per request. A router mounted at a literal path counts under it, lower-cased (mounts match case-insensitively).
 */
export function routeTemplate(req: Request): string {
  const base = req.baseUrl ? req.baseUrl.toLowerCase() : '';
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return `${base}${route.path}` || '/';
  return base ? `${base}/*` : UNMATCHED;
}

/** Counts every request once its answer ends (or its client leaves): one increment and one observation. */
export function countHttpRequests(req: Request, res: Response, next: NextFunction): void {
  const started = performance.now();
  res.once('close', () => {
    const method = METHODS.has(req.method) ? req.method : 'OTHER';
    const route = routeTemplate(req);
    requests.inc({ method, route, status: res.writableFinished ? String(res.statusCode) : 'aborted' });
    duration.observe({ method, route }, (performance.now() - started) / 1000);
  });
  next();
}
