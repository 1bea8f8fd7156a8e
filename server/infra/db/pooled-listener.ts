import pg from 'pg';
import type { Db, Connection } from './database.ts';

export type PooledListener = {
  /** Calls `fn` on each notification whose payload is `key`, and whenever the session (re)starts; returns the unsubscribe. */
  subscribe(key: string, fn: () => void): () => void;
  /** True while notifications arrive; when false, subscribers only see what they poll. */
  readonly live: boolean;
  close(): Promise<void>;
};

/** A session with no subscriber left is given back after this long (a reconnecting client comes back sooner). */
const IDLE_RELEASE_MS = 1000;

/**
 * LISTEN for a process's subscribers on one pooled connection, held only while someone is subscribed, so it
 * costs nothing while nobody listens. A lost session is re-taken with backoff; subscribers poll meanwhile.
 */
export function pooledListener(db: Db, channel: string, onError: (err: Error) => void): PooledListener {
  const subscribers = new Map<string, Set<() => void>>();
  let count = 0;
  let session: Connection | null = null;
  let starting = false;
  let live = false;
  let closed = false;
  let attempt = 0;
  let idleTimer: NodeJS.Timeout | null = null;
  let retryTimer: NodeJS.Timeout | null = null;

  const wakeAll = () => {
    for (const set of subscribers.values()) for (const fn of set) fn();
  };
  const onNotification = (msg: pg.Notification) => {
    if (msg.channel !== channel || msg.payload === undefined) return;
    for (const fn of subscribers.get(msg.payload) ?? []) fn();
  };

  /** Gives the session back: clean (UNLISTEN) to the pool, or destroyed when it failed. */
  const letGo = async (s: Connection, failed: boolean) => {
    if (session === s) session = null;
    live = false;
    s.client.removeListener('notification', onNotification);
    if (!failed) {
      try {
        await s.query('unlisten *');
      } catch {
        failed = true;
      }
    }
    s.client.removeAllListeners('error');
    s.client.removeAllListeners('end');
    s.client.on('error', () => {});
    s.release(failed);
  };

  const retry = () => {
    if (closed || retryTimer || count === 0) return;
    const backoff = Math.min(30_000, 1000 * 2 ** Math.min(attempt++, 5));
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void start();
    }, backoff);
    retryTimer.unref();
  };

  const start = async () => {
    if (closed || session || starting || count === 0) return;
    starting = true;
    let s: Connection | null = null;
    try {
      s = await db.connect();
      const current = s;
      const lost = (err: Error) => {
        if (session !== current) return;
        onError(err);
        void letGo(current, true);
        retry();
      };
      current.client.on('error', lost);
      current.client.on('end', () => lost(new Error('the LISTEN session ended')));
      current.client.on('notification', onNotification);
      session = current;
      await current.query(`listen ${pg.escapeIdentifier(channel)}`);
      live = true;
      attempt = 0;
      if (closed || count === 0) await letGo(current, false);
      else wakeAll();
    } catch (err) {
      onError(err as Error);
      if (s) await letGo(s, true);
      retry();
    } finally {
      starting = false;
    }
  };

  return {
    get live() {
      return live;
    },
    subscribe(key, fn) {
      let set = subscribers.get(key);
      if (!set) subscribers.set(key, (set = new Set()));
      set.add(fn);
      count += 1;
      if (idleTimer) {
        clearTimeout(idleTimer);
        idleTimer = null;
      }
      void start();
      let done = false;
      return () => {
        if (done) return;
        done = true;
        set.delete(fn);
        if (!set.size) subscribers.delete(key);
        count -= 1;
        if (count > 0 || idleTimer) return;
        idleTimer = setTimeout(() => {
          idleTimer = null;
          if (count === 0 && session) void letGo(session, false);
        }, IDLE_RELEASE_MS);
        idleTimer.unref();
      };
    },
    async close() {
      closed = true;
      if (idleTimer) clearTimeout(idleTimer);
      if (retryTimer) clearTimeout(retryTimer);
      subscribers.clear();
      count = 0;
      if (session) await letGo(session, false);
    },
  };
}
