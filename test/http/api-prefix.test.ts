import { setTimeout as sleep } from 'node:timers/promises';
import type { Response } from 'supertest';
import { describe, expect, it } from 'vitest';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, makeToken, startTestApp, type TestMember } from '../support/harness.ts';

// The spec's Versioning section: the version is carried in the prefix `/api/v1`. `/v1` stays canonical;
// `/api/v1/…` is the same API, so every answer below is compared with its `/v1` twin.
const LIMIT = 6;
const t = await startTestApp({ INTAKE_API_RATE_LIMIT: String(LIMIT) });

/** What an integrator sees of an answer: status, the headers that carry meaning, and the body. */
function seen(res: Response) {
  const h = res.headers;
  return {
    status: res.status,
    headers: {
      'content-type': h['content-type'],
      'cache-control': h['cache-control'],
      'content-security-policy': h['content-security-policy'],
      'www-authenticate': h['www-authenticate'],
      'ratelimit-policy': h['ratelimit-policy'],
      location: h['location'],
    },
    body: res.type === 'application/json' ? res.body : res.text,
  };
}

type Send = (path: string) => PromiseLike<Response>;

async function bothPrefixes(path: string, send: Send): Promise<[Response, Response]> {
  expect(path.startsWith('/v1/')).toBe(true);
  return [await send(path), await send(`/api${path}`)];
}

async function ownerWithSubmissions(): Promise<{ owner: TestMember; form: string }> {
  const owner = await makeTeam(t, { plan: 'pro' });
  const form = await makePublishedForm(t, owner);
  for (const name of ['Ada', 'Grace']) {
    const res = await t.http
      .post(form.endpoint)
      .set('Accept', 'application/json')
      .type('form')
      .send(`name=${name}&note=hello`);
    expect(res.status).toBe(201);
  }
  return { owner, form: form.id };
}

describe('/api/v1 is an exact alias of /v1', () => {
  it('answers reads, 401s, 404s and malformed input alike, body and headers', async () => {
    const { owner, form } = await ownerWithSubmissions();
    const { token } = await makeToken(t, owner);
    const cases: Array<[string, Send]> = [
      ['list forms', (p) => t.http.get(`${p}?per_page=5`).set(bearer(token))],
      ['show a form', (p) => t.http.get(p).set(bearer(token))],
      ['no token: 401 with its challenge', (p) => t.http.get(p)],
      ['a bad token: 401', (p) => t.http.get(p).set(bearer('intake_nope'))],
      ['another id: 404', (p) => t.http.get(p.replace(form, 'frm_00000000000000000000000000')).set(bearer(token))],
      ['a malformed id: 404 before any query', (p) => t.http.get(p.replace(form, 'nope')).set(bearer(token))],
      ['no such route: 404', (p) => t.http.get(`${p}/nothing-here`).set(bearer(token))],
      ['a bad query: 400', (p) => t.http.get(`${p}?per_page=0`).set(bearer(token))],
    ];
    for (const [label, send] of cases) {
      const path = label === 'list forms' || label.startsWith('a bad query') ? '/v1/forms' : `/v1/forms/${form}`;
      const [canonical, alias] = await bothPrefixes(path, send);
      expect(canonical.status, `${label}: ${canonical.text}`).toBeLessThan(500);
      expect(seen(alias), label).toEqual(seen(canonical));
    }
  });

  it('creates through the same handler and guards: a form made on /api/v1 is listed on /v1', async () => {
    const owner = await makeTeam(t);
    const [canonical, alias] = await bothPrefixes('/v1/forms', (p) =>
      t.http.post(p).set(bearer(owner.token)).send({ name: 'Twin' }),
    );
    expect(alias.status, alias.text).toBe(201);
    const strip = (res: Response) => {
      const { id, created_at, updated_at, endpoint_url, ...rest } = res.body.data as Record<string, unknown>;
      expect([id, created_at, updated_at, endpoint_url].every((v) => typeof v === 'string')).toBe(true);
      return { status: res.status, type: res.type, data: rest };
    };
    expect(strip(alias)).toEqual(strip(canonical));
    const listed = await t.http.get('/v1/forms?per_page=10').set(bearer(owner.token));
    expect(listed.body.data.map((f: { id: string }) => f.id).sort()).toEqual(
      [canonical.body.data.id, alias.body.data.id].sort(),
    );

    // The body guard and the contract's validation answer alike.
    const [badCanonical, badAlias] = await bothPrefixes('/v1/forms', (p) =>
      t.http.post(p).set(bearer(owner.token)).set('Content-Type', 'application/json').send('{"name":"bad\\u0000name"}'),
    );
    expect(badCanonical.status).toBe(400);
    expect(seen(badAlias)).toEqual(seen(badCanonical));
    // A token without forms:write is refused on the alias too.
    const reader = await makeToken(t, owner, ['forms:read']);
    const [refusedCanonical, refusedAlias] = await bothPrefixes('/v1/forms', (p) =>
      t.http.post(p).set(bearer(reader.token)).send({ name: 'No' }),
    );
    expect(refusedCanonical.status).toBe(403);
    expect(seen(refusedAlias)).toEqual(seen(refusedCanonical));
    expect((await t.http.get('/v1/forms?per_page=10').set(bearer(owner.token))).body.meta.total).toBe(2);
  });

  it('streams the same export', async () => {
    const { owner, form } = await ownerWithSubmissions();
    const { token } = await makeToken(t, owner);
    for (const format of ['csv', 'json']) {
      const [canonical, alias] = await bothPrefixes(`/v1/forms/${form}/submissions/export?format=${format}`, (p) =>
        t.http
          .get(p)
          .set(bearer(token))
          .buffer(true)
          .parse((res, cb) => {
            let data = '';
            res.on('data', (c: Buffer) => (data += c.toString()));
            res.on('end', () => cb(null, data));
          }),
      );
      expect(canonical.status, format).toBe(200);
      expect(String(canonical.body)).toContain('Grace');
      expect(alias.status, format).toBe(200);
      expect(alias.headers['content-type'], format).toBe(canonical.headers['content-type']);
      expect(alias.headers['content-disposition'], format).toBe(canonical.headers['content-disposition']);
      expect(String(alias.body), format).toBe(String(canonical.body));
    }
  });

  it('spends one rate-limit budget: what /v1 spent is spent on /api/v1, and the 429 is the same', async () => {
    const { owner, form } = await ownerWithSubmissions();
    const path = `/v1/forms/${form}/submissions`;
    // A token whose fixed window has time left, so the sequence cannot straddle a window boundary.
    let token = '';
    for (;;) {
      token = (await makeToken(t, owner)).token;
      const first = await t.http.get(path).set(bearer(token));
      expect(first.status).toBe(200);
      const reset = Number(/reset=(\d+)/.exec(String(first.headers['ratelimit']))![1]);
      if (reset >= 10) break;
      await sleep((reset + 1) * 1000);
    }
    const remaining: number[] = [];
    for (let i = 1; i < LIMIT; i++) {
      const res = await t.http.get(i % 2 ? `/api${path}` : path).set(bearer(token));
      expect(res.status, `request ${i + 1}`).toBe(200);
      remaining.push(Number(/remaining=(\d+)/.exec(String(res.headers['ratelimit']))![1]));
    }
    expect(remaining).toEqual(Array.from({ length: LIMIT - 1 }, (_, i) => LIMIT - 2 - i));
    const [canonical, alias] = await bothPrefixes(path, (p) => t.http.get(p).set(bearer(token)));
    expect(canonical.status).toBe(429);
    expect(alias.status).toBe(429);
    expect(alias.body).toEqual(canonical.body);
    expect(alias.headers['retry-after']).toBeDefined();
    expect(alias.headers['ratelimit-policy']).toBe(canonical.headers['ratelimit-policy']);
  });

  it('serves the API document and leaves other paths alone', async () => {
    const [canonical, alias] = await bothPrefixes('/v1/openapi.json', (p) => t.http.get(p));
    expect(canonical.status).toBe(200);
    expect(seen(alias)).toEqual(seen(canonical));
    // Only the versioned prefix is an alias: /api/v1x is not /v1x, and /api alone is no route.
    expect((await t.http.get('/api/v1x/forms')).status).toBe(404);
    expect((await t.http.get('/api/healthz')).status).toBe(404);
  });
});
