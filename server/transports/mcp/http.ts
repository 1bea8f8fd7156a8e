import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { AppContext } from '../../context.ts';
import type { Caller } from '../../domain/accounts/caller.ts';
import { AppError } from '../../domain/shared/errors.ts';
import {
  API_INPUT_LIMITS,
  decodeJsonText,
  jsonTextProblem,
  tooLargeInput,
  type InputLimits,
} from '../../domain/shared/input-guard.ts';
import { chargeApiBudget } from '../../domain/accounts/rate-windows.ts';
import { inTeamLane } from '../../domain/accounts/team-lanes.ts';
import { createMcpServer } from './server.ts';
import { authenticateBearer, bearerChallenge } from '../../operations/pipeline.ts';
import { VERSION } from '../../version.ts';
import { refuseFailedAuth, type AuthFailures } from '../http/auth-failures.ts';
import { closeUnreadBody } from '../http/errors.ts';

/**
 * MCP over Streamable HTTP at `/mcp` (docs/mcp.md). The bearer token is checked on every request before a byte
 * of the body is read; a POST body is read up to 1 MiB, decoded as strict UTF-8 and scanned for depth and
 * value count before it is parsed. An `initialize` without `Mcp-Session-Id` opens a session, charged to the
 * token's API budget and bounded per token, team and process; a session idle for INTAKE_MCP_SESSION_IDLE_MS
 * ends. Any other request without a session is served statelessly.
 */

/** A session: its transport, the caller as its latest request authenticated it, and when it was last used. */
type Session = {
  transport: StreamableHTTPServerTransport;
  caller: Caller;
  lastSeen: number;
  /** Requests other than the GET stream in flight: a session is not idle while it works on one. */
  busy: number;
};

/**
 * The JSON-RPC envelope around tool arguments (message → params → arguments, and a batch's array) may
 * add three levels and a few values to what a REST body of the same arguments holds; the arguments
 * themselves are held to the API's own limits in `callTool`.
 */
const MESSAGE_LIMITS: InputLimits = {
  maxBytes: API_INPUT_LIMITS.maxBytes,
  maxDepth: API_INPUT_LIMITS.maxDepth + 3,
  maxNodes: API_INPUT_LIMITS.maxNodes + 100,
};

/** What reading a request's message returns once it has answered the request itself. */
const ANSWERED = Symbol('answered');

/** A JSON-RPC error answer; `body` is the API's error body, carried as the error's data. */
function jsonRpcError(
  res: Response,
  status: number,
  code: number,
  message: string,
  body?: Record<string, unknown>,
): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message, ...(body ? { data: body } : {}) }, id: null });
}

function appErrorAnswer(res: Response, status: number, code: number, err: AppError): void {
  if (typeof err.extra.retry_after === 'number') res.setHeader('Retry-After', String(err.extra.retry_after));
  jsonRpcError(res, status, code, err.message, err.toBody());
}

/**
 * The body of a POST, at most `maxBytes`, or 'too_large' as soon as it is known to exceed them (the rest
 * is left unread: the caller answers 413 and closes the connection).
 */
function readBody(req: Request, maxBytes: number): Promise<Buffer | 'too_large'> {
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) return Promise.resolve('too_large');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        done();
        req.pause();
        return resolve('too_large');
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      done();
      reject(err);
    };
    const onClose = () => {
      done();
      reject(Object.assign(new Error('request aborted'), { type: 'request.aborted' }));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

export function mcpRoutes(ctx: AppContext, failures: AuthFailures) {
  const limits = ctx.config.mcp;
  // Sessions live in this process (their transport and server are objects here), so a load balancer must
  // route a session's requests by Mcp-Session-Id, and the caps below bound what this process holds.
  const sessions = new Map<string, Session>();
  /** Every admitted session (from the moment an initialize is let through), and the same per token and per team. */
  const admitted = new Set<Session>();
  const perToken = new Map<string, Set<Session>>();
  const perTeam = new Map<string, Set<Session>>();
  const groupsOf = (s: Session) =>
    [
      [perToken, s.caller.tokenId],
      [perTeam, s.caller.teamId],
    ] as const;

  const admit = (s: Session) => {
    admitted.add(s);
    for (const [map, key] of groupsOf(s)) {
      let set = map.get(key);
      if (!set) map.set(key, (set = new Set()));
      set.add(s);
    }
  };
  const forget = (s: Session, id: string | undefined) => {
    if (id) sessions.delete(id);
    admitted.delete(s);
    for (const [map, key] of groupsOf(s)) {
      const set = map.get(key);
      set?.delete(s);
      if (set && !set.size) map.delete(key);
    }
  };

  // Often enough that a session outlives its idle limit by at most a quarter of it, or a minute for long limits.
  const sweepEvery = Math.min(60_000, Math.max(250, Math.floor(limits.sessionIdleMs / 4)));
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const s of sessions.values()) if (!s.busy && now - s.lastSeen > limits.sessionIdleMs) void s.transport.close();
  }, sweepEvery);
  sweep.unref();

  /** Seconds until the least recently used of these sessions would end idle. */
  const retryAfter = (set: Set<Session>) => {
    const oldest = Math.min(...[...set].map((s) => s.lastSeen));
    return Math.max(1, Math.ceil((oldest + limits.sessionIdleMs - Date.now()) / 1000));
  };

  /** Why this caller may not open another session now, or null. */
  const overCap = (caller: Caller): AppError | null => {
    const token = perToken.get(caller.tokenId);
    if (token && token.size >= limits.sessionsPerToken) {
      return new AppError(
        'rate_limited',
        `This token has ${token.size} open MCP sessions, the most allowed (${limits.sessionsPerToken}): end one (DELETE /mcp with its Mcp-Session-Id) or wait for one to expire.`,
        { retry_after: retryAfter(token), limit: limits.sessionsPerToken },
      );
    }
    const team = perTeam.get(caller.teamId);
    if (team && team.size >= limits.sessionsPerTeam) {
      return new AppError(
        'rate_limited',
        `This team's tokens have ${team.size} open MCP sessions, the most allowed (${limits.sessionsPerTeam}): end one or wait for one to expire.`,
        {
          retry_after: retryAfter(team),
          limit: limits.sessionsPerTeam,
        },
      );
    }
    if (admitted.size >= limits.sessionsMax)
      return new AppError(
        'service_unavailable',
        'This server holds as many MCP sessions as it can; try again shortly.',
        { retry_after: 30 },
      );
    return null;
  };

  const authenticated = async (req: Request, res: Response): Promise<Caller | null> => {
    const header = req.headers.authorization;
    try {
      return await authenticateBearer(ctx, header);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'unauthenticated') throw err;
      const refused = failures.hit(req.ip);
      if (refused) {
        refuseFailedAuth(failures, req, res, refused);
        return null;
      }
      // Answered before the body is read: an unauthenticated body is never parsed, nor even received.
      closeUnreadBody(req, res);
      res.setHeader('WWW-Authenticate', bearerChallenge(header));
      res.status(401).json(err.toBody());
      return null;
    }
  };

  /** The POST's JSON-RPC message, through the size, UTF-8 and depth guards; ANSWERED once refused. */
  const message = async (req: Request, res: Response): Promise<unknown> => {
    if (req.is(['application/json', 'application/*+json']) === false) {
      closeUnreadBody(req, res);
      jsonRpcError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
      return ANSWERED;
    }
    const bytes = await readBody(req, MESSAGE_LIMITS.maxBytes);
    if (bytes === 'too_large') {
      closeUnreadBody(req, res);
      appErrorAnswer(res, 413, -32000, tooLargeInput(MESSAGE_LIMITS));
      return ANSWERED;
    }
    try {
      const text = decodeJsonText(bytes);
      // The depth and value count on the text, so a body nested 500,000 deep is never built.
      const refused = jsonTextProblem(text, { limits: MESSAGE_LIMITS });
      if (refused) {
        appErrorAnswer(res, 400, -32600, refused);
        return ANSWERED;
      }
      return JSON.parse(text) as unknown;
    } catch (err) {
      const invalid =
        err instanceof AppError ? err : new AppError('invalid_json', 'The request body is not valid JSON.');
      appErrorAnswer(res, 400, -32700, new AppError('invalid_json', `Parse error: ${invalid.message}`));
      return ANSWERED;
    }
  };

  const handle = async (req: Request, res: Response, next: NextFunction) => {
    try {
      const caller = await authenticated(req, res);
      if (!caller) return;
      const sessionId = req.header('mcp-session-id');
      const session = sessionId ? sessions.get(sessionId) : undefined;
      // Another token cannot use a session: it is "not found" to it, as the SDK answers an unknown one.
      if (sessionId && (!session || session.caller.tokenId !== caller.tokenId)) {
        closeUnreadBody(req, res);
        return jsonRpcError(res, 404, -32001, 'Session not found.');
      }
      const body = req.method === 'POST' ? await message(req, res) : undefined;
      if (body === ANSWERED) return;

      if (session) {
        session.caller = caller;
        session.lastSeen = Date.now();
        if (req.method === 'GET') {
          // A session's GET stream is quiet until the server has something to say: the connection idle
          // timeout (INTAKE_IDLE_TIMEOUT_MS) must not cut it. It is one per session (the SDK answers a
          // second with 409), holds no database connection, and ends with its session.
          req.socket.setTimeout(0);
        } else {
          session.busy++;
          res.once('close', () => {
            session.busy--;
            session.lastSeen = Date.now();
          });
        }
        return await session.transport.handleRequest(req, res, body);
      }
      if (req.method === 'POST' && isInitializeRequest(body)) {
        // A session costs memory for as long as it lives: opening one counts against the token's API
        // budget, as a REST request does, and the token, its team and this process hold a bounded number.
        // It is opened in the team's lane, as an operation runs: fifty at once are served a few at a time.
        return await inTeamLane(ctx, caller.teamId, () => openSession(req, res, caller, body));
      }
      if (req.method !== 'POST')
        return jsonRpcError(res, 400, -32000, 'Send Mcp-Session-Id, or POST a request (stateless).');
      // Stateless: a server and transport for this one request. Building them costs as much as a REST
      // request, so a message that calls no tool (tools/list, ping, a batch) counts against the token's API
      // budget here; a tool call is charged in invoke, as every operation is. The team's lane is taken by
      // each operation the message runs (a tool call, a resource read), never around the message: a
      // resource read waiting for a place its own message held would wait for ever.
      if (!isToolCall(body)) {
        const { exceeded } = await chargeApiBudget(ctx, caller);
        if (exceeded) return appErrorAnswer(res, exceeded.status, -32000, exceeded);
      }
      return await answerStateless(req, res, caller, body);
    } catch (err) {
      if (err instanceof AppError && err.code === 'rate_limited' && !res.headersSent)
        return appErrorAnswer(res, err.status, -32000, err);
      next(err);
    }
  };

  /** Opens a session for an initialize, within the caps. */
  const openSession = async (req: Request, res: Response, caller: Caller, body: unknown) => {
    const { exceeded } = await chargeApiBudget(ctx, caller);
    const refused = exceeded ?? overCap(caller);
    if (refused) return appErrorAnswer(res, refused.status, -32000, refused);
    const session: Session = { transport: undefined as never, caller, lastSeen: Date.now(), busy: 1 };
    admit(session);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, session),
    });
    session.transport = transport;
    // Ended by DELETE, by the idle sweep, or by the server: the count and the map forget it.
    transport.onclose = () => forget(session, transport.sessionId);
    res.once('close', () => {
      session.busy--;
      session.lastSeen = Date.now();
      // An initialize the SDK refused opened no session.
      if (!transport.sessionId) void transport.close();
    });
    await createMcpServer(ctx, async () => session.caller, VERSION).connect(transport);
    await transport.handleRequest(req, res, body);
  };

  /** One message without a session: a server and transport for this request alone. */
  const answerStateless = async (req: Request, res: Response, caller: Caller, body: unknown) => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const server = createMcpServer(ctx, async () => caller, VERSION);
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const router = express.Router();
  router.all('/mcp', handle);
  return router;
}

/** One JSON-RPC tools/call message (not a batch). */
function isToolCall(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    (body as { method?: unknown }).method === 'tools/call'
  );
}
