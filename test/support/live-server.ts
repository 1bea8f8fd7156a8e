import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';
import { startTestApp, type TestApp } from './harness.ts';

export type LiveTestApp = TestApp & { baseUrl: string };

/**
 * The real app listening on 127.0.0.1 at a random port, for clients that speak real HTTP (the SDK, the
 * CLI, MCP clients). Closed after the file's tests, before the database the harness closes.
 */
export async function startLiveTestApp(extra: Record<string, string> = {}): Promise<LiveTestApp> {
  const t = await startTestApp(extra);
  const server = t.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  afterAll(async () => {
    const closed = once(server, 'close');
    server.close();
    server.closeAllConnections(); // keep-alive sockets would otherwise hold close() open
    await closed;
  });
  const { port } = server.address() as AddressInfo;
  return { ...t, baseUrl: `http://127.0.0.1:${port}` };
}
