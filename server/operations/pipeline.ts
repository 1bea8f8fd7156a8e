import type { AppRoute } from '@ts-rest/core';
import type { z } from 'zod';
import { contract, type RouteMetadata } from '../../contract/index.ts';
import { objectShape } from '../../contract/schema-shape.ts';
import type { AppContext } from '../context.ts';
import { requireAbility, type Caller } from '../domain/accounts/caller.ts';
import {
  authenticateCharging,
  chargeApiBudget,
  chargeSubmitBudget,
  type ApiBudget,
  type ApiCharge,
} from '../domain/accounts/rate-windows.ts';
import { inTeamLane } from '../domain/accounts/team-lanes.ts';
import { authenticate, bearerToken } from '../domain/accounts/tokens.ts';
import { AppError, validationFailed, type ErrorDetail } from '../domain/shared/errors.ts';
import { assertPathIds } from '../domain/shared/ids.ts';
import { guardInput } from '../domain/shared/input-guard.ts';
import type { Upload } from '../domain/ingest/post.ts';
import { operations, type RouteKey } from './index.ts';

/**
 * The steps from a request to its operation, defined once and run in this order by every transport:
 * REST (server/transports/http/api.ts) hands over the request's parts, MCP over HTTP and stdio
 * (server/transports/mcp/tools.ts) a flat set of tool arguments (`invoke`).
 */

/** An operation's input once parsed by its route's schemas; `upload` instead of `body` for a streamed body. */
export type Input = {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  headers: Record<string, string | undefined>;
  upload?: Upload;
};
/** `headers`: response headers of the answer's own (an `ETag`); a transport without headers leaves them out. */
export type Result = { status: number; body?: unknown; stream?: unknown; headers?: Record<string, string> };

/** Who calls: a bearer header to authenticate, or a caller the transport has authenticated for this request. */
export type Credentials = { authorization: string | undefined } | { caller: Caller };

/**
 * A request's parts as the transport received them; `refused` is what the transport's own parsing refused.
 * `pathInUrl`: the path values come from a URL (REST), so a value no id can be is a missing record (404);
 * otherwise they are arguments like any other, guarded as input (400).
 */
export type RawRequest = {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  headers: Record<string, unknown>;
  refused?: unknown;
  pathInUrl?: boolean;
  /** A streamed body (only for a route whose metadata takes `uploads`). */
  upload?: Upload;
};

/** What a transport adds to a step: HTTP answers a failed authentication and the API budget in headers. */
export type Hooks = {
  /** Sees a failed authentication first, and may answer it differently (HTTP: too many failures from one address). */
  unauthenticated?: (err: AppError) => AppError;
  budget?: (budget: ApiBudget & { exceeded: AppError | null }) => void;
};

export type Call = {
  key: RouteKey;
  credentials: Credentials;
  request: RawRequest;
  /** Aborted when the client goes away: a call still waiting in its team's line then leaves it. */
  signal?: AbortSignal | undefined;
  hooks?: Hooks;
  /** A transport's own view of the parsed input (MCP reads an export as JSON). */
  adapt?: (input: Input) => Input;
};

/**
 * `refusals`: what the guard and path-id steps throw, found before authentication (they read only the request);
 * `charge`: the API budget when authentication charged it in the same statement.
 */
type State = {
  ctx: AppContext;
  call: Call;
  route: AppRoute;
  caller: Caller;
  input: Input;
  refusals: { guard: Refusal; pathIds: Refusal };
  charge?: ApiCharge | null;
};
type Refusal = { error: unknown } | null;

type Step = (state: State) => void | Promise<void>;

export const routeOf = (key: string): AppRoute => (contract as unknown as Record<string, AppRoute>)[key]!;
const metadataOf = (route: AppRoute) => route.metadata as RouteMetadata;

/** RFC 6750 §3: how to authenticate, and whether the token sent was the problem. */
export function bearerChallenge(header: string | undefined): string {
  return bearerToken(header) === null ? 'Bearer realm="intake"' : 'Bearer realm="intake", error="invalid_token"';
}

/** The caller of an `Authorization` header, or 401 `unauthenticated`. */
export async function authenticateBearer(ctx: AppContext, header: string | undefined): Promise<Caller> {
  const caller = await authenticate(ctx, bearerOrRefuse(header));
  if (!caller) throw invalidToken();
  return caller;
}

function bearerOrRefuse(header: string | undefined): string {
  const token = bearerToken(header);
  if (token === null) throw new AppError('unauthenticated', 'Send a token: Authorization: Bearer <token>.');
  return token;
}

const invalidToken = () => new AppError('unauthenticated', 'The token is invalid or has been revoked.');

type Parts = { params?: z.ZodTypeAny; query?: z.ZodTypeAny; body?: z.ZodTypeAny; headers?: z.ZodTypeAny };

/** A route's path, query, body and header schemas. */
export function partsOf(route: AppRoute): Parts {
  const zod = (v: unknown) =>
    v && typeof (v as z.ZodTypeAny).safeParse === 'function' ? (v as z.ZodTypeAny) : undefined;
  return {
    params: zod(route.pathParams),
    query: zod(route.query),
    body: 'body' in route ? zod(route.body) : undefined,
    headers: zod(route.headers),
  };
}

const authenticateCaller: Step = async (s) => {
  const { credentials, hooks } = s.call;
  if ('caller' in credentials) return void (s.caller = credentials.caller);
  try {
    if (chargedWithAuthentication(s)) {
      const found = await authenticateCharging(
        s.ctx,
        bearerOrRefuse(credentials.authorization),
        metadataOf(s.route).ability ?? null,
      );
      if (!found) throw invalidToken();
      s.caller = found.caller;
      s.charge = found.charge;
    } else s.caller = await authenticateBearer(s.ctx, credentials.authorization);
  } catch (err) {
    if (err instanceof AppError && err.code === 'unauthenticated' && hooks?.unauthenticated)
      throw hooks.unauthenticated(err);
    throw err;
  }
};

const authorize: Step = (s) => requireAbility(s.caller, metadataOf(s.route).ability ?? null);

/**
 * A call to be charged the API budget once it passes the guard and path-id steps is charged by the statement
 * that authenticates it, when the token may make it (one round trip, not two).
 */
const chargedWithAuthentication = (s: State) =>
  metadataOf(s.route).cost.budget === 'api' && !s.refusals.guard && !s.refusals.pathIds;

/** Size, depth, value count, NUL and unpaired surrogates in every string and key, before any schema walks them. */
function guardRequest({ refused, params, query, body, headers, pathInUrl }: RawRequest): void {
  if (refused) throw refused;
  if (!pathInUrl) guardInput(params, { in: 'path' });
  // Not from a URL: headers are arguments too, named as the caller named them (`if_match`).
  if (!pathInUrl)
    guardInput(Object.fromEntries(Object.entries(headers).map(([h, v]) => [headerArg(h), v])), { in: 'header' });
  guardInput(query, { in: 'query' });
  if (body !== undefined) guardInput(body, { in: 'body' });
}

function refusalOf(check: () => void): Refusal {
  try {
    check();
    return null;
  } catch (error) {
    return { error };
  }
}

const guard: Step = (s) => {
  if (s.refusals.guard) throw s.refusals.guard.error;
};

/** What cannot be an id is a record that does not exist (404), before any query. */
const checkPathIds: Step = (s) => {
  if (s.refusals.pathIds) throw s.refusals.pathIds.error;
};

const chargeBudget: Step = async (s) => {
  const kind = metadataOf(s.route).cost.budget;
  if (kind === 'none') return;
  const budget = s.charge ?? (await (kind === 'api' ? chargeApiBudget : chargeSubmitBudget)(s.ctx, s.caller));
  s.call.hooks?.budget?.(budget);
  if (budget.exceeded) throw budget.exceeded;
};

/** A schema's issues as the error body's details. */
function zodDetails(where: ErrorDetail['in'], error: z.ZodError): ErrorDetail[] {
  return error.issues.map((i) => ({ in: where, path: i.path.join('.') || '(root)', message: i.message }));
}

/** Each part through the route's own schema; every failing part is reported at once. */
const parse: Step = (s) => {
  const parts = partsOf(s.route);
  const raw = s.call.request;
  const details: ErrorDetail[] = [];
  const pick = <T>(
    schema: z.ZodTypeAny | undefined,
    value: unknown,
    where: ErrorDetail['in'],
    fallback: T,
    passThrough = false,
  ): T => {
    if (!schema) return fallback;
    const parsed = schema.safeParse(value);
    if (!parsed.success) return (details.push(...zodDetails(where, parsed.error)), fallback);
    return (passThrough ? { ...(value as object), ...(parsed.data as object) } : parsed.data) as T;
  };
  const params = pick(parts.params, raw.params, 'path', {}, true);
  const headers = pick(parts.headers, raw.headers, 'header', raw.headers, true) as Input['headers'];
  const query = pick(parts.query, raw.query, 'query', {});
  const upload = metadataOf(s.route).uploads ? raw.upload : undefined;
  const body = upload ? undefined : pick(parts.body, raw.body, 'body', undefined as unknown);
  if (details.length) throw validationFailed(details, details.map((d) => `${d.in} ${d.path}: ${d.message}`).join('; '));
  s.input = { params, query, body, headers, ...(upload ? { upload } : {}) };
};

/** The steps, in order. */
const STEPS: readonly Step[] = [authenticateCaller, authorize, guard, checkPathIds, chargeBudget, parse];

/**
 * Runs a call through every step, then its operation in its team's lane of this process (a few of a team's
 * operations at once, a bounded line behind them: server/domain/accounts/team-lanes.ts).
 */
export async function runPipeline(ctx: AppContext, call: Call): Promise<Result> {
  const { request } = call;
  const refusals = {
    guard: refusalOf(() => guardRequest(request)),
    pathIds: refusalOf(() => assertPathIds(request.params)),
  };
  const state = { ctx, call, route: routeOf(call.key), refusals } as State;
  for (const step of STEPS) await step(state);
  const operation = operations[call.key] as unknown as (
    ctx: AppContext,
    caller: Caller,
    input: Input,
  ) => Promise<Result>;
  const input = call.adapt ? call.adapt(state.input) : state.input;
  return inTeamLane(ctx, state.caller.teamId, () => operation(ctx, state.caller, input), call.signal);
}

/** A request header as a flat argument: `if-match` is `if_match`. */
export const headerArg = (header: string) => header.replaceAll('-', '_');

/** Flat arguments (an MCP tool's) split into the route's parts by the names each part's schema holds. */
export function splitArgs(route: AppRoute, args: Record<string, unknown>): RawRequest {
  const parts = partsOf(route);
  const keysOf = (schema: z.ZodTypeAny | undefined) => new Set(Object.keys(objectShape(schema)));
  const [path, query, body] = [keysOf(parts.params), keysOf(parts.query), keysOf(parts.body)];
  const headers = new Map(Object.keys(objectShape(parts.headers)).map((h) => [headerArg(h), h]));
  const request: RawRequest = { params: {}, query: {}, body: parts.body ? {} : undefined, headers: {} };
  for (const [key, value] of Object.entries(args)) {
    if (path.has(key)) request.params[key] = value;
    else if (query.has(key)) request.query[key] = value;
    else if (body.has(key)) (request.body as Record<string, unknown>)[key] = value;
    else if (headers.has(key)) request.headers[headers.get(key)!] = value;
  }
  return request;
}

/** Runs one operation for a flat set of arguments (an MCP tool call). */
export function invoke(
  ctx: AppContext,
  key: RouteKey,
  credentials: Credentials,
  args: Record<string, unknown>,
  options: Pick<Call, 'adapt' | 'signal'> = {},
): Promise<Result> {
  return runPipeline(ctx, { key, credentials, request: splitArgs(routeOf(key), args), ...options });
}
