import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isAppRoute, isZodType, type AppRoute, type AppRouter } from '@ts-rest/core';
import type { Response } from 'supertest';
import { describe, expect, it } from 'vitest';
import { ABILITIES, contract, isAbility, type RouteMetadata } from '../../contract/index.ts';
import { newId } from '../../server/domain/shared/ids.ts';
import { ROUTES_WITHOUT_TOOL, toolName } from '../../server/transports/mcp/tools.ts';
import { encryptSecret, generateSecret } from '../../server/infra/outbound/signing.ts';
import { bearer, makeTeam, makeToken, type TestApp, type TestMember } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';

/**
 * The one security table (STYLE.md §9), driven by the contract itself so a route added later is covered
 * without touching this file — except to teach it how to make a record for a new kind of path parameter.
 * Each route is checked over REST and as its MCP tool (a real MCP client over /mcp).
 */

const t = await startLiveTestApp();

/** Calls a route's MCP tool as `token`; the API error body of a failed call (its last text block), or null. */
async function mcpError(
  token: string,
  key: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown> | null> {
  const client = new Client({ name: 'security-table', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { requestInit: { headers: bearer(token) } }),
  );
  try {
    const result = (await client.callTool({ name: toolName(key), arguments: args })) as CallToolResult;
    if (!result.isError) return null;
    return JSON.parse((result.content[result.content.length - 1] as { text: string }).text) as Record<string, unknown>;
  } finally {
    await client.close();
  }
}

const toolArgs = (key: string, made: Record<string, string>) => ({
  ...(sampleQueries[key] ?? {}),
  ...((sampleBodies[key] as Record<string, unknown> | undefined) ?? {}),
  ...made,
});

type Entry = { key: string; route: AppRoute };

function routesOf(router: AppRouter, prefix = ''): Entry[] {
  return Object.entries(router).flatMap(([key, value]) =>
    isAppRoute(value) ? [{ key: prefix + key, route: value }] : routesOf(value, `${prefix}${key}.`),
  );
}

const routes = routesOf(contract);

function pathParams(route: AppRoute): string[] {
  return [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
}

function fillPath(route: AppRoute, values: Record<string, string>): string {
  return route.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) =>
    encodeURIComponent(values[name] ?? `${name}_00000000000000000000000000`),
  );
}

/**
 * How to make a record in another team for each path parameter name. `made` holds the records already
 * made for the parameters to its left, so nested paths (`/forms/:form/webhooks/:webhook`) can build
 * children of their parent. A route whose parameter has no factory fails below.
 */
type Factory = (app: TestApp, other: TestMember, made: Record<string, string>) => Promise<string>;

async function otherForm(app: TestApp, other: TestMember): Promise<string> {
  const id = newId('frm');
  // Published: the server-side submit, like the public endpoint, takes posts for published forms only.
  await app.ctx.db.query(
    `insert into forms (id, team_id, name, status) values ($1, $2, 'Other team form', 'published')`,
    [id, other.teamId],
  );
  await app.ctx.db.query('insert into form_teams (form_id, team_id) values ($1, $2)', [id, other.teamId]);
  return id;
}

async function otherWebhook(app: TestApp, other: TestMember, formId: string): Promise<string> {
  const id = newId('wh');
  await app.ctx.db.query(
    `insert into webhooks (id, team_id, form_id, label, url, provider, secret_encrypted, secret_hash, secret_last4)
     values ($1, $2, $3, 'Other team hook', 'https://example.com/hook', 'webhook', $4, 'x', 'abcd')`,
    // A real encrypted secret: the team's own call of a route that signs (the test call) must answer, not 500.
    [id, other.teamId, formId, encryptSecret(app.ctx.keys.webhookSecrets, generateSecret())],
  );
  return id;
}

async function otherDelivery(app: TestApp, other: TestMember, webhookId: string): Promise<string> {
  const id = newId('whd');
  await app.ctx.db.query(
    `insert into deliveries (id, team_id, webhook_id, event, submission_id, request_body, status, attempts)
     values ($1, $2, $3, 'submission.created', $4, '{"type":"submission.created"}', 'dead', 7)`,
    [id, other.teamId, webhookId, newId('subm')],
  );
  return id;
}

const factories: Record<string, Factory> = {
  token: async (app, other) => (await makeToken(app, other, ['forms:read'])).tokenId,
  form: otherForm,
  submission: async (app, other, made) => {
    const id = newId('subm');
    await app.ctx.db.query(
      `insert into submissions (id, team_id, form_id, status, payload) values ($1, $2, $3, 'received', '{"email":"a@example.test"}'::jsonb)`,
      [id, other.teamId, made.form],
    );
    return id;
  },
  file: async (app, other, made) => {
    const id = newId('file');
    await app.ctx.db.query(
      `insert into submission_files (id, team_id, form_id, submission_id, field, filename, content_type, size_bytes, storage_key)
       values ($1, $2, $3, $4, 'upload', 'a.txt', 'text/plain', 1, $5)`,
      [id, other.teamId, made.form, made.submission, `security/${id}`],
    );
    return id;
  },
  note: async (app, other, made) => {
    const id = newId('note');
    await app.ctx.db.query(
      `insert into submission_notes (id, team_id, submission_id, author_user_id, body) values ($1, $2, $3, $4, 'note')`,
      [id, other.teamId, made.submission, other.userId],
    );
    return id;
  },
  rule: async (app, other, made) => {
    const id = newId('rule');
    await app.ctx.db.query(
      `insert into form_rules (id, team_id, form_id, position, name, enabled, on_event, "when", actions, stop, fallback)
       values ($1, $2, $3, 1, 'Rule', true, 'submission.created', '{"all":[]}', '[{"type":"tag","add":["x"]}]', false, false)`,
      [id, other.teamId, made.form],
    );
    return id;
  },
  webhook: (app, other, made) => otherWebhook(app, other, made.form!),
  webhook_id: async (app, other) => otherWebhook(app, other, await otherForm(app, other)),
  delivery: (app, other, made) => otherDelivery(app, other, made.webhook!),
  delivery_id: async (app, other) =>
    otherDelivery(app, other, await otherWebhook(app, other, await otherForm(app, other))),
  job_id: async (app, other) => {
    const id = newId('job');
    await app.ctx.db.query(`insert into jobs (id, team_id, type) values ($1, $2, 'webhook_replay')`, [
      id,
      other.teamId,
    ]);
    return id;
  },
  erasure: async (app, other) => {
    const id = newId('era');
    await app.ctx.db.query(
      `insert into erasure_requests (id, team_id, job_id, kind, dry_run) values ($1, $2, $3, 'email', true)`,
      [id, other.teamId, newId('job')],
    );
    return id;
  },
};

/** Valid bodies / queries for routes whose schema does not accept an empty one, keyed by route key. */
const sampleBodies: Record<string, unknown> = {
  createToken: { name: 'security table', abilities: ['forms:read'] },
  createForm: { name: 'security table' },
  bulkSubmissions: { ids: ['subm_00000000000000000000000000'], action: 'mark_spam' },
  createSubmission: { fields: { message: 'security table' } },
  createSubmissionNote: { body: 'security table' },
  createRule: { name: 'security table', actions: [{ type: 'skip_autoresponder' }] },
  orderRules: { ids: [] },
  testRules: { payload: { message: 'security table' } },
  createWebhook: { label: 'security table', url: 'https://example.com/hook' },
  previewWebhook: { payload: { message: 'security table' } },
  createErasure: { email: 'nobody@example.test', dry_run: true },
};
const sampleQueries: Record<string, Record<string, string>> = {};

function send(app: TestApp, entry: Entry, path: string, token?: string) {
  const method = entry.route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
  let req = app.http[method](path);
  if (token) req = req.set(bearer(token));
  const q = sampleQueries[entry.key];
  if (q) req = req.query(q);
  if ('body' in entry.route && isZodType(entry.route.body)) {
    req = req.send((sampleBodies[entry.key] ?? {}) as object);
  }
  return req;
}

function expectError(res: Response, status: number, error: string, label: string) {
  expect(res.status, `${label}: ${res.text}`).toBe(status);
  expect(res.headers['content-type'], label).toMatch(/^application\/json/);
  expect(res.body, label).toMatchObject({ error, message: expect.any(String) });
  expect(res.body.message.length, label).toBeGreaterThan(0);
  expect(res.headers['x-request-id'], label).toMatch(/^[\w.-]{1,128}$/);
  // No internals in error bodies.
  expect(res.text, label).not.toMatch(/\bat .+\.ts:\d+|select |insert |stack/i);
}

it('the contract has routes and every one declares its ability', () => {
  expect(routes.length).toBeGreaterThanOrEqual(9);
  for (const { key, route } of routes) {
    const meta = route.metadata as RouteMetadata | undefined;
    expect(meta, `${key} has no metadata`).toBeDefined();
    expect(meta && 'ability' in meta, `${key} has no metadata.ability`).toBe(true);
    if (meta?.ability !== null)
      expect(isAbility(String(meta?.ability)), `${key}: unknown ability ${meta?.ability}`).toBe(true);
  }
});

describe.each(routes.map((e) => [`${e.key} ${e.route.method} ${e.route.path}`, e] as const))('%s', (label, entry) => {
  const meta = entry.route.metadata as RouteMetadata;
  const params = pathParams(entry.route);
  // Routes that are no MCP tool (the submission event stream) are checked over REST only.
  const hasTool = !ROUTES_WITHOUT_TOOL.has(entry.key);

  it('answers 401 without a token, with a malformed header, a bad token or a revoked one', async () => {
    const path = fillPath(entry.route, {});
    expectError(await send(t, entry, path), 401, 'unauthenticated', `${label} no token`);

    const basic = await send(t, entry, path).set('Authorization', 'Basic dXNlcjpwYXNz');
    expectError(basic, 401, 'unauthenticated', `${label} basic auth`);
    expectError(await send(t, entry, path, `intk_${'A'.repeat(40)}`), 401, 'unauthenticated', `${label} unknown token`);

    const owner = await makeTeam(t, { plan: 'scale' });
    const doomed = await makeToken(t, owner);
    await t.ctx.db.query('update api_tokens set revoked_at = now() where id = $1', [doomed.tokenId]);
    const revoked = await send(t, entry, path, doomed.token);
    expectError(revoked, 401, 'unauthenticated', `${label} revoked token`);
    expect(revoked.headers['www-authenticate'], label).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it('answers 401 without a token whatever the body holds (auth comes before body errors)', async () => {
    const path = fillPath(entry.route, {});
    const method = entry.route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    const malformed = await t.http[method](path).set('Content-Type', 'application/json').send('{"oops":');
    expectError(malformed, 401, 'unauthenticated', `${label} no token, malformed JSON`);
    const wrongType = await t.http[method](path).set('Content-Type', 'text/plain').send('hello');
    expectError(wrongType, 401, 'unauthenticated', `${label} no token, text/plain body`);
    expect(wrongType.headers['www-authenticate'], label).toMatch(/^Bearer realm=/);
  });

  it.skipIf(meta.ability === null)(
    'answers 403 to a token holding every ability but the one it needs (REST and MCP)',
    async () => {
      const owner = await makeTeam(t, { plan: 'scale' });
      const allBut = await makeToken(
        t,
        owner,
        ABILITIES.filter((a) => a !== meta.ability),
      );
      expectError(
        await send(t, entry, fillPath(entry.route, {}), allBut.token),
        403,
        'forbidden',
        `${label} lacking ${meta.ability}`,
      );
      const ids = Object.fromEntries(params.map((p) => [p, `${p}_00000000000000000000000000`]));
      if (hasTool)
        expect(await mcpError(allBut.token, entry.key, toolArgs(entry.key, ids)), `${label} MCP`).toMatchObject({
          error: 'forbidden',
          required: meta.ability,
        });
    },
  );

  it.skipIf(params.length === 0)("answers 404 for another team's record", async () => {
    const missing = params.filter((p) => !factories[p]);
    expect(
      missing,
      `${label}: add a factory for path parameter(s) ${missing.join(', ')} to test/contract/security.test.ts`,
    ).toEqual([]);
    if ('body' in entry.route && isZodType(entry.route.body) && !entry.route.body.safeParse({}).success) {
      expect(
        sampleBodies[entry.key],
        `${label}: add a valid sample body to test/contract/security.test.ts`,
      ).toBeDefined();
    }
    if (isZodType(entry.route.query) && !entry.route.query.safeParse({}).success) {
      expect(
        sampleQueries[entry.key],
        `${label}: add a valid sample query to test/contract/security.test.ts`,
      ).toBeDefined();
    }

    const mine = await makeTeam(t, { plan: 'scale' });
    const other = await makeTeam(t, { plan: 'scale' });
    const made: Record<string, string> = {};
    for (const p of params) made[p] = await factories[p]!(t, other, made);
    const path = fillPath(entry.route, made);

    expectError(await send(t, entry, path, mine.token), 404, 'not_found', `${label} other team's record`);
    if (hasTool)
      expect(
        await mcpError(mine.token, entry.key, toolArgs(entry.key, made)),
        `${label} MCP, other team's record`,
      ).toMatchObject({ error: 'not_found' });

    // Control: the record is real, its own team reaches it (so the 404 above is the team scope at work).
    const own = await send(t, entry, path, other.token);
    expect([401, 403, 404], `${label} own team: ${own.status} ${own.text}`).not.toContain(own.status);
    expect(own.status, `${label} own team: ${own.text}`).toBeLessThan(500);
  });
});
