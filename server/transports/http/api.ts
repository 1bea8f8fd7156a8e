import { isAppRouteNoBody, isAppRouteOtherResponse } from '@ts-rest/core';
import express, { type Request, type Response } from 'express';
import { Stream } from 'node:stream';
import type { AppContext } from '../../context.ts';
import { contract } from '../../../contract/index.ts';
import type { RouteKey } from '../../operations/index.ts';
import {
  bearerChallenge,
  routeOf,
  runPipeline,
  type Call,
  type RawRequest,
  type Result,
} from '../../operations/pipeline.ts';
import type { RouteMetadata } from '../../../contract/index.ts';
import { unsupportedBody } from './body-parsing.ts';
import { readPostBody } from '../public/body.ts';
import { refuseFailedAuth, type AuthFailures } from './auth-failures.ts';
import { eventsFraming } from './framing/events.ts';
import type { Framing } from './framing/framing.ts';
import { submissionsFraming } from './framing/submissions.ts';

const framings: Partial<Record<RouteKey, Framing>> = { ...eventsFraming, ...submissionsFraming };

/** Thrown once a failed authentication has been answered by `refuseFailedAuth` itself. */
const ANSWERED = Symbol('answered');

/**
 * Every contract route, run through the operation pipeline (server/operations/pipeline.ts). What only HTTP
 * has: `WWW-Authenticate` and the per-address failed-authentication bound, the `RateLimit` headers, and
 * the `framings` of results that are more than a JSON body.
 */
export function apiRoutes(ctx: AppContext, failures: AuthFailures): express.Router {
  const router = express.Router();
  // In the contract's order, as express matches the first route that fits (`…/submissions/export` before
  // `…/submissions/:submission`).
  for (const key of Object.keys(contract) as RouteKey[]) {
    const route = routeOf(key);
    const frame = framings[key];
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    router[method](route.path, async (req, res, next) => {
      res.locals.route = route;
      try {
        const result = await runPipeline(ctx, restCall(key, req, res, failures));
        send(res, key, frame ? frame(ctx, result, { req, res }) : result);
      } catch (err) {
        if (err !== ANSWERED) next(err);
      }
    });
  }
  return router;
}

/** A multipart body: streamed by a route that takes uploads, refused (415) by any other. */
function multipart(key: RouteKey, req: Request, res: Response): Pick<RawRequest, 'upload' | 'refused'> {
  if (!res.locals.multipart) return {};
  if (!(routeOf(key).metadata as RouteMetadata).uploads) return { refused: unsupportedBody() };
  return { upload: (limits) => readPostBody(req, limits) };
}

function restCall(key: RouteKey, req: Request, res: Response, failures: AuthFailures): Call {
  const authorization = req.headers.authorization;
  return {
    key,
    credentials: { authorization },
    request: {
      params: req.params,
      query: req.query as Record<string, unknown>,
      body: req.body,
      headers: req.headers,
      refused: res.locals.bodyError,
      pathInUrl: true,
      ...multipart(key, req, res),
    },
    signal: clientSignal(req, res),
    hooks: {
      unauthenticated: (err) => {
        const refused = failures.hit(req.ip);
        if (refused) {
          refuseFailedAuth(failures, req, res, refused);
          throw ANSWERED;
        }
        res.setHeader('WWW-Authenticate', bearerChallenge(authorization));
        return err;
      },
      budget: (budget) => {
        res.setHeader('RateLimit-Policy', `${budget.limit};w=${budget.windowSeconds}`);
        res.setHeader(
          'RateLimit',
          `limit=${budget.limit}, remaining=${budget.remaining}, reset=${budget.resetSeconds}`,
        );
        if (budget.exceeded) res.setHeader('Retry-After', String(budget.resetSeconds));
      },
    },
  };
}

/** A result as the route's response: a stream piped, no body, another content type, or JSON. */
function send(res: Response, key: RouteKey, { status, body, headers }: Result): void {
  for (const [name, value] of Object.entries(headers ?? {})) res.setHeader(name, value);
  if (body instanceof Stream) return void body.pipe(res.status(status));
  const response = routeOf(key).responses[status];
  if (isAppRouteNoBody(response)) return void res.status(status).end();
  if (isAppRouteOtherResponse(response)) {
    res.setHeader('content-type', response.contentType);
    return void res.status(status).send(body);
  }
  res.status(status).json(body);
}

/** Aborted when the client goes away before its answer is sent (a request waiting for its turn then leaves the line). */
function clientSignal(req: Request, res: Response): AbortSignal {
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  if (req.socket.destroyed) gone.abort();
  return gone.signal;
}
