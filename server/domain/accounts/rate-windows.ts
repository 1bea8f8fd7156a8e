import type { AppContext } from '../../context.ts';
import type { Db } from '../../infra/db/database.ts';
import type { Caller } from './caller.ts';
import { AppError } from '../shared/errors.ts';
import { slidingCount, slidingWaitMs } from '../../infra/sliding-window.ts';
import * as windows from '../../infra/db/queries/rate-windows.ts';
import { ROLE_CEILINGS, ROLES, type Ability } from '../../../contract/abilities.ts';
import { authenticate, callerOf, hashToken, isTokenShaped, tokenOfHash } from './tokens.ts';

export type WindowHit = { hits: number; resetSeconds: number };

/** Spent windows remembered per database handle; past this a newly spent one is not remembered. */
const MAX_SPENT = 10_000;
const spentWindows = new WeakMap<Db, Map<string, number>>();

/**
 * Windows this process has seen spent, until they reset (key → epoch ms): a spent window stays spent for
 * its span, so a client looping on 429s is refused from memory, without a statement.
 */
function spentMemory(ctx: AppContext): Map<string, number> {
  let memory = spentWindows.get(ctx.db);
  if (!memory) spentWindows.set(ctx.db, (memory = new Map()));
  return memory;
}

/** Seconds until `key`'s window resets when this process knows it is spent, else null. */
function knownSpent(ctx: AppContext, key: string, now = Date.now()): number | null {
  const memory = spentMemory(ctx);
  const until = memory.get(key);
  if (until === undefined) return null;
  if (until <= now) {
    memory.delete(key);
    return null;
  }
  return Math.max(1, Math.ceil((until - now) / 1000));
}

function rememberSpent(ctx: AppContext, key: string, resetSeconds: number, now = Date.now()): void {
  const memory = spentMemory(ctx);
  if (memory.size >= MAX_SPENT) for (const [k, until] of memory) if (until <= now) memory.delete(k);
  if (memory.size < MAX_SPENT) memory.set(key, now + resetSeconds * 1000);
}

/**
 * Throws `refusal` for a window this process knows is spent; otherwise `check` reads (or charges) it, and a
 * window it finds spent is remembered, then refused.
 */
async function refuseWhenSpent(
  ctx: AppContext,
  key: string,
  refusal: (retryAfter: number) => AppError,
  check: () => Promise<{ spent: boolean; resetSeconds: number }>,
): Promise<void> {
  const known = knownSpent(ctx, key);
  if (known !== null) throw refusal(known);
  const { spent, resetSeconds } = await check();
  if (!spent) return;
  rememberSpent(ctx, key, resetSeconds);
  throw refusal(resetSeconds);
}

/** Whether a count is past `limit` on the sliding estimate, and the seconds until one more would fit. */
function slidingVerdict(
  row: windows.TwoWindowRow,
  windowSeconds: number,
  limit: number,
): { spent: boolean; resetSeconds: number } {
  const w = { previous: row.previous, current: row.current, elapsedMs: row.elapsed_ms, windowMs: windowSeconds * 1000 };
  if (slidingCount(w) <= limit) return { spent: false, resetSeconds: 0 };
  return { spent: true, resetSeconds: Math.max(1, Math.ceil(slidingWaitMs(w, limit - 1) / 1000)) };
}

/** One hit in a fixed window shared by every process on the database; old windows are pruned now and then. */
export async function hitWindow(ctx: AppContext, key: string, windowSeconds: number): Promise<WindowHit> {
  const row = await windows.hitWindow(ctx.db, key, windowSeconds);
  pruneWindows(ctx);
  return { hits: row.hits, resetSeconds: Math.max(1, row.reset) };
}

/** Old windows are garbage: pruned now and then rather than on a schedule. */
export function pruneWindows(ctx: AppContext): void {
  if (Math.random() < 0.001) void windows.pruneWindows(ctx.db).catch(() => {});
}

export type ApiBudget = { limit: number; windowSeconds: number; remaining: number; resetSeconds: number };
export type ApiCharge = ApiBudget & { exceeded: AppError | null };

const API_WINDOW_SECONDS = 60;

/** A caller's API budgets, the token's own and its team's (all its tokens together), with their window keys. */
function apiBudgets(ctx: AppContext, caller: Pick<Caller, 'tokenId' | 'teamId'>) {
  return [
    {
      key: `api:${caller.tokenId}`,
      limit: ctx.config.apiRateLimit,
      refusal: `Rate limit of ${ctx.config.apiRateLimit} requests per minute reached.`,
    },
    {
      key: `api-team:${caller.teamId}`,
      limit: ctx.config.apiTeamRateLimit,
      refusal: `Your team's rate limit of ${ctx.config.apiTeamRateLimit} requests per minute (all its tokens together) reached.`,
    },
  ] as const;
}

type Budget = ReturnType<typeof apiBudgets>[number];

function refuseApi(b: Budget, resetSeconds: number): ApiCharge {
  return {
    limit: b.limit,
    windowSeconds: API_WINDOW_SECONDS,
    remaining: 0,
    resetSeconds,
    exceeded: new AppError('rate_limited', b.refusal, { retry_after: resetSeconds }),
  };
}

/** The refusal of a budget this process knows is spent, else null (nothing charged). */
function knownSpentApi(ctx: AppContext, caller: Pick<Caller, 'tokenId' | 'teamId'>): ApiCharge | null {
  for (const b of apiBudgets(ctx, caller)) {
    const resetSeconds = knownSpent(ctx, b.key);
    if (resetSeconds !== null) return refuseApi(b, resetSeconds);
  }
  return null;
}

/** The budget with the least left after a charge; a spent one is remembered and refused. */
function apiChargeOf(
  ctx: AppContext,
  caller: Pick<Caller, 'tokenId' | 'teamId'>,
  hits: windows.ApiWindowHits,
): ApiCharge {
  pruneWindows(ctx);
  const [token, team] = apiBudgets(ctx, caller);
  const charged = [{ ...token, ...hits.token }, ...(hits.team ? [{ ...team, ...hits.team }] : [])].map((b) => ({
    ...b,
    remaining: b.limit - b.hits,
    resetSeconds: Math.max(1, b.reset),
  }));
  const binding = charged.reduce((a, b) => (b.remaining < a.remaining ? b : a));
  if (binding.remaining < 0) {
    rememberSpent(ctx, binding.key, binding.resetSeconds);
    return refuseApi(binding, binding.resetSeconds);
  }
  return {
    limit: binding.limit,
    windowSeconds: API_WINDOW_SECONDS,
    remaining: binding.remaining,
    resetSeconds: binding.resetSeconds,
    exceeded: null,
  };
}

/**
 * Counts one request against the token's API budget and its team's (all its tokens together, so minting tokens
 * does not multiply it), across processes and transports. Answers the budget with less left; `exceeded` is the 429.
 */
export async function chargeApiBudget(ctx: AppContext, caller: Pick<Caller, 'tokenId' | 'teamId'>): Promise<ApiCharge> {
  const known = knownSpentApi(ctx, caller);
  if (known) return known;
  const [token, team] = apiBudgets(ctx, caller);
  const keys = { token: token.key, team: team.key };
  const hits = await windows.hitTokenAndTeamWindows(ctx.db, keys, token.limit, API_WINDOW_SECONDS);
  return apiChargeOf(ctx, caller, hits);
}

/**
 * Authenticates a bearer token and charges its API budget (as chargeApiBudget) in one statement, for a call
 * that needs `ability` (null: any token) and would be charged once authorized. `charge` is null when nothing
 * was charged: the token may not make the call, or this process knows its budget is spent (chargeApiBudget
 * then refuses it without a statement). Null for a token that does not authenticate.
 */
export async function authenticateCharging(
  ctx: AppContext,
  plaintext: string,
  ability: Ability | null,
): Promise<{ caller: Caller; charge: ApiCharge | null } | null> {
  if (!isTokenShaped(plaintext)) return null;
  const hash = hashToken(plaintext);
  const token = await tokenOfHash(ctx, hash);
  if (!token) return null;
  if (knownSpentApi(ctx, token)) {
    const caller = await authenticate(ctx, plaintext);
    return caller && { caller, charge: null };
  }
  const found = await windows.findCallerHittingApiWindows(ctx.db, hash, token.teamId, {
    ability,
    roles: ability ? ROLES.filter((role) => ROLE_CEILINGS[role].includes(ability)) : ROLES,
    tokenLimit: ctx.config.apiRateLimit,
    windowSeconds: API_WINDOW_SECONDS,
  });
  if (!found) return null;
  const caller = await callerOf(ctx, found.caller);
  return { caller, charge: found.hits ? apiChargeOf(ctx, caller, found.hits) : null };
}

/** Counts one server-side submit against its token's own budget (INTAKE_SUBMIT_TOKEN_RATE_LIMIT a minute). */
export async function chargeSubmitBudget(
  ctx: AppContext,
  caller: Pick<Caller, 'tokenId'>,
): Promise<ApiBudget & { exceeded: AppError | null }> {
  const limit = ctx.config.submitTokenRateLimit;
  const key = `submit:${caller.tokenId}`;
  const refusal = (resetSeconds: number) =>
    new AppError('rate_limited', `Rate limit of ${limit} submissions per minute reached.`, {
      retry_after: resetSeconds,
    });
  const budget = { limit, windowSeconds: 60, remaining: 0 };
  const known = knownSpent(ctx, key);
  if (known !== null) return { ...budget, resetSeconds: known, exceeded: refusal(known) };
  const { hits, resetSeconds } = await hitWindow(ctx, key, 60);
  if (hits > limit) {
    rememberSpent(ctx, key, resetSeconds);
    return { ...budget, resetSeconds, exceeded: refusal(resetSeconds) };
  }
  return { ...budget, remaining: limit - hits, resetSeconds, exceeded: null };
}

/** The search budget's window: a tenth of a minute, so a team's burst cannot spend a whole minute's searches at once. */
const SEARCH_WINDOW_SECONDS = 10;

/**
 * Counts one search against its team's search budget (a minute's limit over a sliding 10 s), throwing 429 once
 * spent: a search costs far more than a list page, so the API budget alone would let one team hold a core.
 */
export async function chargeSearchBudget(ctx: AppContext, caller: Pick<Caller, 'teamId'>): Promise<void> {
  const perMinute = ctx.config.searchTeamRateLimit;
  const limit = Math.max(1, Math.floor((perMinute * SEARCH_WINDOW_SECONDS) / 60));
  const refusal = (retryAfter: number) =>
    new AppError(
      'rate_limited',
      `Your team's search limit of ${perMinute} searches per minute (${limit} every ${SEARCH_WINDOW_SECONDS} s, all its tokens together) reached.`,
      {
        retry_after: retryAfter,
      },
    );
  const key = `search-team:${caller.teamId}`;
  await refuseWhenSpent(ctx, key, refusal, async () => {
    const row = await windows.hitTwoWindows(ctx.db, key, SEARCH_WINDOW_SECONDS);
    pruneWindows(ctx);
    return slidingVerdict(row, SEARCH_WINDOW_SECONDS, limit);
  });
}

/** The search time's window: a whole minute, so the search that goes past the budget is paid for by the rest of it. */
const SEARCH_TIME_WINDOW_SECONDS = 60;

/**
 * Runs a search within its team's database time per sliding minute: 429 once spent, charged afterwards.
 * A search's cost grows with the form, which the count budget cannot see; sliding spreads a busy team's
 * searches out instead of bunching them as each minute begins (docs/decisions.md).
 */
export async function withinSearchTime<T>(ctx: AppContext, teamId: string, search: () => Promise<T>): Promise<T> {
  const key = `search-time-team:${teamId}`;
  const limit = ctx.config.searchTeamTimeMs;
  const refusal = (retryAfter: number) =>
    new AppError(
      'rate_limited',
      `Your team's searches have used their ${limit} ms of database time per minute (all its tokens together).`,
      {
        retry_after: retryAfter,
      },
    );
  await refuseWhenSpent(ctx, key, refusal, async () => {
    const row = await windows.readTwoWindows(ctx.db, key, SEARCH_TIME_WINDOW_SECONDS);
    // A search may start while less than the limit is spent: the next one, once one millisecond is left.
    return slidingVerdict({ ...row, current: row.current + 1 }, SEARCH_TIME_WINDOW_SECONDS, limit);
  });
  const started = performance.now();
  try {
    return await search();
  } finally {
    const ms = Math.ceil(performance.now() - started);
    await windows
      .addToWindow(ctx.db, key, SEARCH_TIME_WINDOW_SECONDS, ms)
      .catch((err: unknown) => ctx.log.warn({ err }, 'could not charge a search its time'));
  }
}

/** The replay pace's window: a job queues one window's allowance at a time, due one after another across it. */
const REPLAY_WINDOW_SECONDS = 5;

/**
 * Takes up to `wanted` deliveries from a team's replay allowance (all its replay jobs, every process); `granted`
 * 0 once spent, then wait `resetSeconds`. Unpaced, one team's large replays would hold the worker for minutes.
 */
export async function takeReplayAllowance(
  ctx: AppContext,
  teamId: string,
  wanted: number,
): Promise<{ granted: number; resetSeconds: number }> {
  const limit = Math.max(1, Math.floor(ctx.config.replayTeamRate * REPLAY_WINDOW_SECONDS));
  const { granted, reset } = await windows.takeFromWindow(
    ctx.db,
    `replay-team:${teamId}`,
    REPLAY_WINDOW_SECONDS,
    wanted,
    limit,
  );
  pruneWindows(ctx);
  return { granted, resetSeconds: Math.max(1, reset) };
}
