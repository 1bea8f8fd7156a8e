import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { AppContext } from '../../context.ts';
import { checkReady } from '../../domain/shared/health.ts';
import { ingestRoutes } from '../public/router.ts';
import { fileLinkRoutes } from './file-links.ts';
import { emailLinkRoutes } from './email-links.ts';
import { browserHelperRoutes } from './browser-helper.ts';
import { AuthFailures } from './auth-failures.ts';
import { jsonBody } from './body-parsing.ts';
import { mcpRoutes } from '../mcp/http.ts';
import { refuseMalformedPath } from './malformed-path.ts';
import { docsRoutes } from './docs.ts';
import { errorHandler, notFoundHandler } from './errors.ts';
import { responseValidation } from './response-validation.ts';
import { minBodyRate } from './http-server.ts';
import { securityHeaders } from './security-headers.ts';
import { metricsRoutes } from './metrics.ts';
import { countHttpRequests } from '../../infra/metrics/http-requests.ts';
import { apiRoutes } from './api.ts';

function requestId(req: Request, res: Response, next: NextFunction) {
  const incoming = req.header('x-request-id');
  const id = incoming && /^[\w.-]{1,128}$/.test(incoming) ? incoming : randomUUID();
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
}

/**
 * The spec's Versioning section carries the version in the prefix `/api/v1`; `/v1` stays canonical (the
 * document's first server, pagination links). `/api/v1/…` is rewritten to `/v1/…` before anything else
 * sees the request, so the alias runs the very same middleware, handlers, abilities, guards, rate limits
 * (one budget: the limit is per token, not per path) and error bodies: there is no second route table to
 * drift from the first.
 */
function apiPrefixAlias(req: Request, _res: Response, next: NextFunction) {
  if (/^\/api\/v1(?=[/?]|$)/.test(req.url)) req.url = req.url.slice('/api'.length);
  next();
}

/** The HTTP application. No listening here: main.ts (or a test) decides where it serves. */
export function createApp(ctx: AppContext): express.Express {
  const app = express();
  // Failed authentications per address, one count for /mcp and the REST API alike.
  const authFailures = new AuthFailures(ctx.config.authFailureLimit, ctx.config.authFailureDelayMs);
  app.disable('x-powered-by');
  // Nobody's X-Forwarded-For counts unless INTAKE_TRUST_PROXY names them: a forged header must not
  // dodge the per-IP limits or write metadata.ip.
  app.set('trust proxy', ctx.config.trustProxy);
  app.use(apiPrefixAlias);
  app.use(requestId);
  app.use(countHttpRequests);
  app.use(securityHeaders);
  app.use(refuseMalformedPath);
  app.use(minBodyRate(ctx.config.http.minBodyRate));
  app.get('/healthz', (_req, res) => void res.json({ ok: true }));
  app.get('/readyz', async (_req, res, next) => {
    try {
      await checkReady(ctx);
      res.json({ ok: true });
    } catch (err) {
      next(err);
    }
  });
  app.use(metricsRoutes(ctx.config.metrics.token));
  app.use(docsRoutes());
  app.use(ingestRoutes(ctx));
  app.use(browserHelperRoutes());
  app.use(fileLinkRoutes(ctx));
  app.use(emailLinkRoutes(ctx));
  app.use(mcpRoutes(ctx, authFailures));

  if (ctx.config.validateResponses) app.use('/v1', responseValidation(ctx.log));
  app.use('/v1', jsonBody());
  app.use(apiRoutes(ctx, authFailures));

  app.use(notFoundHandler);
  app.use(errorHandler(ctx.log));
  return app;
}
