import type { AppContext } from '../context.ts';
import { AppError } from './errors.ts';
import * as windows from '../db/queries/rate-windows.ts';

export type WindowHit = { hits: number; resetSeconds: number };

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
 * Counts one request against the token's API budget (INTAKE_API_RATE_LIMIT a minute, shared by every
 * process, REST and MCP alike) and answers the budget; `exceeded` is the 429 to throw once it is spent.
 */
export async function chargeApiBudget(ctx: AppContext, tokenId: string): Promise<ApiBudget & { exceeded: AppError | null }> {
  const limit = ctx.config.apiRateLimit;
  const windowSeconds = 60;
  const { hits, resetSeconds } = await hitWindow(ctx, `api:${tokenId}`, windowSeconds);
  const exceeded = hits > limit ? new AppError('rate_limited', `Rate limit of ${limit} requests per minute reached.`, { retry_after: resetSeconds }) : null;
  return { limit, windowSeconds, remaining: Math.max(0, limit - hits), resetSeconds, exceeded };
}
