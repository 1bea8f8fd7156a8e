import net from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import supertest, { type Response } from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../server/transports/http/app.ts';
import { bearer, makeTeam, startTestApp } from '../support/harness.ts';
import { listenLocally } from '../support/live-server.ts';

const t = await startTestApp();
const owner = await makeTeam(t, { plan: 'pro' });

function expectError(res: Response, status: number, error: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ error, message: expect.any(String) });
  expect(res.body.message.length).toBeGreaterThan(0);
  expect(res.headers['x-request-id']).toMatch(/^[\w.-]{1,128}$/);
  // No stack traces or parser internals.
  expect(res.text).not.toMatch(/\bat .+:\d+:\d+|node_modules|SyntaxError|stack/);
}

async function countTokens(): Promise<number> {
  const { rows } = await t.ctx.db.query<{ n: string }>('select count(*) as n from api_tokens where team_id = $1', [
    owner.teamId,
  ]);
  return Number(rows[0]!.n);
}

const post = (body: string, type = 'application/json') =>
  t.http.post('/v1/tokens').set(bearer(owner.token)).set('Content-Type', type).send(body);

/** Exact bytes on the wire (superagent would JSON-encode a Buffer passed to `send`). */
async function postBytes(bytes: Buffer, type: string) {
  const req = t.http
    .post('/v1/tokens')
    .set(bearer(owner.token))
    .set('Content-Type', type)
    .set('Content-Length', String(bytes.length));
  req.write(bytes);
  return req;
}

describe('request bodies', () => {
  it.each([
    ['truncated object', '{"name": "x", "abilities": ['],
    ['trailing comma', '{"name": "x",}'],
    ['single quotes', "{'name': 'x'}"],
    ['bare word', 'hello'],
    ['two documents', '{} {}'],
  ])('malformed JSON (%s) is 400 invalid_json, never 500', async (_label, body) => {
    expectError(await post(body), 400, 'invalid_json');
  });

  it('a bad body is judged after the token: 401 without one, 403 without the ability, 404 off-route', async () => {
    const noToken = await t.http.post('/v1/tokens').set('Content-Type', 'application/json').send('{"a":');
    expectError(noToken, 401, 'unauthenticated');
    const narrow = (
      await t.http
        .post('/v1/tokens')
        .set(bearer(owner.token))
        .send({ name: 'narrow', abilities: ['forms:read'] })
    ).body.token;
    expectError(
      await t.http.post('/v1/tokens').set(bearer(narrow)).set('Content-Type', 'application/json').send('{"a":'),
      403,
      'forbidden',
    );
    expectError(
      await t.http.post('/v1/nope').set(bearer(owner.token)).set('Content-Type', 'application/json').send('{"a":'),
      404,
      'not_found',
    );
    expectError(
      await t.http.post('/v1/nope').set(bearer(owner.token)).set('Content-Type', 'text/plain').send('a'),
      404,
      'not_found',
    );
  });

  it.each([
    ['a JSON string', '"just text"'],
    ['null', 'null'],
    ['an array', '[]'],
    ['a number', '42'],
  ])('well-formed JSON of the wrong shape (%s) is 400 validation_failed', async (_label, body) => {
    const res = await post(body);
    expectError(res, 400, 'validation_failed');
    expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'body' })]));
  });

  it.each([
    ['text/plain', 'name=x'],
    ['application/x-www-form-urlencoded', 'name=x&abilities=forms:read'],
    [
      'multipart/form-data; boundary=xyz',
      '--xyz\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--xyz--\r\n',
    ],
    ['application/xml', '<token><name>x</name></token>'],
  ])('a POST body of type %s is 415', async (type, body) => {
    const before = await countTokens();
    expectError(await post(body, type), 415, 'unsupported_media_type');
    expect(await countTokens()).toBe(before);
  });

  it('a JSON body in a charset other than UTF-8 is 415', async () => {
    const body = Buffer.from('{"name":"caf\xe9","abilities":["forms:read"]}', 'latin1');
    expectError(await postBytes(body, 'application/json; charset=iso-8859-1'), 415, 'unsupported_media_type');
  });

  it('accepts application/json with an explicit utf-8 charset and +json types', async () => {
    const res = await post(
      JSON.stringify({ name: 'caf\u00e9', abilities: ['forms:read'] }),
      'application/json; charset=utf-8',
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.name).toBe('caf\u00e9');
    const vendor = await post(
      JSON.stringify({ name: 'vendor', abilities: ['forms:read'] }),
      'application/vnd.api+json',
    );
    expect(vendor.status, vendor.text).toBe(201);
  });

  it('invalid UTF-8 bytes in a JSON body are 400, not silently replaced', async () => {
    const before = await countTokens();
    const body = Buffer.concat([
      Buffer.from('{"name":"bad '),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from('","abilities":["forms:read"]}'),
    ]);
    const res = await postBytes(body, 'application/json');
    expectError(res, 400, 'invalid_json');
    expect(res.body.message).toMatch(/UTF-8/i);
    expect(await countTokens()).toBe(before);
    const {
      rows: [stored],
    } = await t.ctx.db.query<{ n: string }>(
      `select count(*) as n from api_tokens where name like '%' || chr(65533) || '%'`,
    );
    expect(Number(stored!.n)).toBe(0);
  });

  it('caps request bodies at 1 MB with 413', async () => {
    const before = await countTokens();
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024), abilities: ['forms:read'] });
    expectError(await post(big), 413, 'payload_too_large');
    // Just under the cap is parsed (and then rejected on its merits, not its size).
    const under = JSON.stringify({ name: 'x'.repeat(1000 * 1000), abilities: ['forms:read'] });
    expect(Buffer.byteLength(under)).toBeLessThan(1024 * 1024);
    const res = await post(under);
    expectError(res, 400, 'validation_failed');
    expect(res.body.details).toEqual([expect.objectContaining({ in: 'body', path: 'name' })]);
    expect(await countTokens()).toBe(before);
  });

  it('caps chunked bodies (no Content-Length) at 1 MB too', async () => {
    const req = t.http
      .post('/v1/tokens')
      .set(bearer(owner.token))
      .set('Content-Type', 'application/json')
      .set('Transfer-Encoding', 'chunked');
    const chunk = Buffer.alloc(64 * 1024, 'a');
    req.write('{"name":"');
    for (let i = 0; i < 20; i++) req.write(chunk);
    req.write('","abilities":["forms:read"]}');
    expectError(await req, 413, 'payload_too_large');
  });
});

describe('a client that hangs up mid-body', () => {
  it('is not logged as a server error and leaves the server serving', async () => {
    const lines: { level: number; msg: string }[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const app = createApp({ ...t.ctx, log: pino({ level: 'debug' }, sink) });
    const { port } = await listenLocally(app, 'test');
    await new Promise<void>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end(
          `POST /v1/tokens HTTP/1.1\r\nHost: intake.test\r\nAuthorization: Bearer ${owner.token}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 500\r\n\r\n{"name":',
        );
      });
      socket.on('data', () => {});
      socket.on('close', () => resolve());
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.some((l) => l.msg === 'client aborted the request body')).toBe(true);
    const after = await fetch(`http://127.0.0.1:${port}/v1/me`, { headers: bearer(owner.token) });
    expect(after.status).toBe(200);
  });
});

describe('a failure on our side', () => {
  it('is 500 internal_error quoting the request id, with no internals, even on a contract route', async () => {
    const lines: { level: number; requestId?: string }[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    // The database refuses: an error whose text names SQL and tables must not reach the client.
    const db = {
      ...t.ctx.db,
      query: () =>
        Promise.reject(new Error('connect ECONNREFUSED: select token_hash from api_tokens where secret = 1')),
    };
    const app = createApp({ ...t.ctx, db, log: pino({ level: 'info' }, sink) });
    const res = await supertest(app).get('/v1/me').set(bearer(owner.token));
    expect(res.status).toBe(500);
    const id = res.headers['x-request-id'];
    expect(res.body).toEqual({ error: 'internal_error', message: expect.any(String), request_id: id });
    expect(res.text).not.toMatch(/ECONNREFUSED|token_hash|api_tokens|stack/);
    // The log has the real cause, tied to the same request id.
    expect(lines.some((l) => l.level === 50 && l.requestId === id)).toBe(true);
  });
});

describe('routing', () => {
  it.each([
    ['GET', '/v1/nope'],
    ['POST', '/v1/nope'],
    ['GET', '/nope'],
    ['PATCH', '/v1/tokens'],
    ['GET', '/v1/tokens/tok_x/extra'],
  ])('%s %s is 404 not_found in JSON', async (method, path) => {
    const res = await t.http[method.toLowerCase() as 'get' | 'post' | 'patch'](path).set(bearer(owner.token));
    expectError(res, 404, 'not_found');
  });

  it('404s an unknown route without a token as well (no auth wall in front of the 404)', async () => {
    expectError(await t.http.get('/v1/definitely-not-here'), 404, 'not_found');
  });
});

describe('X-Request-Id', () => {
  it('is on every error, and a well-formed incoming id is echoed', async () => {
    const responses = [
      await t.http.get('/v1/me'),
      await t.http.get('/v1/me').set(bearer(`intk_${'Q'.repeat(40)}`)),
      await t.http.get('/v1/nope'),
      await post('{"a":'),
      await post('x', 'text/plain'),
    ];
    const ids = responses.map((r) => r.headers['x-request-id']);
    for (const id of ids) expect(id).toMatch(/^[\w.-]{1,128}$/);
    expect(new Set(ids).size).toBe(ids.length);

    const echoed = await t.http.get('/v1/nope').set('X-Request-Id', 'trace-abc.123');
    expect(echoed.headers['x-request-id']).toBe('trace-abc.123');
    const refused = await t.http.get('/v1/nope').set('X-Request-Id', 'bad id with spaces <script>');
    expect(refused.headers['x-request-id']).not.toContain('bad id');
    expect(refused.headers['x-request-id']).toMatch(/^[\w.-]{1,128}$/);
  });

  it('is on successful responses too', async () => {
    const res = await t.http.get('/v1/me').set(bearer(owner.token));
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBeTruthy();
  });
});
