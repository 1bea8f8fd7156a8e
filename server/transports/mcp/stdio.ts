import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { AppContext } from '../../context.ts';
import { authenticate } from '../../domain/accounts/tokens.ts';
import { VERSION } from '../../version.ts';
import { createMcpServer } from './server.ts';

/**
 * `intake mcp` (docs/mcp.md): MCP over stdio. Local: on this installation's database, `INTAKE_TOKEN` resolved
 * for every call, so revoking it stops the agent at once. Remote (`INTAKE_URL` set): a relay between stdio and
 * `<INTAKE_URL>/mcp` with the token as bearer; nothing but the token is needed on this machine.
 */

export async function serveStdio(ctx: AppContext, token: string): Promise<() => Promise<void>> {
  const first = await authenticate(ctx, token);
  if (!first) throw new Error('INTAKE_TOKEN is invalid, revoked or expired');
  const caller = async () => {
    const now = await authenticate(ctx, token);
    if (!now) throw new Error('INTAKE_TOKEN is no longer valid (revoked or expired)');
    return now;
  };
  const server = createMcpServer(ctx, caller, VERSION);
  await server.connect(new StdioServerTransport());
  return () => server.close();
}

/** Relays JSON-RPC messages between stdio and the remote server until either side closes. */
export async function relayStdio(url: string, token: string): Promise<Promise<void>> {
  const remote = new StreamableHTTPClientTransport(new URL('/mcp', url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const local = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    remote.onclose = () => resolve();
    local.onclose = () => resolve();
  });
  local.onmessage = (message) => {
    remote.send(message).catch((err: unknown) => {
      // A request that could not be relayed gets an error answer, so the client does not wait for ever.
      if ('id' in message && 'method' in message) {
        void local.send({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32000, message: `Intake at ${url}: ${(err as Error).message}` },
        });
      }
    });
  };
  remote.onmessage = (message) => void local.send(message);
  remote.onerror = (err) => process.stderr.write(`intake mcp: ${err.message}\n`);
  await remote.start();
  await local.start();
  return closed.then(async () => {
    await remote.close().catch(() => {});
    await local.close().catch(() => {});
  });
}
