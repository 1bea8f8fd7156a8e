import type { AppContext } from '../../context.ts';
import type { Db } from '../../infra/db/database.ts';
import type { Caller } from './caller.ts';
import { AppError } from '../shared/errors.ts';
import { slidingCount, slidingWaitMs } from '../shared/sliding-window.ts';
import * as windows from '../../infra/db/queries/rate-windows.ts';

export type WindowHit = { hits: number; resetSeconds: number };

/** Spent windows remembered at once per database handle; past it a newly spent one is not remembered (memory stays bounded). */
const MAX_SPENT = 10_000;
const spentWindows = new WeakMap<Db, Map<string, number>>();

/**
 * Windows this process has seen spent, until they reset (key → epoch ms): a spent fixed window stays spent
 * for the rest of its span, so a client that keeps calling once refused — a loop on 429s — is refused from
 * memory, without a statement. The first refusal in each process costs the statement that finds it spent;
 * the memory ends when the database's own reset (rounded up to a second) passes.
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

/**
 * Whether a count is past `limit` on the sliding estimate of its window and the one before (see
 * sliding-window.ts), and the seconds until one more would be within it.
 */
function slidingVerdict(row: windows.TwoWindowRow, windowSeconds: number, limit: number): { spent: boolean; resetSeconds: number } {
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

/**
 * Counts one request against the token's API budget (INTAKE_API_RATE_LIMIT a minute) and its team's
 * (INTAKE_API_TEAM_RATE_LIMIT, all the team's tokens together: any member may mint tokens, and must not
 * multiply the budget by doing so), shared by every process, REST and MCP alike. Answers the budget that
 * binds (the one with less left); `exceeded` is the 429 to throw once either is spent.
 */
export async function chargeApiBudget(ctx: AppContext, caller: Pick<Caller, 'tokenId' | 'teamId'>): Promise<ApiBudget & { exceeded: AppError | null }> {
  const windowSeconds = 60;
  const token = { limit: ctx.config.apiRateLimit, refusal: `Rate limit of ${ctx.config.apiRateLimit} requests per minute reached.` };
  const team = {
    limit: ctx.config.apiTeamRateLimit,
    refusal: `Your team's rate limit of ${ctx.config.apiTeamRateLimit} requests per minute (all its tokens together) reached.`,
  };
  const keys = { token: `api:${caller.tokenId}`, team: `api-team:${caller.teamId}` };
  const refuse = (b: { limit: number; refusal: string }, resetSeconds: number) => ({
    limit: b.limit,
    windowSeconds,
    remaining: 0,
    resetSeconds,
    exceeded: new AppError('rate_limited', b.refusal, { retry_after: resetSeconds }),
  });
  for (const [key, b] of [[keys.token, token], [keys.team, team]] as const) {
    const resetSeconds = knownSpent(ctx, key);
    if (resetSeconds !== null) return refuse(b, resetSeconds);
  }
  const hits = await windows.hitTokenAndTeamWindows(ctx.db, keys, token.limit, windowSeconds);
  pruneWindows(ctx);
  const charged = [{ ...token, key: keys.token, ...hits.token }, ...(hits.team ? [{ ...team, key: keys.team, ...hits.team }] : [])].map((b) => ({
    ...b,
    remaining: b.limit - b.hits,
    resetSeconds: Math.max(1, b.reset),
  }));
  const binding = charged.reduce((a, b) => (b.remaining < a.remaining ? b : a));
  if (binding.remaining < 0) {
    rememberSpent(ctx, binding.key, binding.resetSeconds);
    return refuse(binding, binding.resetSeconds);
  }
  return { limit: binding.limit, windowSeconds, remaining: binding.remaining, resetSeconds: binding.resetSeconds, exceeded: null };
}

/** The search budget's window: a tenth of a minute, so a team's burst cannot spend a whole minute's searches at once. */
const SEARCH_WINDOW_SECONDS = 10;

/**
 * Counts one search (`q=` over a form's submissions) against its team's search budget,
 * INTAKE_SEARCH_TEAM_RATE_LIMIT a minute counted over a sliding 10 seconds (sliding-window.ts), whatever
 * the token or transport, and throws its 429 once spent. A search reads and matches thousands of rows
 * (~10 ms of Postgres, against a fraction of a millisecond for a page of a list): within the ordinary API
 * budget alone, one team's searchers could keep a core of the database busy while other teams wait for it.
 */
export async function chargeSearchBudget(ctx: AppContext, caller: Pick<Caller, 'teamId'>): Promise<void> {
  const perMinute = ctx.config.searchTeamRateLimit;
  const limit = Math.max(1, Math.floor((perMinute * SEARCH_WINDOW_SECONDS) / 60));
  const refusal = (retryAfter: number) =>
    new AppError('rate_limited', `Your team's search limit of ${perMinute} searches per minute (${limit} every ${SEARCH_WINDOW_SECONDS} s, all its tokens together) reached.`, {
      retry_after: retryAfter,
    });
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
 * Runs a search (`search`, its statements) within its team's search time, INTAKE_SEARCH_TEAM_TIME_MS of
 * statements a minute, every token, transport and process together: refused with 429 once the last minute's
 * time is spent, charged with what it took afterwards. The minute slides (sliding-window.ts): counted in
 * fixed minutes, a team searching flat out ran a second of searches back to back as each minute began, and
 * every other team's reads waited on that core (bench/noisy-neighbour.ts: their lists' p99 went from 22 ms
 * without the searches to 44 ms); sliding, its searches start as the last minute's time fades, spread out.
 * The count budget above cannot see what a search costs, and that grows with the form: a rare word walks
 * the form's rows until it has a page, so on a form of a million submissions one search can take a core for
 * seconds where another takes 2 ms. A team's searches take at most the budget plus the one search that goes
 * past it, over any minute (that one is bounded by the statement timeout).
 */
export async function withinSearchTime<T>(ctx: AppContext, teamId: string, search: () => Promise<T>): Promise<T> {
  const key = `search-time-team:${teamId}`;
  const limit = ctx.config.searchTeamTimeMs;
  const refusal = (retryAfter: number) =>
    new AppError('rate_limited', `Your team's searches have used their ${limit} ms of database time per minute (all its tokens together).`, {
      retry_after: retryAfter,
    });
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
    await windows.addToWindow(ctx.db, key, SEARCH_TIME_WINDOW_SECONDS, ms).catch((err: unknown) => ctx.log.warn({ err }, 'could not charge a search its time'));
  }
}

/**
 * The replay pace's window: a job queues a window's allowance at a time (50 deliveries at the default
 * pace, one transaction), due one after another across the window (deliveries.ts, replayDueTimes). Chosen
 * when each batch's pick sorted every delivery of the webhook (~33 ms over 10,000, whatever the batch's
 * size); picked by keyset now (nextReplayBatch), a batch costs ~1.5 ms of Postgres.
 */
const REPLAY_WINDOW_SECONDS = 5;

/**
 * Takes up to `wanted` deliveries from the allowance of a team's bulk replays (INTAKE_REPLAY_TEAM_RATE a
 * second, all its replay jobs together, shared by every process); `granted` 0 once spent, then wait
 * `resetSeconds`. Each replayed delivery costs a send, its outcome's write and its share of the batch's
 * inserts: unpaced, one team's replays of 10,000 deliveries each kept the worker and Postgres busy for
 * minutes while other teams needed them.
 */
export async function takeReplayAllowance(ctx: AppContext, teamId: string, wanted: number): Promise<{ granted: number; resetSeconds: number }> {
  const limit = Math.max(1, Math.floor(ctx.config.replayTeamRate * REPLAY_WINDOW_SECONDS));
  const { granted, reset } = await windows.takeFromWindow(ctx.db, `replay-team:${teamId}`, REPLAY_WINDOW_SECONDS, wanted, limit);
  pruneWindows(ctx);
  return { granted, resetSeconds: Math.max(1, reset) };
}
