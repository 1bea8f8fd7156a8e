import type { Logger } from 'pino';

/**
 * Opens the process's LISTEN session on a channel (db/listener.ts, bound by queue.ts to where it connects):
 * it calls back on each notification, after each reconnect, and on each loss of the session.
 */
export type ListenSession<H> = (
  channel: string,
  onNotification: (payload: string) => void,
  onReconnect: () => void,
  onLost: (err: unknown) => void,
) => Promise<H>;

/**
 * The LISTEN half of pg-boss's db adapter, and the process's own wake handlers (`Queue.onWake`): a
 * notification for a queue reaches pg-boss's workers and every handler registered for that queue.
 */
export function queueListener<H>(session: ListenSession<H>, queueNames: string[], log: Logger) {
  const handlers = new Map<string, Array<() => void>>();
  const listenFor = (channel: string, onNotification: (payload: string) => void, onReconnect: () => void) => {
    const wakeQueue = (payload: string) => {
      onNotification(payload);
      for (const fn of handlers.get(payload) ?? []) fn();
    };
    return session(
      channel,
      wakeQueue,
      () => {
        onReconnect();
        // Wakes sent while the session was down (a Postgres restart) were lost. pg-boss's own catch-up
        // only covers queues with in-transaction notify, which ours turn off (see queue.ts, waker): every
        // queue fetches once, so a job sent in the gap does not wait for the polling interval.
        for (const name of queueNames) wakeQueue(name);
      },
      (err) => log.warn({ err }, 'queue LISTEN session lost; reconnecting'),
    );
  };
  return {
    listen: listenFor,
    onWake(name: string, fn: () => void) {
      handlers.set(name, [...(handlers.get(name) ?? []), fn]);
    },
  };
}
