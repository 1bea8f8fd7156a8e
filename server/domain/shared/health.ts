import type { AppContext } from '../../context.ts';
import { ping } from '../../infra/db/queries/health.ts';

/** Ready when the database answers (storage and the queue fail loudly at start instead). */
export async function checkReady(ctx: AppContext): Promise<void> {
  await ping(ctx.db);
}
