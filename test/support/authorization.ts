import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import { isAppRoute, isZodType, type AppRoute, type AppRouter } from '@ts-rest/core';
import { afterAll, expect } from 'vitest';
import {
  ABILITIES,
  contract,
  ROLE_CEILINGS,
  ROLES,
  type Ability,
  type Role,
  type RouteMetadata,
} from '../../contract/index.ts';
import { removeMember } from '../../server/domain/accounts/users.ts';
import { toolSpecs } from '../../server/transports/mcp/tools.ts';
import { bearer, makeTeam, makeToken, type TestMember } from './harness.ts';
import { startLiveTestApp } from './live-server.ts';
import { changeRole, makeRoleMember, type RoleMember } from './team-records.ts';

/**
 * The authorization matrix (issue 15), generated from the contract and from the tool list the MCP server
 * answers, so a route or tool added later is covered without touching this file. test/contract/security.test.ts
 * holds the first rows (no/bad/revoked token → 401, a missing ability → 403, another team's record → 404,
 * over REST and MCP); test/accounts/authorization-*.test.ts add the rest (this module holds what they share: the live app, the routes,
 * the callers and sample inputs):
 *
 * - expired tokens, and every 401 over MCP at the HTTP level (stateless calls and live sessions);
 * - each role with its whole ceiling, minted at that role and lowered to it later → 403 where the role may
 *   not, a non-authorization answer where it may;
 * - another team's token → 404 on our records, and its answers never show our ids;
 * - ids nested inside one team (a submission of form B under form A, a delivery of webhook B under
 *   webhook A, a file of submission B under submission A) → 404;
 * - every id a query or body accepts, pointed at another team's (or another form's) record;
 * - every tool and resource the MCP server lists.
 *
 * Requests are counted and printed at the end (the figure goes into issue 15's closing note).
 */

// No rate limit here: the matrix sends hundreds of calls per token; the limit has its own tests.
export const t = await startLiveTestApp({ INTAKE_API_RATE_LIMIT: '1000000', INTAKE_API_TEAM_RATE_LIMIT: '1000000' });

export const tried = { rest: 0, mcp: 0 };
afterAll(() => {
  console.log(
    `authorization matrix: ${tried.rest} REST requests, ${tried.mcp} MCP requests (${tried.rest + tried.mcp} in all)`,
  );
});

// ---------------------------------------------------------------------------------------------------
// The contract's routes

export type Entry = { key: string; route: AppRoute; meta: RouteMetadata; params: string[] };

export function routesOf(router: AppRouter, prefix = ''): Entry[] {
  return Object.entries(router).flatMap(([key, value]) =>
    isAppRoute(value)
      ? [
          {
            key: prefix + key,
            route: value,
            meta: value.metadata as RouteMetadata,
            params: [...value.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!),
          },
        ]
      : routesOf(value, `${prefix}${key}.`),
  );
}

export const routes = routesOf(contract);
export const routeByKey = new Map(routes.map((e) => [e.key, e]));

/** Valid bodies / queries for routes whose schema does not accept an empty one, keyed by route key. */
export const sampleBodies: Record<string, unknown> = {
  createToken: { name: 'authorization matrix', abilities: ['forms:read'] },
  createForm: { name: 'authorization matrix' },
  bulkSubmissions: { ids: ['subm_00000000000000000000000000'], action: 'mark_spam' },
  createSubmission: { fields: { message: 'authorization matrix' } },
  createSubmissionNote: { body: 'authorization matrix' },
  createRule: { name: 'authorization matrix', actions: [{ type: 'skip_autoresponder' }] },
  orderRules: { ids: [] },
  testRules: { payload: { message: 'authorization matrix' } },
  createWebhook: { label: 'authorization matrix', url: 'https://example.com/hook' },
  previewWebhook: { payload: { message: 'authorization matrix' } },
  createErasure: { email: 'nobody@example.test', dry_run: true },
};
export const sampleQueries: Record<string, Record<string, string>> = {};

/**
 * Rules in server/domain beyond a token's abilities: only these roles may call these routes, the others get
 * 403 `forbidden` even with the ability. The role cases below fail on any 403 not explained by the ceiling
 * or this table, so a new role rule cannot go unlisted.
 */
export const ROLE_RULES: Record<string, readonly Role[]> = {
  forceDeleteForm: ['owner', 'admin'],
  createErasure: ['owner', 'admin'],
};

/** The answer's media types besides the default JSON (an event stream, a JSON export): each is asked for too. */
export const acceptsOf = (entry: Entry): Array<string | undefined> => [
  undefined,
  ...Object.keys(entry.meta.alsoAnswers ?? {}),
];

export const hasBody = (route: AppRoute) => 'body' in route && isZodType(route.body);

export function fillPath(route: AppRoute, values: Record<string, string>): string {
  return route.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) =>
    encodeURIComponent(values[name] ?? `${name}_00000000000000000000000000`),
  );
}

export const toolArgs = (key: string, made: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  ...(sampleQueries[key] ?? {}),
  ...((sampleBodies[key] as Record<string, unknown> | undefined) ?? {}),
  ...made,
  ...extra,
});

// ---------------------------------------------------------------------------------------------------
// REST over real HTTP

export type Answer = { status: number; headers: Headers; text: string; body: Record<string, unknown> | null };

export async function rest(
  method: string,
  path: string,
  opts: {
    token?: string;
    authorization?: string;
    accept?: string;
    query?: Record<string, string>;
    body?: unknown;
  } = {},
): Promise<Answer> {
  tried.rest++;
  const url = new URL(path, t.baseUrl);
  for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
  const headers: Record<string, string> = {};
  if (opts.authorization) headers.authorization = opts.authorization;
  else if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.accept) headers.accept = opts.accept;
  const abort = new AbortController();
  const res = await fetch(url, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    redirect: 'manual',
    signal: abort.signal,
  });
  let text = '';
  // An event stream never ends by itself: its status and headers are the answer.
  if (/text\/event-stream/.test(res.headers.get('content-type') ?? '')) abort.abort();
  else text = await res.text();
  let body: Record<string, unknown> | null = null;
  if (text && /^application\/json/.test(res.headers.get('content-type') ?? ''))
    body = JSON.parse(text) as Record<string, unknown>;
  return { status: res.status, headers: res.headers, text, body };
}

/** Calls a route as the contract describes it, with the sample body/query and `values` in its path. */
export function send(
  entry: Entry,
  values: Record<string, string>,
  auth: { token?: string; authorization?: string; accept?: string } = {},
) {
  return rest(entry.route.method, fillPath(entry.route, values), {
    ...auth,
    query: sampleQueries[entry.key],
    body: hasBody(entry.route) ? (sampleBodies[entry.key] ?? {}) : undefined,
  });
}

/** The spec's error answer: status, JSON `{ error, message }`, a request id, no internals. */
export function expectError(res: Answer, status: number, error: string, label: string) {
  expect(res.status, `${label}: ${res.text}`).toBe(status);
  expect(res.headers.get('content-type'), label).toMatch(/^application\/json/);
  expect(res.body, label).toMatchObject({ error, message: expect.any(String) });
  expect(String(res.body?.message).length, label).toBeGreaterThan(0);
  expect(res.headers.get('x-request-id'), label).toMatch(/^[\w.-]{1,128}$/);
  expect(res.text, label).not.toMatch(/\bat .+\.ts:\d+|select |insert |stack/i);
}

export function expect401(res: Answer, label: string, invalidToken: boolean) {
  expectError(res, 401, 'unauthenticated', label);
  expect(res.headers.get('www-authenticate'), label).toMatch(
    invalidToken ? /^Bearer realm="intake", error="invalid_token"$/ : /^Bearer realm="intake"$/,
  );
}

/** Allowed to act: an answer about the request, not about who sent it (2xx, or a 4xx of the body or state). */
export function expectNotRefused(res: Answer, label: string) {
  expect([401, 403, 404], `${label}: ${res.status} ${res.text}`).not.toContain(res.status);
  expect(res.status, `${label}: ${res.text}`).toBeLessThan(500);
}

// ---------------------------------------------------------------------------------------------------
// MCP: a real client for tool calls, raw HTTP for what the client would hide (401s)

export type ToolAnswer = { ok: true; text: string } | { ok: false; error: Record<string, unknown> };

export async function mcpClient(token: string): Promise<Client> {
  const client = new Client({ name: 'authorization-matrix', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { requestInit: { headers: bearer(token) } }),
  );
  return client;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  tried.mcp++;
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const texts = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  if (!result.isError) return { ok: true, text: texts };
  const last = result.content[result.content.length - 1];
  try {
    return { ok: false, error: JSON.parse(last?.type === 'text' ? last.text : '') as Record<string, unknown> };
  } catch {
    return { ok: false, error: { error: 'unparsed', message: texts } };
  }
}

export function expectToolError(answer: ToolAnswer, error: string, label: string, extra: Record<string, unknown> = {}) {
  expect(answer.ok, `${label}: ${JSON.stringify(answer)}`).toBe(false);
  if (!answer.ok) expect(answer.error, label).toMatchObject({ error, message: expect.any(String), ...extra });
}

/** The MCP form of expectNotRefused: a result, or an error about the request, not the caller. */
export function expectToolNotRefused(answer: ToolAnswer, label: string) {
  if (answer.ok) return;
  expect(
    ['unauthenticated', 'forbidden', 'not_found', 'internal_error', 'service_unavailable', 'unparsed'],
    `${label}: ${JSON.stringify(answer.error)}`,
  ).not.toContain(answer.error.error);
}

export const MCP_ACCEPT = 'application/json, text/event-stream';

export async function mcpPost(authorization: string | undefined, message: object, sessionId?: string): Promise<Answer> {
  tried.mcp++;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: MCP_ACCEPT };
  if (authorization) headers.authorization = authorization;
  if (sessionId) headers['mcp-session-id'] = sessionId;
  const res = await fetch(`${t.baseUrl}/mcp`, { method: 'POST', headers, body: JSON.stringify(message) });
  const text = await res.text();
  const body = /^application\/json/.test(res.headers.get('content-type') ?? '')
    ? (JSON.parse(text) as Record<string, unknown>)
    : null;
  return { status: res.status, headers: res.headers, text, body };
}

let rpcId = 0;
export const toolCall = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: ++rpcId,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** A session started with `token` over raw HTTP; its id. */
export async function rawSession(token: string): Promise<string> {
  const init = await mcpPost(`Bearer ${token}`, {
    jsonrpc: '2.0',
    id: ++rpcId,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'authorization-matrix', version: '1.0.0' },
    },
  });
  expect(init.status, init.text).toBe(200);
  const id = init.headers.get('mcp-session-id');
  expect(id).toBeTruthy();
  const ready = await mcpPost(`Bearer ${token}`, { jsonrpc: '2.0', method: 'notifications/initialized' }, id!);
  expect(ready.status, ready.text).toBe(202);
  return id!;
}

// ---------------------------------------------------------------------------------------------------
// Tokens in every state

export async function revokedToken(member: TestMember): Promise<string> {
  const made = await makeToken(t, member);
  await t.ctx.db.query('update api_tokens set revoked_at = now() where id = $1', [made.tokenId]);
  return made.token;
}

/** A token whose expires_at has passed (POST /tokens refuses a past expiry, so it is moved back afterwards). */
export async function expiredToken(member: TestMember): Promise<string> {
  const made = await makeToken(t, member);
  await t.ctx.db.query(`update api_tokens set expires_at = now() - interval '1 second' where id = $1`, [made.tokenId]);
  return made.token;
}

/** The token of a member who has since been removed from the team (the operator's `intake admin user remove`). */
export async function removedMembersToken(teamId: string): Promise<string> {
  const gone = await makeRoleMember(t, teamId, 'editor');
  await removeMember(t.ctx, { teamId, userId: gone.userId });
  return gone.token;
}

/** The ways to not be authenticated, each with whether the token itself is the problem (RFC 6750 invalid_token). */
export async function unauthenticatedCases(
  member: TestMember,
): Promise<Array<{ name: string; authorization?: string; invalidToken: boolean }>> {
  return [
    { name: 'no token', invalidToken: false },
    { name: 'Basic credentials', authorization: 'Basic dXNlcjpwYXNz', invalidToken: false },
    { name: 'unknown token', authorization: `Bearer intk_${'A'.repeat(40)}`, invalidToken: true },
    { name: 'revoked token', authorization: `Bearer ${await revokedToken(member)}`, invalidToken: true },
    { name: 'expired token', authorization: `Bearer ${await expiredToken(member)}`, invalidToken: true },
    {
      name: 'token of a member removed from the team',
      authorization: `Bearer ${await removedMembersToken(member.teamId)}`,
      invalidToken: true,
    },
  ];
}

// ---------------------------------------------------------------------------------------------------
// What the MCP server lists (asked over the wire, not read from our own module)

/** The tools, resources and templates the server lists, and the route behind each tool (the server builds its tools from the contract: toolSpecs). */
export async function listServer() {
  const lister = await makeTeam(t, { plan: 'scale' });
  const listing = await mcpClient(lister.token);
  const listedTools: Tool[] = [];
  for (let cursor: string | undefined, first = true; first || cursor; first = false) {
    const page = await listing.listTools(cursor ? { cursor } : {});
    listedTools.push(...page.tools);
    cursor = page.nextCursor;
  }
  const listedResources: Resource[] = (await listing.listResources()).resources;
  const listedTemplates: ResourceTemplate[] = (await listing.listResourceTemplates()).resourceTemplates;
  await listing.close();
  const routeOfTool = new Map(
    listedTools.map((tool) => [tool.name, routeByKey.get(toolSpecs.find((s) => s.name === tool.name)?.routeKey ?? '')]),
  );
  const toolOfRoute = new Map([...routeOfTool].flatMap(([name, entry]) => (entry ? [[entry.key, name] as const] : [])));
  return { listedTools, listedResources, listedTemplates, routeOfTool, toolOfRoute };
}

// ---------------------------------------------------------------------------------------------------
// Callers at every role

/** The role callers, shared by the routes (each case makes its own records): minted at the role, and lowered to it. */
export type RoleCaller = { label: string; role: Role; member: RoleMember; client: Client };

/** Two callers per role (its MCP clients closed after the file's tests). */
export async function makeRoleCallers(): Promise<RoleCaller[]> {
  const roleCallers: RoleCaller[] = [];
  for (const role of ROLES) {
    const minted = await makeRoleMember(t, (await makeTeam(t, { plan: 'scale' })).teamId, role);
    // An owner's token with every ability, whose member is then lowered to `role`: the ceiling applies at once.
    const lowered = await changeRole(
      t,
      await makeRoleMember(t, (await makeTeam(t, { plan: 'scale' })).teamId, 'owner', [...ABILITIES]),
      role,
    );
    roleCallers.push({ label: `${role}`, role, member: minted, client: await mcpClient(minted.token) });
    roleCallers.push({
      label: `owner lowered to ${role}`,
      role,
      member: lowered,
      client: await mcpClient(lowered.token),
    });
  }
  afterAll(async () => {
    for (const c of roleCallers) await c.client.close();
  });
  return roleCallers;
}

/** What a role may do on a route: nothing (403, naming the ability when that is what it lacks) or act. */
export function roleMay(role: Role, entry: Entry): { may: true } | { may: false; required?: Ability } {
  const ability = entry.meta.ability;
  if (ability && !ROLE_CEILINGS[role].includes(ability)) return { may: false, required: ability };
  const rule = ROLE_RULES[entry.key];
  if (rule && !rule.includes(role)) return { may: false };
  return { may: true };
}

/** Every id a team's records carry, to look for in another team's answers. */
export async function teamIds(teamId: string): Promise<string[]> {
  const { rows } = await t.ctx.db.query<{ id: string }>(
    `select id from forms where team_id = $1 union all select id from submissions where team_id = $1
     union all select id from submission_files where team_id = $1 union all select id from webhooks where team_id = $1
     union all select id from deliveries where team_id = $1 union all select id from jobs where team_id = $1
     union all select id from erasure_requests where team_id = $1 union all select id from api_tokens where team_id = $1
     union all select $1`,
    [teamId],
  );
  return rows.map((r) => r.id);
}
