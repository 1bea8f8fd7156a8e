import type { AppContext } from '../context.ts';
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
