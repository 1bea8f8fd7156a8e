import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../server/domain/accounts/tokens.ts';
import { createMcpServer } from '../../server/transports/mcp/server.ts';
import { toolSpecs } from '../../server/transports/mcp/tools.ts';
import { VERSION } from '../../server/version.ts';
import { makePublishedForm, submissionsOf } from '../support/forms.ts';
import { bearer, makeTeam, makeToken, type TestMember } from '../support/harness.ts';
import { startLiveTestApp, type LiveTestApp } from '../support/live-server.ts';
import { call, errorOf } from '../support/mcp-tools.ts';
import { withinOneMinuteWindow } from '../support/rate-window.ts';

/**
 * The limits of `/mcp` and of MCP tool arguments (issue 25): the body is read only for an authenticated
 * caller, at most 1 MiB, never parsed when nested too deep; a token holds a bounded number of sessions,
 * which end on DELETE or when idle; `initialize` counts against the API rate limit; tool arguments pass the
 * REST body's guard on every transport and fail as tool errors naming the field.
 */
const t = await startLiveTestApp();
// Short limits: sessions idle for 1.5 s end, a token holds 2, a team 3, and 5 API requests a minute.
const short = await startLiveTestApp({
  INTAKE_MCP_SESSION_IDLE_MS: '1500',
  INTAKE_MCP_SESSIONS_PER_TOKEN: '2',
  INTAKE_MCP_SESSIONS_PER_TEAM: '3',
  INTAKE_API_RATE_LIMIT: '5',
});
// A process that holds 2 sessions in all.
const small = await startLiveTestApp({ INTAKE_MCP_SESSIONS_MAX: '2' });

const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
});

async function connect(app: LiveTestApp, token: string): Promise<Client> {
  const client = new Client({ name: 'intake-limits-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${app.baseUrl}/mcp`), { requestInit: { headers: bearer(token) } }),
  );
  clients.push(client);
  return client;
}

const sessionOf = (c: Client) => (c as unknown as { _transport: StreamableHTTPClientTransport })._transport.sessionId!;

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const ACCEPT = { Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json' };

type Answer = { status: number; headers: http.IncomingHttpHeaders; text: string; ms: number };

/** A raw POST that writes its whole body, and reports the answer even when the server closes mid-body. */
function post(app: LiveTestApp, body: Buffer | string, headers: Record<string, string> = {}): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let answer: Answer | undefined;
    const req = http.request(`${app.baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...ACCEPT, ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on(
        'end',
        () => (answer = { status: res.statusCode!, headers: res.headers, text, ms: performance.now() - started }),
      );
    });
    req.on('error', () => {}); // the server closing a connection whose body it refused to read is expected
    req.on('close', () => (answer ? resolve(answer) : reject(new Error('no answer'))));
    req.end(body);
  });
}

const json = (a: Answer) =>
  JSON.parse(a.text) as {
    jsonrpc?: string;
    error?: { code: number; message: string; data?: Record<string, unknown> };
  } & Record<string, unknown>;

/** A raw initialize; the session id when one was opened. */
async function initialize(
  app: LiveTestApp,
  token: string,
): Promise<{ status: number; sessionId: string | null; retryAfter: string | null; body: string }> {
  const res = await fetch(`${app.baseUrl}/mcp`, {
    method: 'POST',
    headers: { ...ACCEPT, ...bearer(token) },
    body: JSON.stringify(INIT),
  });
  return {
    status: res.status,
    sessionId: res.headers.get('mcp-session-id'),
    retryAfter: res.headers.get('retry-after'),
    body: await res.text(),
  };
}

/** tools/list in a session, raw: its HTTP status. */
async function listIn(app: LiveTestApp, token: string, sessionId: string): Promise<number> {
  const res = await fetch(`${app.baseUrl}/mcp`, {
    method: 'POST',
    headers: { ...ACCEPT, ...bearer(token), 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  await res.arrayBuffer();
  return res.status;
}

async function endSession(app: LiveTestApp, token: string, sessionId: string): Promise<number> {
  const res = await fetch(`${app.baseUrl}/mcp`, {
    method: 'DELETE',
    headers: { ...bearer(token), 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2025-06-18' },
  });
  await res.arrayBuffer();
  return res.status;
}

/** The longest the event loop was held while `work` ran, in ms (the server runs in this process). */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  try {
    await work();
  } finally {
    delay.disable();
  }
  return delay.max / 1e6;
}

/** 1 MiB of JSON nested about 500,000 deep: parsing it holds the event loop for a tenth of a second or more. */
const DEEP = Buffer.from(`${'['.repeat(512 * 1024 - 1)}${']'.repeat(512 * 1024 - 1)}`);

describe('the body of POST /mcp', () => {
  it('is not read, let alone parsed, before the token is checked: 30 deep 1 MiB bodies are 401 at once', async () => {
    // Once unmeasured, so the measure is not of the first connections and code paths warming up.
    await Promise.all(Array.from({ length: 5 }, () => post(t, DEEP)));
    let answers: Answer[] = [];
    let healthMs = 0;
    const stall = await longestStall(async () => {
      const burst = Promise.all(
        Array.from({ length: 30 }, (_, i) => post(t, DEEP, i % 2 ? bearer('intk_not_a_token') : {})),
      );
      const started = performance.now();
      await t.http.get('/healthz').expect(200);
      healthMs = performance.now() - started;
      answers = await burst;
    });
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(401));
    expect(answers.every((a) => a.headers['www-authenticate']?.startsWith('Bearer realm="intake"'))).toBe(true);
    // Parsing one of them took 100–216 ms of event loop; answering unread takes none of that.
    expect(stall).toBeLessThan(100);
    expect(healthMs).toBeLessThan(500);
  });

  it('an authenticated body nested deeper than the limits is 400 without being built', async () => {
    const owner = await makeTeam(t);
    let answers: Answer[] = [];
    const stall = await longestStall(async () => {
      answers = await Promise.all(Array.from({ length: 5 }, () => post(t, DEEP, bearer(owner.token))));
    });
    for (const a of answers) {
      expect(a.status).toBe(400);
      expect(json(a)).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, data: { error: 'validation_failed' } },
      });
    }
    expect(stall).toBeLessThan(100);
    // Wide instead of deep: 100,000 values in 200 KB, refused on the text too.
    const wide = await post(
      t,
      JSON.stringify({ ...INIT, params: { ...INIT.params, capabilities: { x: Array(100_000).fill(0) } } }),
      bearer(owner.token),
    );
    expect(wide.status).toBe(400);
    expect(json(wide).error).toMatchObject({ code: -32600, data: { error: 'validation_failed' } });
  });

  it('over 1 MiB is 413 and the connection closes; unauthenticated it is still 401', async () => {
    const owner = await makeTeam(t);
    const big = Buffer.from(
      JSON.stringify({
        ...INIT,
        params: { ...INIT.params, clientInfo: { name: 'x'.repeat(1024 * 1024), version: '1' } },
      }),
    );
    const refused = await post(t, big, bearer(owner.token));
    expect(refused.status).toBe(413);
    expect(refused.headers.connection).toBe('close');
    expect(json(refused)).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32000, data: { error: 'payload_too_large' } },
    });
    expect((await post(t, big)).status).toBe(401);
  });

  it('malformed JSON and invalid UTF-8 are JSON-RPC parse errors (-32700) with HTTP 400', async () => {
    const owner = await makeTeam(t);
    for (const body of [
      Buffer.from('{"jsonrpc":"2.0",'),
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
    ]) {
      const a = await post(t, body, bearer(owner.token));
      expect(a.status).toBe(400);
      expect(json(a)).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, data: { error: 'invalid_json' } },
      });
    }
  });
});

describe('MCP sessions', () => {
  it(
    'a token holds 20: the 21st initialize is 429 with a JSON-RPC error while the 20 keep working; DELETE frees one',
    { timeout: 60_000 },
    async () => {
      const owner = await makeTeam(t);
      const open: Client[] = [];
      for (let i = 0; i < 20; i++) open.push(await connect(t, owner.token));
      const refused = await initialize(t, owner.token);
      expect(refused.status).toBe(429);
      expect(refused.sessionId).toBeNull();
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
      const body = JSON.parse(refused.body) as { error: { message: string; data: Record<string, unknown> } };
      expect(body).toMatchObject({
        jsonrpc: '2.0',
        error: { code: -32000, data: { error: 'rate_limited', limit: 20 } },
      });
      expect(body.error.message).toContain('20 open MCP sessions');

      // The open sessions still work, each with its GET stream open (a second one is refused: 409), which
      // holds no database connection: 20 of them against a pool of 10 would otherwise starve the team below.
      const stream = await fetch(`${t.baseUrl}/mcp`, {
        headers: {
          ...bearer(owner.token),
          Accept: 'text/event-stream',
          'Mcp-Session-Id': sessionOf(open[0]!),
          'MCP-Protocol-Version': '2025-06-18',
        },
      });
      expect(stream.status).toBe(409);
      await stream.arrayBuffer();
      expect((await open[0]!.listTools()).tools.length).toBeGreaterThan(10);
      expect(await call(open[19]!, 'get_me')).toMatchObject({
        structuredContent: { data: { team: { id: owner.teamId } } },
      });
      // Another team's token is not affected.
      const other = await makeTeam(t);
      const started = performance.now();
      const theirs = await connect(t, other.token);
      expect((await call(theirs, 'list_forms')).isError).toBeFalsy();
      expect(performance.now() - started).toBeLessThan(5_000);

      // DELETE ends one: its id is then unknown (404), and the token may open another.
      const ended = sessionOf(open[1]!);
      expect(await endSession(t, owner.token, ended)).toBe(200);
      expect(await listIn(t, owner.token, ended)).toBe(404);
      const again = await initialize(t, owner.token);
      expect(again.status).toBe(200);
      expect(again.sessionId).toEqual(expect.any(String));
    },
  );

  it('a session idle longer than INTAKE_MCP_SESSION_IDLE_MS ends, and no longer counts', async () => {
    const owner = await makeTeam(short);
    const first = await connect(short, owner.token);
    await first.listTools();
    const second = await initialize(short, owner.token);
    expect(second.status).toBe(200);
    expect((await initialize(short, owner.token)).status).toBe(429);
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await listIn(short, owner.token, sessionOf(first))).toBe(404);
    expect(await listIn(short, owner.token, second.sessionId!)).toBe(404);
    expect((await initialize(short, owner.token)).status).toBe(200);
  });

  it("a team's tokens together hold INTAKE_MCP_SESSIONS_PER_TEAM; another team is unaffected", async () => {
    const owner = await makeTeam(short);
    const second = await makeToken(short, owner);
    for (const token of [owner.token, owner.token, second.token])
      expect((await initialize(short, token)).status).toBe(200);
    const refused = await initialize(short, second.token);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { data: { error: 'rate_limited', limit: 3 } } });
    expect((await initialize(short, (await makeTeam(short)).token)).status).toBe(200);
  });

  it('a process holds at most INTAKE_MCP_SESSIONS_MAX: past it, 503 with Retry-After', async () => {
    for (let i = 0; i < 2; i++) expect((await initialize(small, (await makeTeam(small)).token)).status).toBe(200);
    const full = await initialize(small, (await makeTeam(small)).token);
    expect(full.status).toBe(503);
    expect(Number(full.retryAfter)).toBeGreaterThan(0);
    expect(JSON.parse(full.body)).toMatchObject({ jsonrpc: '2.0', error: { data: { error: 'service_unavailable' } } });
  });

  it("initialize counts against the token's API rate limit", { timeout: 60_000 }, async () => {
    const owner = await makeTeam(short);
    await withinOneMinuteWindow();
    for (let i = 0; i < 5; i++) {
      const opened = await initialize(short, owner.token);
      expect(opened.status).toBe(200);
      expect(await endSession(short, owner.token, opened.sessionId!)).toBe(200);
    }
    const limited = await initialize(short, owner.token);
    expect(limited.status).toBe(429);
    expect(Number(limited.retryAfter)).toBeGreaterThan(0);
    expect(JSON.parse(limited.body)).toMatchObject({
      jsonrpc: '2.0',
      error: { data: { error: 'rate_limited', retry_after: expect.any(Number) } },
    });
  });

  it(
    "a stateless message counts against the token's API rate limit, whether it calls a tool or not",
    { timeout: 60_000 },
    async () => {
      const owner = await makeTeam(short);
      const form = await makePublishedForm(short, owner);
      await withinOneMinuteWindow();
      const stateless = async (message: object) => {
        const res = await fetch(`${short.baseUrl}/mcp`, {
          method: 'POST',
          headers: { ...ACCEPT, ...bearer(owner.token), 'MCP-Protocol-Version': '2025-06-18' },
          body: JSON.stringify(message),
        });
        return { status: res.status, retryAfter: res.headers.get('retry-after'), text: await res.text() };
      };
      const list = { jsonrpc: '2.0', id: 3, method: 'tools/list' };
      const callTool = {
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'list_submissions', arguments: { form: form.id } },
      };
      for (let i = 0; i < 3; i++) expect((await stateless(list)).status).toBe(200);
      for (let i = 0; i < 2; i++) {
        const called = await stateless(callTool);
        expect(called.status).toBe(200);
        expect(called.text).not.toContain('rate_limited');
      }
      const limited = await stateless(list);
      expect(limited.status).toBe(429);
      expect(Number(limited.retryAfter)).toBeGreaterThan(0);
      expect(JSON.parse(limited.text)).toMatchObject({ jsonrpc: '2.0', error: { data: { error: 'rate_limited' } } });
      // The tool call past the budget is refused by invoke, as a tool error.
      expect((await stateless(callTool)).text).toContain('rate_limited');
    },
  );
});

describe('MCP tool arguments pass the REST body guard, on every transport', () => {
  async function fixture(): Promise<{ owner: TestMember; formId: string; submissionId: string }> {
    const owner = await makeTeam(t, { plan: 'team' });
    const form = await makePublishedForm(t, owner);
    const posted = await t.http
      .post(form.endpoint)
      .set('Accept', 'application/json')
      .type('form')
      .send('email=ada@example.com');
    return { owner, formId: form.id, submissionId: posted.body.id as string };
  }
  const nested = (levels: number) => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`) as unknown;

  it('update_submission with a payload nested 3,500 deep is a validation_failed tool error and stores nothing', async () => {
    const { owner, formId, submissionId } = await fixture();
    // A transport without HTTP framing (stdio, in-memory): the tool call itself must hold the limit.
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const caller = (await authenticate(t.ctx, owner.token))!;
    const server = createMcpServer(t.ctx, async () => caller, VERSION);
    await server.connect(serverSide);
    const client = new Client({ name: 'in-memory', version: '1.0.0' });
    await client.connect(clientSide);
    clients.push(client);
    const deep = await call(client, 'update_submission', {
      form: formId,
      submission: submissionId,
      payload: { a: nested(3_500) },
    });
    expect(errorOf(deep)).toMatchObject({
      error: 'validation_failed',
      details: [{ in: 'body', path: expect.stringMatching(/^payload\.a/) }],
    });
    expect((deep.content[0] as { text: string }).text).toContain('payload.a');

    // Over HTTP, 33 levels (one past the REST body's limit) pass the framing and fail the same way.
    const overHttp = await connect(t, owner.token);
    const past = await call(overHttp, 'update_submission', {
      form: formId,
      submission: submissionId,
      payload: { a: nested(31) },
    });
    expect(errorOf(past)).toMatchObject({
      error: 'validation_failed',
      details: [{ path: expect.stringMatching(/^payload\.a/) }],
    });
    const within = await call(overHttp, 'update_submission', {
      form: formId,
      submission: submissionId,
      payload: { b: nested(30) },
    });
    expect(within.isError).toBeFalsy();
    const [stored] = await submissionsOf(t, formId);
    expect(stored!.payload).toEqual({ email: 'ada@example.com', b: nested(30) });
  });

  // Before the guard, Postgres refused NUL in a form's name as a protocol violation (08P01, answered as an
  // outage: service_unavailable), in a token's name as 22021 (internal_error), and stored a lone surrogate as U+FFFD.
  for (const [what, tool, args] of [
    ['NUL in create_form', 'create_form', { name: 'bad\u0000name' }],
    ['an unpaired surrogate in create_form', 'create_form', { name: 'bad\ud800' }],
    ['NUL in create_token', 'create_token', { name: 'x\u0000', abilities: ['forms:read'] }],
    ['an unpaired surrogate in create_token', 'create_token', { name: 'x\udc00', abilities: ['forms:read'] }],
  ] as const) {
    it(`${what}'s name is a validation_failed tool error naming \`name\`; nothing is created`, async () => {
      const { owner } = await fixture();
      const client = await connect(t, owner.token);
      const formsBefore = (await t.http.get('/v1/forms').set(bearer(owner.token))).body.meta.total as number;
      const tokensBefore = (await t.http.get('/v1/tokens').set(bearer(owner.token))).body.data.length as number;
      const result = await call(client, tool, args);
      expect(errorOf(result)).toMatchObject({ error: 'validation_failed', details: [{ in: 'body', path: 'name' }] });
      expect((result.content[0] as { text: string }).text).toMatch(/^validation_failed: name: /);
      expect((await t.http.get('/v1/forms').set(bearer(owner.token))).body.meta.total).toBe(formsBefore);
      expect((await t.http.get('/v1/tokens').set(bearer(owner.token))).body.data).toHaveLength(tokensBefore);
    });
  }

  it(
    'every argument of every tool: NUL, or nesting past 32 levels, is validation_failed naming that argument',
    { timeout: 60_000 },
    async () => {
      const { owner } = await fixture();
      const client = await connect(t, owner.token);
      const failures: string[] = [];
      for (const spec of toolSpecs) {
        for (const key of Object.keys(spec.input.shape)) {
          for (const [what, value] of [
            ['NUL', 'x\u0000'],
            ['33 levels', nested(32)],
          ] as const) {
            const err = errorOf(await call(client, spec.name, { [key]: value }));
            const detail = (err?.details as Array<{ path: string }> | undefined)?.[0];
            if (err?.error !== 'validation_failed' || detail?.path.split('.')[0] !== key)
              failures.push(`${spec.name} ${key} (${what}): ${JSON.stringify(err)}`);
          }
        }
      }
      expect(failures).toEqual([]);
    },
  );

  it("an argument of the wrong type is validation_failed naming the field, not the SDK's bare message", async () => {
    const { owner, formId } = await fixture();
    const client = await connect(t, owner.token);
    const wrong = await call(client, 'create_form', { name: 42 });
    expect(errorOf(wrong)).toMatchObject({ error: 'validation_failed', details: [{ in: 'body', path: 'name' }] });
    const folder = await call(client, 'list_submissions', { form: formId, folder: 'nowhere' });
    expect(errorOf(folder)).toMatchObject({ error: 'validation_failed', details: [{ in: 'query', path: 'folder' }] });
    expect((folder.content[0] as { text: string }).text).toContain('folder');
  });
});
