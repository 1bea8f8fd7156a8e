import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type NextFunction, type Request, type Response, Router } from 'express';
import { AppError } from '../../domain/shared/errors.ts';
import { bearerToken } from '../../domain/accounts/tokens.ts';
import { scrape, startProcessMetrics } from '../../infra/metrics/registry.ts';
import type { Logger } from 'pino';
import { watchPool, type PoolSource } from '../../infra/metrics/database-pool.ts';
import { type QueueStat, watchQueues } from '../../infra/metrics/jobs.ts';

/**
 * `GET /metrics`, off unless configured: on the API's port for a bearer of INTAKE_METRICS_TOKEN, and/or on a
 * listener of its own (INTAKE_METRICS_PORT) without authentication, as a worker serves it.
 */

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** Whether the header carries the token; both sides hashed first, so timing reveals nothing of a guess. */
export function carriesToken(header: string | undefined, token: string): boolean {
  const given = bearerToken(header) ?? '';
  return timingSafeEqual(digest(given), digest(token)) && given !== '';
}

async function serveScrape(res: http.ServerResponse): Promise<void> {
  const { contentType, body } = await scrape();
  res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
  res.end(body);
}

/** The route on the API's port: present only with a token, so without one `/metrics` is an unknown route (404). */
export function metricsRoutes(token: string | undefined): Router {
  const router = Router();
  if (!token) return router;
  startProcessMetrics();
  router.get('/metrics', (req: Request, res: Response, next: NextFunction) => {
    if (!carriesToken(req.headers.authorization, token)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="intake-metrics"');
      return next(
        new AppError(
          'unauthenticated',
          'Metrics need the metrics token: send Authorization: Bearer <INTAKE_METRICS_TOKEN>.',
        ),
      );
    }
    serveScrape(res).catch(next);
  });
  return router;
}

export type MetricsListener = { url: string; close(): Promise<void> };

function sendError(res: http.ServerResponse, error: AppError): void {
  res.writeHead(error.status, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(error.toBody()));
}

/** The listener of INTAKE_METRICS_PORT (0: any free port, for tests): `/metrics` and nothing else. */
export async function listenMetrics(opts: { host: string; port: number }): Promise<MetricsListener> {
  startProcessMetrics();
  const server = http.createServer({ headersTimeout: 10_000, requestTimeout: 30_000 }, (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') return sendError(res, new AppError('not_found', 'Only /metrics is served on this port.'));
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return sendError(res, new AppError('not_found', `No route for ${req.method} /metrics.`));
    serveScrape(res).catch(() => sendError(res, new AppError('internal_error', 'The metrics could not be collected.')));
  });
  server.listen(opts.port, opts.host);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const { port } = server.address() as AddressInfo;
  const host =
    opts.host === '0.0.0.0' || opts.host === '::'
      ? 'localhost'
      : opts.host.includes(':')
        ? `[${opts.host}]`
        : opts.host;
  return {
    url: `http://${host}:${port}/metrics`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/**
 * What a started process adds to its metrics: its database pool, the queue tables (when it has a queue),
 * and INTAKE_METRICS_PORT's listener when set. Returns what undoes it, for the process's shutdown.
 */
export async function startMetrics(
  opts: { host: string; port: number | undefined; log: Logger },
  parts: { db: PoolSource; queue: { stats(): Promise<QueueStat[]> } | null },
): Promise<() => Promise<void>> {
  const unwatchPool = watchPool(parts.db);
  const queue = parts.queue;
  const unwatchQueues = queue
    ? watchQueues(
        () => queue.stats(),
        () => parts.db.pool.waitingCount > 0,
      )
    : () => {};
  const listener = opts.port === undefined ? null : await listenMetrics({ host: opts.host, port: opts.port });
  if (listener) opts.log.info({ url: listener.url }, 'metrics listening');
  return async () => {
    await listener?.close();
    unwatchQueues();
    unwatchPool();
  };
}
