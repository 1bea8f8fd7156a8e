import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { afterAll, onTestFinished } from 'vitest';
import { startTestApp, type TestApp } from './harness.ts';

export type LiveTestApp = TestApp & { baseUrl: string };

export type Listening = { server: Server; port: number; baseUrl: string };

/**
 * `app` listening on 127.0.0.1 at a random port, for clients that speak real HTTP (the SDK, the CLI, MCP
 * clients, a browser). Closed after the file's tests, or after the test's with `until: 'test'`.
 */
export async function listenLocally(app: Express, until: 'file' | 'test' = 'file'): Promise<Listening> {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const close = async () => {
    const closed = once(server, 'close');
    server.close();
    server.closeAllConnections(); // keep-alive sockets would otherwise hold close() open
    await closed;
  };
  if (until === 'test') onTestFinished(close);
  else afterAll(close);
  const { port } = server.address() as AddressInfo;
  return { server, port, baseUrl: `http://127.0.0.1:${port}` };
}

/** The real app, listening locally; closed after the file's tests, before the database the harness closes. */
export async function startLiveTestApp(extra: Record<string, string> = {}): Promise<LiveTestApp> {
  const t = await startTestApp(extra);
  const { baseUrl } = await listenLocally(t.app);
  return { ...t, baseUrl };
}
