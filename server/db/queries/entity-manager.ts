import type { EntityManager } from '@mikro-orm/postgresql';
import type { Db, Tx } from '../database.ts';

/** What a query function runs on: the process's database, or one transaction. */
export type Handle = Db | Tx;

/**
 * The ORM's unit of work on a handle. In a transaction it is the transaction's own, so its reads see the
 * transaction's writes and its flushes commit or roll back with it; outside one, a fresh one per call, so
 * nothing a request loaded lingers into another's.
 */
export function entityManager(on: Handle): EntityManager {
  return 'transaction' in on ? on.em() : on.em;
}
