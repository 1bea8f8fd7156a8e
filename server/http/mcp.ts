import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { AppContext } from '../context.ts';
import type { Caller } from '../domain/caller.ts';
import { authenticate } from '../domain/tokens.ts';
import { createMcpServer } from '../mcp/server.ts';
import { VERSION } from '../version.ts';

/**
 * MCP over Streamable HTTP at `/mcp` (docs/mcp.md). Every request carries `Authorization: Bearer <token>`
 * (401 with `WWW-Authenticate` otherwise), checked on every request as the REST API does, so a revoked
 * token stops working at once. An `initialize` request without `Mcp-Session-Id` starts a session (the SDK
 * negotiates the protocol version and issues the id); later requests of the session must carry the same
 * token. Any other request without a session id is served statelessly. Sessions idle for 30 minutes end.
 */

const IDLE_MS = 30 * 60_000;

/** A session: its transport, and the caller as its latest request authenticated it. */
type Session = { transport: StreamableHTTPServerTransport; caller: Caller; lastSeen: number };

function jsonRpcError(res: Response, status: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

export function mcpRoutes(ctx: AppContext) {
  const sessions = new Map<string, Session>();
  const sweep = setInterval(() => {
    for (const [id, s] of sessions) if (Date.now() - s.lastSeen > IDLE_MS) void s.transport.close().finally(() => sessions.delete(id));
  }, 60_000);
  sweep.unref();

  const authenticated = async (req: Request, res: Response): Promise<Caller | null> => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    const caller = match ? await authenticate(ctx, match[1]!) : null;
    if (caller) return caller;
    res.setHeader('WWW-Authenticate', match ? 'Bearer realm="intake", error="invalid_token"' : 'Bearer realm="intake"');
    res.status(401).json({ error: 'unauthenticated', message: match ? 'The token is invalid or has been revoked.' : 'Send a token: Authorization: Bearer <token>.' });
    return null;
  };

  const handle = async (req: Request, res: Response, next: NextFunction) => {
    try {
      const caller = await authenticated(req, res);
      if (!caller) return;
      const sessionId = req.header('mcp-session-id');
      if (sessionId) {
        const session = sessions.get(sessionId);
        // Another token cannot use a session: it is "not found" to it, as the SDK answers an unknown one.
        if (!session || session.caller.tokenId !== caller.tokenId) return jsonRpcError(res, 404, 'Session not found.');
        session.caller = caller;
        session.lastSeen = Date.now();
        // A session's GET stream is quiet until the server has something to say: the connection idle
        // timeout (INTAKE_IDLE_TIMEOUT_MS) must not cut it. The session sweep ends idle sessions instead.
        if (req.method === 'GET') req.socket.setTimeout(0);
        return await session.transport.handleRequest(req, res, req.body);
      }
      if (req.method === 'POST' && isInitializeRequest(req.body)) {
        // Registered once the SDK has issued the session id (after this request's initialize).
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, session),
        });
        const session: Session = { transport, caller, lastSeen: Date.now() };
        transport.onclose = () => {
          if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        await createMcpServer(ctx, async () => session.caller, VERSION).connect(transport);
        return await transport.handleRequest(req, res, req.body);
      }
      if (req.method !== 'POST') return jsonRpcError(res, 400, 'Send Mcp-Session-Id, or POST a request (stateless).');
      // Stateless: a server and transport for this one request.
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      const server = createMcpServer(ctx, async () => caller, VERSION);
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (err) {
      next(err);
    }
  };

  const router = express.Router();
  router.use('/mcp', express.json({ limit: '1mb' }));
  router.all('/mcp', handle);
  return router;
}
