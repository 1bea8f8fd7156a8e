import type { Logger } from 'pino';

/** Opens the process's LISTEN session on a channel, calling back on each notification, reconnect and loss. */
export type ListenSession<H> = (
  channel: string,
  onNotification: (payload: string) => void,
  onReconnect: () => void,
  onLost: (err: unknown) => void,
) => Promise<H>;

/** The LISTEN half of pg-boss's db adapter, also calling the process's own wake handlers (`Queue.onWake`). */
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
        // Wakes sent while the session was down are lost, and pg-boss's catch-up skips queues without
        // in-transaction notify: every queue fetches once, so a job sent in the gap does not wait to poll.
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
