import type { AppContext } from '../../context.ts';
import type { Tx } from '../../infra/db/database.ts';
import { deleteObjects } from '../../infra/queue/definitions.ts';

const DELETE_OBJECTS_BATCH = 1000;

/**
 * Storage objects outlive their rows only until this job runs (it is retried until they are gone). It is
 * enqueued in the transaction that deletes the rows, so a crash cannot leave the objects behind.
 */
export async function removeObjectsLater(ctx: AppContext, tx: Tx, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += DELETE_OBJECTS_BATCH) {
    await ctx.queue.send(deleteObjects, { keys: keys.slice(i, i + DELETE_OBJECTS_BATCH) }, { tx });
  }
}
