import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import { isAppRoute, isZodType, type AppRoute, type AppRouter } from '@ts-rest/core';
import { afterAll, describe, expect, it } from 'vitest';
import { ABILITIES, contract, ROLE_CEILINGS, ROLES, type Ability, type Role, type RouteMetadata } from '../contract/index.ts';
import { objectShape, unwrapSchema } from '../contract/schema-shape.ts';
import { runReplayJob } from '../server/domain/deliveries.ts';
import { runErasure } from '../server/domain/erasure.ts';
import { addMember, removeMember } from '../server/domain/users.ts';
import { toolSpecs } from '../server/mcp/tools.ts';
import { bearer, makeTeam, makeToken, type TestMember } from './support/harness.ts';
import { startLiveTestApp } from './support/live-server.ts';
import {
  changeRole,
  insertDelivery,
  insertForm,
  insertSubmission,
  insertWebhook,
  makeRecords,
  makeRoleMember,
  recordFactories,
  type RoleMember,
} from './support/team-records.ts';

/**
 * The authorization matrix (issue 15), generated from the contract and from the tool list the MCP server
 * answers, so a route or tool added later is covered without touching this file. test/security.test.ts
 * holds the first rows (no/bad/revoked token → 401, a missing ability → 403, another team's record → 404,
 * over REST and MCP); this file adds the rest:
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
const t = await startLiveTestApp({ INTAKE_API_RATE_LIMIT: '1000000', INTAKE_API_TEAM_RATE_LIMIT: '1000000' });

const tried = { rest: 0, mcp: 0 };
afterAll(() => {
  console.log(`authorization matrix: ${tried.rest} REST requests, ${tried.mcp} MCP requests (${tried.rest + tried.mcp} in all)`);
});

// ---------------------------------------------------------------------------------------------------
// The contract's routes

type Entry = { key: string; route: AppRoute; meta: RouteMetadata; params: string[] };

function routesOf(router: AppRouter, prefix = ''): Entry[] {
  return Object.entries(router).flatMap(([key, value]) =>
    isAppRoute(value)
      ? [{ key: prefix + key, route: value, meta: value.metadata as RouteMetadata, params: [...value.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!) }]
      : routesOf(value, `${prefix}${key}.`),
  );
}

const routes = routesOf(contract);
const routeByKey = new Map(routes.map((e) => [e.key, e]));

/** Valid bodies / queries for routes whose schema does not accept an empty one, keyed by route key. */
const sampleBodies: Record<string, unknown> = {
  createToken: { name: 'authorization matrix', abilities: ['forms:read'] },
  createForm: { name: 'authorization matrix' },
  bulkSubmissions: { ids: ['subm_00000000000000000000000000'], action: 'mark_spam' },
  createWebhook: { label: 'authorization matrix', url: 'https://example.com/hook' },
  createErasure: { email: 'nobody@example.test', dry_run: true },
};
const sampleQueries: Record<string, Record<string, string>> = {};

/**
 * Rules in server/domain beyond a token's abilities: only these roles may call these routes, the others get
 * 403 `forbidden` even with the ability. The role cases below fail on any 403 not explained by the ceiling
 * or this table, so a new role rule cannot go unlisted.
 */
const ROLE_RULES: Record<string, readonly Role[]> = {
  forceDeleteForm: ['owner', 'admin'],
  createErasure: ['owner', 'admin'],
};

/** The answer's media types besides the default JSON (an event stream, a JSON export): each is asked for too. */
const acceptsOf = (entry: Entry): Array<string | undefined> => [undefined, ...Object.keys(entry.meta.alsoAnswers ?? {})];

const hasBody = (route: AppRoute) => 'body' in route && isZodType(route.body);

function fillPath(route: AppRoute, values: Record<string, string>): string {
  return route.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(values[name] ?? `${name}_00000000000000000000000000`));
}

const toolArgs = (key: string, made: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  ...(sampleQueries[key] ?? {}),
  ...((sampleBodies[key] as Record<string, unknown> | undefined) ?? {}),
  ...made,
  ...extra,
});

// ---------------------------------------------------------------------------------------------------
// REST over real HTTP

type Answer = { status: number; headers: Headers; text: string; body: Record<string, unknown> | null };

async function rest(
  method: string,
  path: string,
  opts: { token?: string; authorization?: string; accept?: string; query?: Record<string, string>; body?: unknown } = {},
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
  if (text && /^application\/json/.test(res.headers.get('content-type') ?? '')) body = JSON.parse(text) as Record<string, unknown>;
  return { status: res.status, headers: res.headers, text, body };
}

/** Calls a route as the contract describes it, with the sample body/query and `values` in its path. */
function send(entry: Entry, values: Record<string, string>, auth: { token?: string; authorization?: string; accept?: string } = {}) {
  return rest(entry.route.method, fillPath(entry.route, values), {
    ...auth,
    query: sampleQueries[entry.key],
    body: hasBody(entry.route) ? (sampleBodies[entry.key] ?? {}) : undefined,
  });
}

/** The spec's error answer: status, JSON `{ error, message }`, a request id, no internals. */
function expectError(res: Answer, status: number, error: string, label: string) {
  expect(res.status, `${label}: ${res.text}`).toBe(status);
  expect(res.headers.get('content-type'), label).toMatch(/^application\/json/);
  expect(res.body, label).toMatchObject({ error, message: expect.any(String) });
  expect(String(res.body?.message).length, label).toBeGreaterThan(0);
  expect(res.headers.get('x-request-id'), label).toMatch(/^[\w.-]{1,128}$/);
  expect(res.text, label).not.toMatch(/\bat .+\.ts:\d+|select |insert |stack/i);
}

function expect401(res: Answer, label: string, invalidToken: boolean) {
  expectError(res, 401, 'unauthenticated', label);
  expect(res.headers.get('www-authenticate'), label).toMatch(invalidToken ? /^Bearer realm="intake", error="invalid_token"$/ : /^Bearer realm="intake"$/);
}

/** Allowed to act: an answer about the request, not about who sent it (2xx, or a 4xx of the body or state). */
function expectNotRefused(res: Answer, label: string) {
  expect([401, 403, 404], `${label}: ${res.status} ${res.text}`).not.toContain(res.status);
  expect(res.status, `${label}: ${res.text}`).toBeLessThan(500);
}

// ---------------------------------------------------------------------------------------------------
// MCP: a real client for tool calls, raw HTTP for what the client would hide (401s)

type ToolAnswer = { ok: true; text: string } | { ok: false; error: Record<string, unknown> };

async function mcpClient(token: string): Promise<Client> {
  const client = new Client({ name: 'authorization-matrix', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { requestInit: { headers: bearer(token) } }));
  return client;
}

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
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

function expectToolError(answer: ToolAnswer, error: string, label: string, extra: Record<string, unknown> = {}) {
  expect(answer.ok, `${label}: ${JSON.stringify(answer)}`).toBe(false);
  if (!answer.ok) expect(answer.error, label).toMatchObject({ error, message: expect.any(String), ...extra });
}

/** The MCP form of expectNotRefused: a result, or an error about the request, not the caller. */
function expectToolNotRefused(answer: ToolAnswer, label: string) {
  if (answer.ok) return;
  expect(['unauthenticated', 'forbidden', 'not_found', 'internal_error', 'service_unavailable', 'unparsed'], `${label}: ${JSON.stringify(answer.error)}`).not.toContain(
    answer.error.error,
  );
}

const MCP_ACCEPT = 'application/json, text/event-stream';

async function mcpPost(authorization: string | undefined, message: object, sessionId?: string): Promise<Answer> {
  tried.mcp++;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: MCP_ACCEPT };
  if (authorization) headers.authorization = authorization;
  if (sessionId) headers['mcp-session-id'] = sessionId;
  const res = await fetch(`${t.baseUrl}/mcp`, { method: 'POST', headers, body: JSON.stringify(message) });
  const text = await res.text();
  const body = /^application\/json/.test(res.headers.get('content-type') ?? '') ? (JSON.parse(text) as Record<string, unknown>) : null;
  return { status: res.status, headers: res.headers, text, body };
}

let rpcId = 0;
const toolCall = (name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name, arguments: args } });

/** A session started with `token` over raw HTTP; its id. */
async function rawSession(token: string): Promise<string> {
  const init = await mcpPost(`Bearer ${token}`, {
    jsonrpc: '2.0',
    id: ++rpcId,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'authorization-matrix', version: '1.0.0' } },
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

async function revokedToken(member: TestMember): Promise<string> {
  const made = await makeToken(t, member);
  await t.ctx.db.query('update api_tokens set revoked_at = now() where id = $1', [made.tokenId]);
  return made.token;
}

/** A token whose expires_at has passed (POST /tokens refuses a past expiry, so it is moved back afterwards). */
async function expiredToken(member: TestMember): Promise<string> {
  const made = await makeToken(t, member);
  await t.ctx.db.query(`update api_tokens set expires_at = now() - interval '1 second' where id = $1`, [made.tokenId]);
  return made.token;
}

/** The token of a member who has since been removed from the team (the operator's `intake admin user remove`). */
async function removedMembersToken(teamId: string): Promise<string> {
  const gone = await makeRoleMember(t, teamId, 'editor');
  await removeMember(t.ctx, { teamId, userId: gone.userId });
  return gone.token;
}

/** The ways to not be authenticated, each with whether the token itself is the problem (RFC 6750 invalid_token). */
async function unauthenticatedCases(member: TestMember): Promise<Array<{ name: string; authorization?: string; invalidToken: boolean }>> {
  return [
    { name: 'no token', invalidToken: false },
    { name: 'Basic credentials', authorization: 'Basic dXNlcjpwYXNz', invalidToken: false },
    { name: 'unknown token', authorization: `Bearer intk_${'A'.repeat(40)}`, invalidToken: true },
    { name: 'revoked token', authorization: `Bearer ${await revokedToken(member)}`, invalidToken: true },
    { name: 'expired token', authorization: `Bearer ${await expiredToken(member)}`, invalidToken: true },
    { name: 'token of a member removed from the team', authorization: `Bearer ${await removedMembersToken(member.teamId)}`, invalidToken: true },
  ];
}

// ---------------------------------------------------------------------------------------------------
// What the MCP server lists (asked over the wire, not read from our own module)

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

/** The route behind each listed tool (the server builds its tools from the contract: toolSpecs). */
const routeOfTool = new Map(listedTools.map((tool) => [tool.name, routeByKey.get(toolSpecs.find((s) => s.name === tool.name)?.routeKey ?? '')]));
const toolOfRoute = new Map([...routeOfTool].flatMap(([name, entry]) => (entry ? [[entry.key, name] as const] : [])));

describe('the MCP tool list', () => {
  it('every tool the server lists is the tool of a contract route (the matrix knows its ability and records)', () => {
    expect(listedTools.length).toBeGreaterThan(0);
    const unknown = listedTools.filter((tool) => !routeOfTool.get(tool.name)).map((tool) => tool.name);
    expect(unknown, 'tools that are no contract route: teach test/authorization.test.ts their ability and records').toEqual([]);
  });

  it('every route but the event stream is a listed tool, and the tool asks for the route ability', () => {
    const missing = routes.filter((e) => !toolOfRoute.has(e.key) && e.key !== 'streamSubmissions').map((e) => e.key);
    expect(missing).toEqual([]);
    for (const tool of listedTools) {
      const entry = routeOfTool.get(tool.name)!;
      if (entry.meta.ability) expect(tool.description, tool.name).toContain(`\`${entry.meta.ability}\``);
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Every listed tool: 401 at the HTTP level, stateless and inside a session

describe.each(listedTools.map((tool) => [tool.name, tool] as const))('MCP tool %s', (name) => {
  it('answers 401 in the error shape with WWW-Authenticate: no token, Basic, unknown, revoked, expired — stateless and in a session', async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const entry = routeOfTool.get(name)!;
    const args = toolArgs(entry.key, Object.fromEntries(entry.params.map((p) => [p, `${p}_00000000000000000000000000`])));
    for (const c of await unauthenticatedCases(owner)) {
      expect401(await mcpPost(c.authorization, toolCall(name, args)), `${name} ${c.name}`, c.invalidToken);
    }

    // A session whose token is revoked, or expires, stops at once; so does one that loses its header.
    const doomed = await makeToken(t, owner);
    const session = await rawSession(doomed.token);
    const live = await mcpPost(`Bearer ${doomed.token}`, toolCall(name, args), session);
    expect(live.status, `${name} live session: ${live.text}`).toBe(200);
    expect401(await mcpPost(undefined, toolCall(name, args), session), `${name} session without a token`, false);
    await t.ctx.db.query(`update api_tokens set expires_at = now() - interval '1 second' where id = $1`, [doomed.tokenId]);
    expect401(await mcpPost(`Bearer ${doomed.token}`, toolCall(name, args), session), `${name} session, token expired`, true);

    const revoked = await makeToken(t, owner);
    const second = await rawSession(revoked.token);
    await t.ctx.db.query('update api_tokens set revoked_at = now() where id = $1', [revoked.tokenId]);
    expect401(await mcpPost(`Bearer ${revoked.token}`, toolCall(name, args), second), `${name} session, token revoked`, true);

    // Another valid token cannot ride a session it did not start.
    const hijack = await mcpPost(`Bearer ${owner.token}`, toolCall(name, args), second);
    expect(hijack.status, `${name} another token's session: ${hijack.text}`).toBe(404);
  });
});

describe('MCP over HTTP', () => {
  it('GET and DELETE /mcp answer 401 too, before anything else', async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const session = await rawSession(owner.token);
    for (const c of await unauthenticatedCases(owner)) {
      for (const method of ['GET', 'DELETE'] as const) {
        tried.mcp++;
        const headers: Record<string, string> = { accept: MCP_ACCEPT, 'mcp-session-id': session };
        if (c.authorization) headers.authorization = c.authorization;
        const res = await fetch(`${t.baseUrl}/mcp`, { method, headers });
        const text = await res.text();
        expect401({ status: res.status, headers: res.headers, text, body: JSON.parse(text) as Record<string, unknown> }, `${method} /mcp ${c.name}`, c.invalidToken);
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Every route: expired tokens, roles, another team, nested ids

/** The role callers, shared by the routes (each case makes its own records): minted at the role, and lowered to it. */
type RoleCaller = { label: string; role: Role; member: RoleMember; client: Client };
const roleCallers: RoleCaller[] = [];
for (const role of ROLES) {
  const minted = await makeRoleMember(t, (await makeTeam(t, { plan: 'scale' })).teamId, role);
  // An owner's token with every ability, whose member is then lowered to `role`: the ceiling applies at once.
  const lowered = await changeRole(t, await makeRoleMember(t, (await makeTeam(t, { plan: 'scale' })).teamId, 'owner', [...ABILITIES]), role);
  roleCallers.push({ label: `${role}`, role, member: minted, client: await mcpClient(minted.token) });
  roleCallers.push({ label: `owner lowered to ${role}`, role, member: lowered, client: await mcpClient(lowered.token) });
}
afterAll(async () => {
  for (const c of roleCallers) await c.client.close();
});

/** What a role may do on a route: nothing (403, naming the ability when that is what it lacks) or act. */
function roleMay(role: Role, entry: Entry): { may: true } | { may: false; required?: Ability } {
  const ability = entry.meta.ability;
  if (ability && !ROLE_CEILINGS[role].includes(ability)) return { may: false, required: ability };
  const rule = ROLE_RULES[entry.key];
  if (rule && !rule.includes(role)) return { may: false };
  return { may: true };
}

/** Every id a team's records carry, to look for in another team's answers. */
async function teamIds(teamId: string): Promise<string[]> {
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

describe.each(routes.map((e) => [`${e.key} ${e.route.method} ${e.route.path}`, e] as const))('%s', (label, entry) => {
  const tool = toolOfRoute.get(entry.key);

  it('answers 401 to an expired token as to no token and a revoked one', async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const made = await makeRecords(t, owner, entry.params);
    for (const c of await unauthenticatedCases(owner)) {
      for (const accept of acceptsOf(entry)) {
        expect401(await send(entry, made, { authorization: c.authorization, accept }), `${label} ${c.name}${accept ? ` (Accept: ${accept})` : ''}`, c.invalidToken);
      }
      // HEAD runs every GET route too (express): the same 401, headers only.
      if (entry.route.method === 'GET') {
        const head = await rest('HEAD', fillPath(entry.route, made), { authorization: c.authorization, query: sampleQueries[entry.key] });
        expect(head.status, `${label} HEAD ${c.name}`).toBe(401);
        expect(head.headers.get('www-authenticate'), `${label} HEAD ${c.name}`).toMatch(/^Bearer realm="intake"/);
      }
    }
    // A valid token anywhere but the Authorization header does not count.
    const elsewhere = await rest(entry.route.method, fillPath(entry.route, made), { query: { ...sampleQueries[entry.key], access_token: owner.token } });
    expect401(elsewhere, `${label} token in the query string`, false);
  });

  it.each(roleCallers.map((c) => [c.label, c] as const))('as %s with its whole ceiling: 403 where the role may not, else an answer (REST and MCP)', async (who, caller) => {
    const may = roleMay(caller.role, entry);
    for (const accept of acceptsOf(entry)) {
      const as = `${label} as ${who}${accept ? ` (Accept: ${accept})` : ''}`;
      const res = await send(entry, await makeRecords(t, caller.member, entry.params), { token: caller.member.token, accept });
      if (may.may) expectNotRefused(res, as);
      else {
        expectError(res, 403, 'forbidden', as);
        if (may.required) expect(res.body?.required, as).toBe(may.required);
      }
    }
    if (!tool) return;
    const answer = await callTool(caller.client, tool, toolArgs(entry.key, await makeRecords(t, caller.member, entry.params)));
    if (may.may) expectToolNotRefused(answer, `${label} MCP as ${who}`);
    else expectToolError(answer, 'forbidden', `${label} MCP as ${who}`, may.required ? { required: may.required } : {});
  });

  it("answers another team's token 404 for our records (even when its user is also one of our members), and never shows our ids in its own answers (REST and MCP)", async () => {
    const ours = await makeTeam(t, { plan: 'scale' });
    const theirs = await makeRoleMember(t, (await makeTeam(t, { plan: 'scale' })).teamId, 'owner');
    // Their user is a member of our team too: the token still acts only in the team it was minted in.
    await addMember(t.ctx, { email: theirs.email, name: 'Both teams', teamId: ours.teamId, role: 'viewer' });
    // Our team holds one of everything, so lists and counts have something to leak.
    await makeRecords(t, ours, Object.keys(recordFactories));
    const ourRecords = await makeRecords(t, ours, entry.params);
    const client = await mcpClient(theirs.token);
    try {
      if (entry.params.length > 0) {
        for (const accept of acceptsOf(entry)) {
          expectError(await send(entry, ourRecords, { token: theirs.token, accept }), 404, 'not_found', `${label} another team's token${accept ? ` (Accept: ${accept})` : ''}`);
        }
        if (tool) expectToolError(await callTool(client, tool, toolArgs(entry.key, ourRecords)), 'not_found', `${label} MCP another team's token`);
      }
      const ourIds = await teamIds(ours.teamId);
      const own = await send(entry, await makeRecords(t, theirs, entry.params), { token: theirs.token });
      expectNotRefused(own, `${label} their own records`);
      for (const id of ourIds) expect(own.text, `${label}: their answer shows our ${id}`).not.toContain(id);
      if (tool) {
        const answer = await callTool(client, tool, toolArgs(entry.key, await makeRecords(t, theirs, entry.params)));
        expectToolNotRefused(answer, `${label} MCP their own records`);
        const text = answer.ok ? answer.text : JSON.stringify(answer.error);
        for (const id of ourIds) expect(text, `${label} MCP: their answer shows our ${id}`).not.toContain(id);
      }
    } finally {
      await client.close();
    }
  });

  // Every way to graft the tail of one chain of records onto the head of another in the same team: `split`
  // is the first parameter taken from the other chain, `shared` how many leading records both chains share.
  const grafts = entry.params.flatMap((_, split) => Array.from({ length: split }, (__, shared) => ({ split, shared }))).filter((g) => g.split > 0);

  if (grafts.length) it.each(grafts.map((g) => [entry.params.slice(g.split).join(', '), g.shared, g] as const))(
    'answers 404 to ids nested under the wrong parent in one team (%s of another chain sharing %i record(s))',
    async (_tail, _shared, { split, shared }) => {
      const owner = await makeTeam(t, { plan: 'scale' });
      const a = await makeRecords(t, owner, entry.params);
      const b = await makeRecords(t, owner, entry.params, Object.fromEntries(entry.params.slice(0, shared).map((p) => [p, a[p]!])));
      const grafted = Object.fromEntries(entry.params.map((p, i) => [p, i < split ? a[p]! : b[p]!]));
      const what = entry.params.map((p) => `${p}=${grafted[p] === a[p] ? 'A' : 'B'}`).join(' ');
      for (const accept of acceptsOf(entry)) {
        expectError(await send(entry, grafted, { token: owner.token, accept }), 404, 'not_found', `${label} ${what}${accept ? ` (Accept: ${accept})` : ''}`);
      }
      if (tool) {
        const client = await mcpClient(owner.token);
        try {
          expectToolError(await callTool(client, tool, toolArgs(entry.key, grafted)), 'not_found', `${label} MCP ${what}`);
        } finally {
          await client.close();
        }
      }
      // Control: B's records are real and intact, and its own path reaches them.
      expectNotRefused(await send(entry, b, { token: owner.token }), `${label} B's own path`);
    },
  );
});

// ---------------------------------------------------------------------------------------------------
// Ids inside queries and bodies

const ID_PREFIX = /`([a-z]+)_…`/;

/** Query and body fields that carry record ids: named `ids` / `…_id(s)`, or described as an id (`frm_…`). */
function idFields(entry: Entry): string[] {
  const parts: Array<['query' | 'body', unknown]> = [
    ['query', entry.route.query],
    ['body', 'body' in entry.route ? entry.route.body : undefined],
  ];
  return parts.flatMap(([part, schema]) =>
    Object.entries(objectShape(schema))
      .filter(([name, field]) => name === 'ids' || /_ids?$/.test(name) || ID_PREFIX.test(field.description ?? unwrapSchema(field).description ?? ''))
      .map(([name]) => `${entry.key}.${part}.${name}`),
  );
}

/** One case per id field of the contract; the test below fails when a field appears that has none. */
const idFieldCases: Record<string, () => Promise<void>> = {
  'bulkSubmissions.body.ids': async () => {
    for (const action of ['delete', 'mark_spam', 'mark_not_spam'] as const) {
      for (const via of ['REST', 'MCP'] as const) {
        const before = action === 'mark_not_spam' ? 'spam' : 'received';
        const owner = await makeTeam(t, { plan: 'scale' });
        const other = await makeTeam(t, { plan: 'scale' });
        const form = await insertForm(t, owner.teamId);
        const mine = await insertSubmission(t, owner.teamId, form, before);
        const otherForm = await insertSubmission(t, owner.teamId, await insertForm(t, owner.teamId), before);
        const otherTeamForm = await insertForm(t, other.teamId);
        const otherTeam = await insertSubmission(t, other.teamId, otherTeamForm, before);
        const unknown = 'subm_00000000000000000000000000';
        const body = { ids: [mine, otherForm, otherTeam, unknown], action };
        const label = `bulk ${action} via ${via}`;

        let result: Record<string, unknown>;
        if (via === 'REST') {
          const res = await rest('POST', `/v1/forms/${form}/submissions/bulk`, { token: owner.token, body });
          expect(res.status, `${label}: ${res.text}`).toBe(200);
          result = res.body!;
        } else {
          const client = await mcpClient(owner.token);
          const answer = await callTool(client, 'bulk_submissions', { form, ...body });
          await client.close();
          expect(answer.ok, `${label}: ${JSON.stringify(answer)}`).toBe(true);
          result = JSON.parse(answer.ok ? answer.text.split('\n').pop()! : '{}') as Record<string, unknown>;
        }
        // The spec: `skipped` lists the ids the caller may not act on (another team's, another form's, unknown).
        expect(result, label).toMatchObject({ ok: true, affected: 1 });
        expect([...(result.skipped as string[])].sort(), label).toEqual([otherForm, otherTeam, unknown].sort());

        const { rows } = await t.ctx.db.query<{ id: string; status: string }>('select id, status from submissions where id = any($1)', [[mine, otherForm, otherTeam]]);
        const status = Object.fromEntries(rows.map((r) => [r.id, r.status]));
        expect(status[otherForm], `${label}: another form's submission untouched`).toBe(before);
        expect(status[otherTeam], `${label}: another team's submission untouched`).toBe(before);
        expect(status[mine], `${label}: the form's own submission acted on`).toBe(action === 'delete' ? undefined : action === 'mark_spam' ? 'spam' : 'received');

        // Only foreign ids: nothing happens, all are skipped.
        const foreign = { ids: [otherTeam], action };
        const res = await rest('POST', `/v1/forms/${form}/submissions/bulk`, { token: owner.token, body: foreign });
        expect(res.status, res.text).toBe(200);
        expect(res.body, `${label} only another team's ids`).toEqual({ ok: true, affected: 0, skipped: [otherTeam] });
        const after = await t.ctx.db.query<{ status: string }>('select status from submissions where id = $1', [otherTeam]);
        expect(after.rows[0]?.status, label).toBe(before);
      }
    }
  },

  'getAiInsights.query.form': async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const other = await makeTeam(t, { plan: 'scale' });
    const theirs = await insertForm(t, other.teamId);
    expectError(await rest('GET', '/v1/ai-insights', { token: owner.token, query: { form: theirs } }), 404, 'not_found', "insights of another team's form");
    const client = await mcpClient(owner.token);
    try {
      expectToolError(await callTool(client, 'get_ai_insights', { form: theirs }), 'not_found', "MCP insights of another team's form");
    } finally {
      await client.close();
    }
    // Control: our own form answers.
    const ours = await insertForm(t, owner.teamId);
    expectNotRefused(await rest('GET', '/v1/ai-insights', { token: owner.token, query: { form: ours } }), 'insights of our form');
  },

  // An event id names its form (and a position in time): another team's cannot resume our stream into theirs.
  'streamSubmissions.query.last_event_id': async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const other = await makeTeam(t, { plan: 'scale' });
    const theirForm = await insertForm(t, other.teamId);
    const poll = await rest('GET', `/v1/forms/${theirForm}/submissions/stream`, { token: other.token });
    expect(poll.status, poll.text).toBe(200);
    const theirEventId = (poll.body!.meta as { last_event_id: string }).last_event_id;
    // Processed after the id was handed out: an event (processing marks it so, in its transaction).
    const event = await insertSubmission(t, other.teamId, theirForm, 'processed');
    await t.ctx.db.query('update submissions set stream_xid = pg_current_xact_id() where id = $1', [event]);

    const ourForm = await insertForm(t, owner.teamId);
    const path = `/v1/forms/${ourForm}/submissions/stream`;
    const viaQuery = await rest('GET', path, { token: owner.token, query: { last_event_id: theirEventId } });
    expectError(viaQuery, 400, 'validation_failed', "another team's event id on our form");
    expectError(await rest('GET', `/v1/forms/${theirForm}/submissions/stream`, { token: owner.token, query: { last_event_id: theirEventId } }), 404, 'not_found', "another team's form with its event id");
    // Control: the id resumes their own stream, and the submission after it is there.
    const theirs = await rest('GET', `/v1/forms/${theirForm}/submissions/stream`, { token: other.token, query: { last_event_id: theirEventId } });
    expect(theirs.status, theirs.text).toBe(200);
    expect((theirs.body!.data as unknown[]).length, 'their own resume finds their submission').toBe(1);
  },

  'listDeliveries.query.submission_id': async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const other = await makeTeam(t, { plan: 'scale' });
    const form = await insertForm(t, owner.teamId);
    const webhook = await insertWebhook(t, owner.teamId, form);
    await insertDelivery(t, owner.teamId, webhook);
    // Another team's delivery and its submission: filtering our webhook by it finds nothing of theirs.
    const theirDelivery = await insertDelivery(t, other.teamId, await insertWebhook(t, other.teamId, await insertForm(t, other.teamId)));
    const { rows } = await t.ctx.db.query<{ submission_id: string }>('select submission_id from deliveries where id = $1', [theirDelivery]);
    const theirSubmission = rows[0]!.submission_id;
    const path = `/v1/forms/${form}/webhooks/${webhook}/deliveries`;
    const res = await rest('GET', path, { token: owner.token, query: { submission_id: theirSubmission } });
    expect(res.status, res.text).toBe(200);
    expect(res.body?.data, "deliveries filtered by another team's submission").toEqual([]);
    const client = await mcpClient(owner.token);
    try {
      const answer = await callTool(client, 'list_deliveries', { form, webhook, submission_id: theirSubmission });
      expect(answer.ok, JSON.stringify(answer)).toBe(true);
      expect(answer.ok && answer.text, 'MCP').not.toContain(theirDelivery);
      expect(JSON.parse(answer.ok ? answer.text : '{}'), 'MCP').toMatchObject({ data: [] });
    } finally {
      await client.close();
    }
  },
};

describe('ids inside queries and bodies', () => {
  const found = routes.flatMap(idFields);

  it('every id field of the contract has a case here', () => {
    expect(found.length).toBeGreaterThan(0);
    expect(found.sort(), 'add a case for each new id field to idFieldCases in test/authorization.test.ts').toEqual(Object.keys(idFieldCases).sort());
  });

  it.each(found.filter((f) => idFieldCases[f]))("%s: another team's (or another form's) record is not found or not touched", async (field) => {
    await idFieldCases[field]!();
  });
});

// ---------------------------------------------------------------------------------------------------
// Tokens: a role mints within its ceiling, a member manages only its own family (spec, Authentication 4, 5, 8)

describe('tokens by role and member', () => {
  it.each(ROLES)('a %s mints its whole ceiling and nothing beyond it (REST and MCP)', async (role) => {
    const member = await makeRoleMember(t, (await makeTeam(t, { plan: 'scale' })).teamId, role);
    const client = await mcpClient(member.token);
    try {
      const ceiling = [...ROLE_CEILINGS[role]];
      const minted = await rest('POST', '/v1/tokens', { token: member.token, body: { name: 'ceiling', abilities: ceiling } });
      expect(minted.status, minted.text).toBe(201);
      expect([...((minted.body!.data as { abilities: string[] }).abilities)].sort()).toEqual([...ceiling].sort());
      const viaTool = await callTool(client, 'create_token', { name: 'ceiling', abilities: ceiling });
      expect(viaTool.ok, JSON.stringify(viaTool)).toBe(true);

      for (const beyond of ABILITIES.filter((a) => !ROLE_CEILINGS[role].includes(a))) {
        const label = `${role} asking for ${beyond}`;
        const res = await rest('POST', '/v1/tokens', { token: member.token, body: { name: 'beyond', abilities: ['forms:read', beyond] } });
        expectError(res, 403, 'ability_exceeds_caller', label);
        expect(res.body!.exceeded, label).toEqual([beyond]);
        expectToolError(await callTool(client, 'create_token', { name: 'beyond', abilities: ['forms:read', beyond] }), 'ability_exceeds_caller', `MCP ${label}`, { exceeded: [beyond] });
      }
      const { rows } = await t.ctx.db.query<{ n: number }>(`select count(*)::int as n from api_tokens where user_id = $1 and name = 'beyond'`, [member.userId]);
      expect(rows[0]!.n, 'no token minted beyond the role').toBe(0);
    } finally {
      await client.close();
    }
  });

  it("a member neither lists nor revokes another member's tokens, nor the token it calls with (REST and MCP)", async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const colleague = await makeRoleMember(t, owner.teamId, 'admin');
    const theirs = await makeToken(t, colleague, ['forms:read']);
    const client = await mcpClient(owner.token);
    try {
      const listed = await rest('GET', '/v1/tokens', { token: owner.token });
      expect(listed.status, listed.text).toBe(200);
      expect(listed.text).not.toContain(colleague.tokenId);
      expect(listed.text).not.toContain(theirs.tokenId);
      const toolList = await callTool(client, 'list_tokens', {});
      expect(toolList.ok && !toolList.text.includes(theirs.tokenId), JSON.stringify(toolList)).toBe(true);

      expectError(await rest('DELETE', `/v1/tokens/${theirs.tokenId}`, { token: owner.token }), 403, 'forbidden', "another member's token");
      expectToolError(await callTool(client, 'revoke_token', { token: theirs.tokenId }), 'forbidden', "MCP another member's token");
      expectError(await rest('DELETE', `/v1/tokens/${owner.tokenId}`, { token: owner.token }), 403, 'cannot_revoke_active_token', 'the calling token');
      expectToolError(await callTool(client, 'revoke_token', { token: owner.tokenId }), 'cannot_revoke_active_token', 'MCP the calling token');
      // Both still work.
      expect((await rest('GET', '/v1/me', { token: theirs.token })).status).toBe(200);
      expect((await rest('GET', '/v1/me', { token: owner.token })).status).toBe(200);
    } finally {
      await client.close();
    }
  });

  it("a user's token in one team does not reach the same user's tokens in another team (404, REST and MCP)", async () => {
    const here = await makeRoleMember(t, (await makeTeam(t, { plan: 'scale' })).teamId, 'owner');
    const elsewhereTeam = (await makeTeam(t, { plan: 'scale' })).teamId;
    await addMember(t.ctx, { email: here.email, name: 'Both teams', teamId: elsewhereTeam, role: 'owner' });
    const elsewhere = await makeToken(t, { ...here, teamId: elsewhereTeam }, ['forms:read']);
    const client = await mcpClient(here.token);
    try {
      const listed = await rest('GET', '/v1/tokens', { token: here.token });
      expect(listed.status, listed.text).toBe(200);
      expect(listed.text, "the other team's token is not listed").not.toContain(elsewhere.tokenId);
      expectError(await rest('DELETE', `/v1/tokens/${elsewhere.tokenId}`, { token: here.token }), 404, 'not_found', "the same user's token in another team");
      expectToolError(await callTool(client, 'revoke_token', { token: elsewhere.tokenId }), 'not_found', "MCP the same user's token in another team");
      const me = await rest('GET', '/v1/me', { token: elsewhere.token });
      expect(me.status, "the other team's token still works").toBe(200);
      expect((me.body!.data as { team: { id: string } }).team.id).toBe(elsewhereTeam);
    } finally {
      await client.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// A live MCP session sees role changes and removals at its next call

describe('MCP sessions follow the member', () => {
  it('a role lowered during a session narrows every tool at once; a removal ends the session (401)', async () => {
    const team = await makeTeam(t, { plan: 'scale' });
    let member = await makeRoleMember(t, team.teamId, 'admin');
    const client = await mcpClient(member.token);
    try {
      const outside = listedTools.filter((tool) => {
        const ability = routeOfTool.get(tool.name)!.meta.ability;
        return ability !== null && !ROLE_CEILINGS.viewer.includes(ability);
      });
      expect(outside.length).toBeGreaterThan(0);
      member = await changeRole(t, member, 'viewer');
      for (const tool of outside) {
        const entry = routeOfTool.get(tool.name)!;
        const args = toolArgs(entry.key, Object.fromEntries(entry.params.map((p) => [p, `${p}_00000000000000000000000000`])));
        expectToolError(await callTool(client, tool.name, args), 'forbidden', `${tool.name} after lowering to viewer`, { required: entry.meta.ability });
      }
      await removeMember(t.ctx, { teamId: team.teamId, userId: member.userId });
      tried.mcp++;
      await expect(client.callTool({ name: 'get_me', arguments: {} }), 'a removed member').rejects.toThrow(/401|unauthenticated|invalid or has been revoked/i);
    } finally {
      await client.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Jobs made through the API

describe('jobs', () => {
  it("a job of another team is not found, its own team's is found (REST and MCP)", async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const other = await makeTeam(t, { plan: 'scale' });
    const webhook = await insertWebhook(t, owner.teamId, await insertForm(t, owner.teamId));
    const replay = await rest('POST', `/v1/webhooks/${webhook}/replay`, { token: owner.token, body: { status: 'dead' } });
    expect(replay.status, replay.text).toBe(202);
    // A real run (a dry run answers at once and makes no job).
    const erasure = await rest('POST', '/v1/erasure', { token: owner.token, body: { email: 'nobody@example.test' } });
    expect(erasure.status, erasure.text).toBe(202);
    const client = await mcpClient(other.token);
    try {
      for (const job of [replay.body!.job_id as string, erasure.body!.job_id as string]) {
        expectError(await rest('GET', `/v1/jobs/${job}`, { token: other.token }), 404, 'not_found', `another team's job ${job}`);
        expectToolError(await callTool(client, 'get_job', { job_id: job }), 'not_found', `MCP another team's job ${job}`);
        expect((await rest('GET', `/v1/jobs/${job}`, { token: owner.token })).status, 'its own team').toBe(200);
      }
      const receipt = erasure.body!.erasure_id as string;
      expectError(await rest('GET', `/v1/erasure/${receipt}`, { token: other.token }), 404, 'not_found', "another team's erasure receipt");
      expectToolError(await callTool(client, 'get_erasure', { erasure: receipt }), 'not_found', "MCP another team's erasure receipt");
    } finally {
      await client.close();
    }
  });

  // The jobs are run here by the functions the worker calls (this app has no worker on the shared database).
  it("a webhook replay and an erasure started by one team touch nothing of another team's", async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const other = await makeTeam(t, { plan: 'scale' });
    const ourForm = await insertForm(t, owner.teamId);
    const theirForm = await insertForm(t, other.teamId);
    const ourHook = await insertWebhook(t, owner.teamId, ourForm);
    const theirHook = await insertWebhook(t, other.teamId, theirForm);
    // Dead deliveries on both sides; their submissions, like every one insertSubmission makes, are from a@example.test.
    const ourDead = await insertDelivery(t, owner.teamId, ourHook);
    await insertDelivery(t, other.teamId, theirHook);
    await insertSubmission(t, owner.teamId, ourForm);
    await insertSubmission(t, other.teamId, theirForm);

    const replay = await rest('POST', `/v1/webhooks/${ourHook}/replay`, { token: owner.token, body: { status: 'dead' } });
    expect(replay.status, replay.text).toBe(202);
    await runReplayJob(t.ctx, replay.body!.job_id as string);
    const replays = await t.ctx.db.query<{ replay_of: string; team_id: string; webhook_id: string }>(
      'select replay_of, team_id, webhook_id from deliveries where replay_job_id = $1',
      [replay.body!.job_id],
    );
    expect(replays.rows, 'the replay job sent our dead delivery again, in our team and webhook').toEqual([{ replay_of: ourDead, team_id: owner.teamId, webhook_id: ourHook }]);
    const theirDeliveries = await t.ctx.db.query<{ n: number }>('select count(*)::int as n from deliveries where webhook_id = $1', [theirHook]);
    expect(theirDeliveries.rows[0]!.n, 'no delivery added to their webhook').toBe(1);

    const countOf = async (teamId: string) =>
      (await t.ctx.db.query<{ n: number }>('select count(*)::int as n from submissions where team_id = $1', [teamId])).rows[0]!.n;
    expect(await countOf(other.teamId)).toBe(2);
    const erasure = await rest('POST', '/v1/erasure', { token: owner.token, body: { email: 'a@example.test' } });
    expect(erasure.status, erasure.text).toBe(202);
    await runErasure(t.ctx, erasure.body!.erasure_id as string);
    expect(await countOf(owner.teamId), 'the erasure took our submissions').toBe(0);
    expect(await countOf(other.teamId), "and none of theirs from the same person").toBe(2);
    const receipt = await rest('GET', `/v1/erasure/${erasure.body!.erasure_id as string}`, { token: owner.token });
    expect((receipt.body!.data as { erased: { forms: object } }).erased.forms).toEqual({ [ourForm]: 2 });
  });
});

// ---------------------------------------------------------------------------------------------------
// MCP resources

/** Fills a resource template's `{name}` variables with records of `member`'s team. */
async function fillTemplate(template: string, member: TestMember): Promise<string> {
  const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const made = await makeRecords(t, member, names);
  return template.replace(/\{(\w+)\}/g, (_, name: string) => made[name]!);
}

async function readResource(client: Client, uri: string): Promise<{ ok: true; text: string } | { ok: false; message: string }> {
  tried.mcp++;
  try {
    const result = await client.readResource({ uri });
    return { ok: true, text: result.contents.map((c) => ('text' in c ? c.text : '')).join('\n') };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

/** The ability behind each resource (the route it reads through, or its own check); a new resource needs a line here. */
const RESOURCE_ABILITIES: Record<string, Ability> = {
  forms: 'forms:read',
  form: 'forms:read',
  'recent-submissions': 'submissions:read',
  submission: 'submissions:read',
  'form-stats': 'submissions:read',
  insights: 'insights:read',
  usage: 'billing:read',
};

describe('MCP resources', () => {
  const uris = [...listedResources.map((r) => r.uri), ...listedTemplates.map((r) => r.uriTemplate)];

  it('the server lists resources', () => {
    expect(uris.length).toBeGreaterThan(0);
  });

  const named = [...listedResources.map((r) => ({ name: r.name, uri: r.uri })), ...listedTemplates.map((r) => ({ name: r.name, uri: r.uriTemplate }))];

  it('every listed resource has its ability in RESOURCE_ABILITIES', () => {
    expect(named.map((r) => r.name).sort()).toEqual(Object.keys(RESOURCE_ABILITIES).sort());
  });

  it.each(named.map((r) => [r.uri, r] as const))('%s: each role reads it when its ceiling holds the ability; a token lacking only that ability is refused', async (_uri, { name, uri }) => {
    const ability = RESOURCE_ABILITIES[name]!;
    const team = await makeTeam(t, { plan: 'scale' });
    const target = await fillTemplate(uri, team);
    const allBut = await makeToken(t, team, ABILITIES.filter((a) => a !== ability));
    const lacking = await mcpClient(allBut.token);
    try {
      const refused = await readResource(lacking, target);
      expect(refused.ok, `${uri} lacking ${ability}`).toBe(false);
      if (!refused.ok) expect(refused.message, uri).toMatch(/forbidden/);
    } finally {
      await lacking.close();
    }
    for (const role of ROLES) {
      const member = await makeRoleMember(t, team.teamId, role);
      const client = await mcpClient(member.token);
      try {
        const read = await readResource(client, target);
        if (ROLE_CEILINGS[role].includes(ability)) expect(read.ok, `${uri} as ${role}: ${JSON.stringify(read)}`).toBe(true);
        else {
          expect(read.ok, `${uri} as ${role}`).toBe(false);
          if (!read.ok) expect(read.message, `${uri} as ${role}`).toMatch(/forbidden/);
        }
      } finally {
        await client.close();
      }
    }
  });

  it.each(uris)('%s: a token without the abilities is refused, another team reads nothing of ours, its own team reads it', async (uri) => {
    const owner = await makeTeam(t, { plan: 'scale' });
    // tokens:read is needed by no resource.
    const bare = await makeToken(t, owner, ['tokens:read']);
    const other = await makeTeam(t, { plan: 'scale' });
    await makeRecords(t, owner, Object.keys(recordFactories));
    const ours = await fillTemplate(uri, owner);
    const ourIds = await teamIds(owner.teamId);

    const bareClient = await mcpClient(bare.token);
    const otherClient = await mcpClient(other.token);
    const ownClient = await mcpClient(owner.token);
    try {
      const refused = await readResource(bareClient, ours);
      expect(refused.ok, `${uri} without abilities`).toBe(false);
      if (!refused.ok) expect(refused.message, uri).toMatch(/forbidden/);

      const own = await readResource(ownClient, ours);
      expect(own.ok, `${uri} own team: ${JSON.stringify(own)}`).toBe(true);

      const theirs = await readResource(otherClient, ours);
      if (uri.includes('{')) {
        expect(theirs.ok, `${uri} another team`).toBe(false);
        if (!theirs.ok) expect(theirs.message, uri).toMatch(/not_found/);
      } else {
        // A fixed URI reads the caller's own team.
        expect(theirs.ok, `${uri} another team: ${JSON.stringify(theirs)}`).toBe(true);
      }
      const text = theirs.ok ? theirs.text : theirs.message;
      for (const id of ourIds.filter((i) => !ours.includes(i))) expect(text, `${uri}: another team sees our ${id}`).not.toContain(id);
    } finally {
      await Promise.all([bareClient.close(), otherClient.close(), ownClient.close()]);
    }
  });
});
