import type { Pool, PoolClient } from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';

/** Raw SQL through the request's EntityManager (and so inside its transaction, if any). `?` placeholders. */
export async function query<T = Record<string, unknown>>(em: EntityManager, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await em.getConnection().execute(sql, params, 'all', em.getTransactionContext())) as T[];
}

export async function queryOne<T = Record<string, unknown>>(em: EntityManager, sql: string, params: unknown[] = []): Promise<T | null> {
  const rows = await query<T>(em, sql, params);
  return rows[0] ?? null;
}

/** Postgres timestamps arrive as text (microseconds kept); the API speaks ISO 8601 UTC. */
export function iso(value: string | Date): string;
export function iso(value: string | Date | null): string | null;
export function iso(value: string | Date | null): string | null {
  if (value === null) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

const commitHooks = new WeakMap<PoolClient, Array<() => void>>();

/** Runs `fn` once the transaction on `client` has committed (never if it rolls back). */
export function afterCommit(client: PoolClient, fn: () => void): void {
  const hooks = commitHooks.get(client);
  if (hooks) hooks.push(fn);
  else fn(); // not inside withTransaction: nothing to wait for
}

/** A transaction on the raw pool: jobs sent with `{ db: client }` commit or roll back with the rows. */
export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const hooks: Array<() => void> = [];
  commitHooks.set(client, hooks);
  try {
    await client.query('begin');
    const result = await fn(client);
    await client.query('commit');
    commitHooks.delete(client);
    for (const hook of hooks) hook();
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    commitHooks.delete(client);
    client.release();
  }
}
