import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Config } from '../../config.ts';
import { AppError } from '../../domain/shared/errors.ts';

/**
 * The HTTP server around the app, with deadlines that keep slow or hostile clients from holding it: headers,
 * the whole request, a minimum body rate (slowloris), an idle connection (a client that stops reading an
 * export frees its Postgres connection), and keep-alive. Node checks the deadlines every second.
 */

export type HttpServer = {
  server: http.Server;
  url: string;
  /**
   * The first step of a rolling restart: `/readyz` answers 503 so a load balancer stops sending work here, and
   * every answer carries `Connection: close`. Connections are still accepted until `close`.
   */
  drain(): void;
  /**
   * Stops accepting connections; requests in flight finish (answered with `Connection: close`), idle
   * keep-alive connections close at once, and whatever is still open after `graceMs` is cut.
   */
  close(graceMs: number): Promise<void>;
};

/** The readiness probe's answer once the process is shutting down (the app's own /readyz checks the database). */
function notReady(res: http.ServerResponse): void {
  const error = new AppError('service_unavailable', 'This process is shutting down; another one takes its requests.');
  res.writeHead(error.status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'close',
  });
  res.end(JSON.stringify(error.toBody()));
}

const CHECK_INTERVAL_MS = 1_000;
/** The window over which a body's rate is measured. */
export const BODY_RATE_WINDOW_MS = 10_000;

export async function listenHttp(
  app: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  config: Config,
): Promise<HttpServer> {
  const limits = config.http;
  let draining = false;
  let closing = false;
  // Answers under way at the drain close their connection too; once closing, a finished one closes at once.
  const answering = new Set<http.ServerResponse>();
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: CHECK_INTERVAL_MS,
    },
    (req, res) => {
      if (draining) {
        if (req.url === '/readyz' || req.url?.startsWith('/readyz?')) return notReady(res);
        res.setHeader('Connection', 'close');
      }
      answering.add(res);
      res.once('close', () => {
        answering.delete(res);
        if (closing) setImmediate(() => server.closeIdleConnections());
      });
      app(req, res);
    },
  );
  server.timeout = limits.idleTimeoutMs;
  server.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const { port } = server.address() as AddressInfo;
  const drain = () => {
    draining = true;
    for (const res of answering) if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  return {
    server,
    url: `http://localhost:${port}`,
    drain,
    async close(graceMs: number) {
      drain();
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const cut = setTimeout(() => server.closeAllConnections(), graceMs);
      try {
        await closed;
      } finally {
        clearTimeout(cut);
      }
    },
  };
}

/**
 * Cuts a request whose body crawls: while the server is waiting for it (nothing unread is buffered), at
 * least `minRate` bytes a second must arrive over each window. Answered 408 `request_timeout` when no
 * answer has started, and the connection closed either way.
 */
export function minBodyRate(minRate: number, windowMs = BODY_RATE_WINDOW_MS): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (!minRate || !hasBody) return next();
    const socket = req.socket;
    let seen = socket.bytesRead;
    const timer = setInterval(() => {
      if (req.complete) return stop();
      const arrived = socket.bytesRead - seen;
      seen = socket.bytesRead;
      // A full buffer means we are the slow reader (the app is busy), not the client.
      if (arrived >= (minRate * windowMs) / 1000 || req.readableLength >= req.readableHighWaterMark) return;
      stop();
      const error = new AppError(
        'request_timeout',
        `The request body arrived too slowly (under ${minRate} bytes a second); nothing was kept.`,
      );
      if (!res.headersSent) {
        res.setHeader('Connection', 'close');
        res.status(error.status).json(error.toBody());
        res.once('finish', () => socket.destroy());
      } else socket.destroy();
      // The handler still reading the body sees it end early and gives up.
      req.destroy();
    }, windowMs);
    timer.unref();
    const stop = () => clearInterval(timer);
    req.once('end', stop);
    res.once('close', stop);
    next();
  };
}
