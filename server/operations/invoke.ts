import type { AppRoute } from '@ts-rest/core';
import type { z } from 'zod';
import { contract, type RouteMetadata } from '../../contract/index.ts';
import { objectShape } from '../../contract/schema-shape.ts';
import type { AppContext } from '../context.ts';
import { requireAbility, type Caller } from '../domain/accounts/caller.ts';
import { AppError, type ErrorDetail } from '../domain/shared/errors.ts';
import { assertPathIds } from '../domain/shared/ids.ts';
import { guardInput, invalidInput } from '../domain/shared/input-guard.ts';
import { chargeApiBudget, type ApiBudget } from '../domain/accounts/rate-windows.ts';
import { inTeamLane } from '../domain/accounts/team-lanes.ts';
import { authenticate, bearerToken } from '../domain/accounts/tokens.ts';
import { operations, type RouteKey } from './index.ts';

/**
 * The one path to an operation: authenticate, the route's ability (contract metadata), the shared input
 * guard, path ids by shape, the per-token rate limit, then the operation. `invoke` runs them in that order
 * for a transport that hands over a flat set of arguments (MCP tools, stdio or HTTP). REST runs the very
 * same steps as express middleware (server/transports/http/auth.ts, path-ids.ts, rate-limit.ts) because ts-rest parses
 * the request between its middleware and its handler, and a bad token must be 401 and a malformed id 404
 * whatever the body holds; its handler then calls `runOperation`.
 */

export const routeOf = (key: string): AppRoute => (contract as unknown as Record<string, AppRoute>)[key]!;
const metadataOf = (route: AppRoute | undefined) => route?.metadata as RouteMetadata | undefined;

/** RFC 6750 §3: how to authenticate, and whether the token sent was the problem. */
export function bearerChallenge(header: string | undefined): string {
  return bearerToken(header) === null ? 'Bearer realm="intake"' : 'Bearer realm="intake", error="invalid_token"';
}

/** The caller of an `Authorization` header, or 401 `unauthenticated` (send `bearerChallenge` with it over HTTP). */
export async function authenticateBearer(ctx: AppContext, header: string | undefined): Promise<Caller> {
  const token = bearerToken(header);
  if (token === null) throw new AppError('unauthenticated', 'Send a token: Authorization: Bearer <token>.');
  const caller = await authenticate(ctx, token);
  if (!caller) throw new AppError('unauthenticated', 'The token is invalid or has been revoked.');
  return caller;
}

/** 403 unless the caller's token holds the route's ability. */
export function checkAbility(caller: Caller, route: AppRoute | undefined): void {
  requireAbility(caller, metadataOf(route)?.ability ?? null);
}

/** Ids in the path by shape, before any query: what cannot be an id is a record that does not exist (404). */
export function checkPathIds(params: Record<string, unknown>): void {
  assertPathIds(params);
}

/**
 * Charges the token's API budget on the routes whose declared cost spends it, and throws its 429 once it
 * is spent; `onBudget` sees the budget first (REST answers it as RateLimit headers).
 */
export async function chargeRateLimit(
  ctx: AppContext,
  route: AppRoute | undefined,
  caller: Caller,
  onBudget?: (budget: ApiBudget & { exceeded: AppError | null }) => void,
): Promise<void> {
  if (metadataOf(route)?.cost.budget !== 'api') return;
  const budget = await chargeApiBudget(ctx, caller);
  onBudget?.(budget);
  if (budget.exceeded) throw budget.exceeded;
}

type Parts = { params?: z.ZodTypeAny; query?: z.ZodTypeAny; body?: z.ZodTypeAny };

/** A route's path, query and body schemas. */
export function partsOf(route: AppRoute): Parts {
  const zod = (v: unknown) => (v && typeof (v as z.ZodTypeAny).safeParse === 'function' ? (v as z.ZodTypeAny) : undefined);
  return { params: zod(route.pathParams), query: zod(route.query), body: 'body' in route ? zod(route.body) : undefined };
}

/** Where each flat argument belongs in the route's request, for error details. */
function partOf(route: AppRoute): (key: string) => ErrorDetail['in'] {
  const parts = partsOf(route);
  const path = new Set(Object.keys(objectShape(parts.params)));
  const query = new Set(Object.keys(objectShape(parts.query)));
  return (key) => (path.has(key) ? 'path' : query.has(key) ? 'query' : 'body');
}

/** Splits flat arguments into the route's parts and parses each with the route's own schema. */
function parseArgs(route: AppRoute, args: Record<string, unknown>): Input {
  const parts = partsOf(route);
  const details: ErrorDetail[] = [];
  const pick = (schema: z.ZodTypeAny | undefined, where: ErrorDetail['in']) => {
    if (!schema) return undefined;
    const keys = Object.keys(objectShape(schema));
    const raw = Object.fromEntries(Object.entries(args).filter(([k]) => keys.includes(k)));
    const parsed = schema.safeParse(raw);
    if (parsed.success) return parsed.data as Record<string, unknown>;
    for (const issue of parsed.error.issues) {
      // A strict body names the keys it refuses; a root issue has an empty path.
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [''];
      for (const key of keys) details.push({ in: where, path: [...issue.path, ...(key ? [key] : [])].join('.') || '(root)', message: issue.message });
    }
    return undefined;
  };
  const params = pick(parts.params, 'path') ?? {};
  const query = pick(parts.query, 'query') ?? {};
  const body = pick(parts.body, 'body');
  if (details.length) throw invalidInput(details);
  return { params, query, body, headers: {} };
}

/** An operation's input as a transport hands it over once parsed. */
export type Input = { params: Record<string, unknown>; query: Record<string, unknown>; body: unknown; headers: Record<string, string | undefined> };
export type Result = { status: number; body?: unknown; stream?: unknown };

/**
 * Calls the operation of a route whose checks have run, in its team's lane of this process (a few of a
 * team's operations at once, a bounded line behind them: server/domain/accounts/team-lanes.ts). `signal`
 * is the client's: once it goes away, the operation leaves the line unstarted.
 */
export function runOperation(ctx: AppContext, key: RouteKey, caller: Caller, input: Input, signal?: AbortSignal | undefined): Promise<Result> {
  const operation = operations[key] as unknown as (ctx: AppContext, caller: Caller, input: Input) => Promise<Result>;
  return inTeamLane(ctx, caller.teamId, () => operation(ctx, caller, input), signal);
}

/** Who calls: a bearer header to authenticate, or a caller the transport has authenticated for this request. */
export type Credentials = { authorization: string | undefined } | { caller: Caller };

/** What a transport may add to a call: its own view of the parsed input, and its client's signal. */
export type InvokeOptions = {
  /** MCP reads an export as JSON. */
  adapt?: (input: Input) => Input;
  /** Aborted when the client goes away: a call still waiting in its team's line then leaves it. */
  signal?: AbortSignal | undefined;
};

/**
 * Runs one operation for a flat set of arguments (an MCP tool call): authentication, the route's ability,
 * the input guard on the raw arguments (size, depth, value count, NUL and unpaired surrogates in every
 * string and key, before any schema walks them), the route's schemas, path ids, the rate limit, then the
 * operation.
 */
export async function invoke(
  ctx: AppContext,
  key: RouteKey,
  credentials: Credentials,
  args: Record<string, unknown>,
  { adapt, signal }: InvokeOptions = {},
): Promise<Result> {
  const route = routeOf(key);
  const caller = 'caller' in credentials ? credentials.caller : await authenticateBearer(ctx, credentials.authorization);
  checkAbility(caller, route);
  guardInput(args, { in: partOf(route) });
  const parsed = parseArgs(route, args);
  checkPathIds(parsed.params);
  await chargeRateLimit(ctx, route, caller);
  return runOperation(ctx, key, caller, adapt ? adapt(parsed) : parsed, signal);
}
