import pg from 'pg';

export type Listening = { close(): Promise<void> };

/**
 * LISTEN on a session outside the pool (a released connection would lose the subscription), opened only by
 * job consumers. A dropped session is reopened with backoff; `onReconnect` lets the caller catch up.
 */
export async function listen(
  url: string,
  applicationName: string,
  channel: string,
  onNotification: (payload: string) => void,
  onReconnect: () => void,
  onError: (err: Error) => void,
): Promise<Listening> {
  let closed = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  let attempt = 0;

  const connect = async () => {
    const next = new pg.Client({ connectionString: url, application_name: applicationName, keepAlive: true });
    const drop = (err: Error) => {
      if (client !== next) return;
      client = null;
      next.removeAllListeners();
      next.on('error', () => {});
      void next.end().catch(() => {});
      onError(err);
      schedule();
    };
    next.on('error', drop);
    next.on('end', () => drop(new Error('the LISTEN session ended')));
    next.on('notification', (msg) => msg.payload !== undefined && onNotification(msg.payload));
    client = next;
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      if (client === next) client = null;
      next.removeAllListeners();
      next.on('error', () => {});
      await next.end().catch(() => {});
      throw err;
    }
    attempt = 0;
    onReconnect();
  };
  const schedule = () => {
    if (closed || retry) return;
    const backoff = Math.min(30_000, 1000 * 2 ** Math.min(attempt++, 5));
    retry = setTimeout(() => {
      retry = null;
      if (!closed) connect().catch(() => schedule());
    }, backoff);
    retry.unref();
  };

  await connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      if (c) {
        c.removeAllListeners();
        c.on('error', () => {});
        await c.end().catch(() => {});
      }
    },
  };
}
