import type { Db } from '../../infra/db/database.ts';

/**
 * A process's memory of facts that never change once written (the team of a form, of a token), per database
 * handle and at most `max` of them (past it, the memory starts afresh). What is not found is not remembered.
 */
export function lastingMemo<V>(max: number) {
  const memories = new WeakMap<Db, Map<string, V>>();
  return async (db: Db, key: string, read: () => Promise<V | undefined>): Promise<V | null> => {
    let memory = memories.get(db);
    if (!memory) memories.set(db, (memory = new Map()));
    const known = memory.get(key);
    if (known !== undefined) return known;
    const value = await read();
    if (value === undefined) return null;
    if (memory.size >= max) memory.clear();
    memory.set(key, value);
    return value;
  };
}
