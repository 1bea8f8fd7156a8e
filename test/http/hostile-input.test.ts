import { describe, expect, it } from 'vitest';
import { Migration0005Re2Rules } from '../../server/infra/db/migrations/0005-re2-rules.ts';
import { makePublishedForm, submissionsOf } from '../support/forms.ts';
import { bearer, makeTeam, startTestApp } from '../support/harness.ts';

/**
 * Input built to stall or crash the server: each is answered at once (a 2xx it is entitled to, or a 4xx
 * in the spec's body), without holding the event loop. The strict measure is the CPU the event-loop thread
 * spent on the request (< 100 ms, whatever else the machine runs; V8's compiler and GC threads, which hold
 * nothing, are not counted); /healthz, asked by another client meanwhile, must not wait for it either (a
 * wall-clock bound loose enough for a loaded CI machine: the stalls this guards against took seconds to
 * minutes).
 */
const t = await startTestApp({ INTAKE_INGEST_RATE_LIMIT: '10000', INTAKE_INGEST_FLOOD_LIMIT: '10000' });
const owner = await makeTeam(t);

async function timed(send: () => PromiseLike<{ status: number; body: unknown }>) {
  const before = process.threadCpuUsage();
  const request = send();
  await new Promise((r) => setTimeout(r, 5));
  const health = (async () => {
    const started = performance.now();
    const res = await t.http.get('/healthz');
    expect(res.status).toBe(200);
    return performance.now() - started;
  })();
  const [res, healthMs] = await Promise.all([request, health]);
  const used = process.threadCpuUsage(before);
  return { res, cpuMs: (used.user + used.system) / 1000, healthMs };
}

function expectQuick(r: { cpuMs: number; healthMs: number }) {
  expect(r.cpuMs).toBeLessThan(100);
  expect(r.healthMs).toBeLessThan(500);
}

describe('hostile bodies at POST /f/{form}', () => {
  it('a 60,000-character value without an @ (the e-mail scan was quadratic: 5.5 s)', async () => {
    const form = await makePublishedForm(t, owner);
    for (const send of [
      () =>
        t.http
          .post(form.endpoint)
          .set('Accept', 'application/json')
          .send({ msg: 'x'.repeat(60_000) }),
      () =>
        t.http
          .post(form.endpoint)
          .set('Accept', 'application/json')
          .type('form')
          .send(`msg=${'x'.repeat(60_000)}`),
      () =>
        t.http
          .post(form.endpoint)
          .set('Accept', 'application/json')
          .send({ msg: `${'a.'.repeat(30_000)}@${'b'.repeat(1000)}` }),
    ]) {
      const r = await timed(send);
      expect(r.res.status).toBe(201);
      expectQuick(r);
    }
  });

  it('a JSON value over the per-value limit is 413, like a form field', async () => {
    const form = await makePublishedForm(t, owner);
    const r = await timed(() =>
      t.http
        .post(form.endpoint)
        .set('Accept', 'application/json')
        .send({ msg: 'x'.repeat(900_000) }),
    );
    expect(r.res.status).toBe(413);
    expect(r.res.body).toMatchObject({ error: 'payload_too_large' });
    expectQuick(r);
    expect(await submissionsOf(t, form.id)).toEqual([]);
  });

  it('too many JSON values is 413', async () => {
    const form = await makePublishedForm(t, owner);
    const r = await timed(() =>
      t.http
        .post(form.endpoint)
        .set('Accept', 'application/json')
        .send({ list: Array.from({ length: 5000 }, (_, i) => i) }),
    );
    expect(r.res.status).toBe(413);
    expectQuick(r);
  });

  it('JSON nested 300,000 deep is 400, not a stack overflow (500)', async () => {
    const form = await makePublishedForm(t, owner);
    const deep = `{"a":${'['.repeat(300_000)}${']'.repeat(300_000)}}`;
    const r = await timed(() => t.http.post(form.endpoint).set('Accept', 'application/json').type('json').send(deep));
    expect(r.res.status).toBe(400);
    expect(r.res.body).toMatchObject({ error: 'validation_failed' });
    expectQuick(r);
  });

  it('custom regex rules that backtrack exponentially in JavaScript run in linear time', async () => {
    const patterns = ['^(a|a)*$', '((a+))+$', '(\\w|\\d)+$', '.*.*.*x'];
    const form = await makePublishedForm(t, owner, { settings: { custom_rules: { regex: patterns } } });
    // ^(a|a)*$ against 28 a's and a "!" stalled the server for 25 s.
    for (const text of [`${'a'.repeat(28)}!`, `${'a'.repeat(7_000)}!`, 'y'.repeat(8_000)]) {
      const r = await timed(() =>
        t.http.post(form.endpoint).set('Accept', 'application/json').type('form').send(`m=${text}`),
      );
      expect(r.res.status).toBe(201);
      expectQuick(r);
    }
    // The rules still work: the last one matches, the post is spam.
    const caught = await t.http.post(form.endpoint).set('Accept', 'application/json').type('form').send('m=aaax');
    const stored = await submissionsOf(t, form.id);
    expect(stored.find((s) => s.id === caught.body.id)?.spam_reason).toBe('rule:regex');
  });
});

describe('hostile bodies at the API', () => {
  it('a payload nested 5,000 deep in PUT …/submissions/{id} is 400, not 500', async () => {
    const form = await makePublishedForm(t, owner);
    const posted = await t.http.post(form.endpoint).set('Accept', 'application/json').type('form').send('a=1');
    const deep = `{"payload":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    const r = await timed(() =>
      t.http.put(`/v1/forms/${form.id}/submissions/${posted.body.id}`).set(bearer(owner.token)).type('json').send(deep),
    );
    expect(r.res.status).toBe(400);
    expect(r.res.body).toMatchObject({ error: 'validation_failed' });
    expectQuick(r);
    expect((await submissionsOf(t, form.id))[0]!.payload).toEqual({ a: '1' });
  });

  it('a regex RE2 cannot run is refused at save time, naming the construct', async () => {
    const res = await t.http
      .post('/v1/forms')
      .set(bearer(owner.token))
      .send({ name: 'Lookahead', settings: { custom_rules: { regex: ['free(?=money)'] } } });
    expect(res.status).toBe(400);
    expect(res.body.details[0]).toMatchObject({
      path: 'settings.custom_rules.regex.0',
      message: expect.stringContaining('(?='),
    });
  });
});

describe('custom rules stored before RE2', () => {
  it('are moved aside by migration 0005 and reported on the form until the rules are saved again', async () => {
    const form = await makePublishedForm(t, owner, { settings: { custom_rules: { regex: ['casino'] } } });
    // As a form saved by an earlier version held them: JavaScript-only constructs beside a valid rule.
    await t.ctx.db.query(
      `update forms set settings = jsonb_set(settings, '{custom_rules,regex}', $2::jsonb) where id = $1`,
      [form.id, JSON.stringify(['casino', '(a)\\1', 'free(?=money)'])],
    );
    await new Migration0005Re2Rules(t.db.orm.driver, t.db.orm.config).up();

    const shown = await t.http.get(`/v1/forms/${form.id}`).set(bearer(owner.token));
    expect(shown.status).toBe(200);
    expect(shown.body.data.settings.custom_rules.regex).toEqual(['casino']);
    expect(shown.body.data.disabled_rules).toEqual([
      { kind: 'regex', pattern: '(a)\\1', reason: expect.stringContaining('\\1') },
      { kind: 'regex', pattern: 'free(?=money)', reason: expect.stringContaining('(?=') },
    ]);
    // Other settings leave the report; saving the regex rules is the editor's answer to it.
    const named = await t.http
      .put(`/v1/forms/${form.id}`)
      .set(bearer(owner.token))
      .send({ settings: { ai_threshold: 0.9 } });
    expect(named.body.data.disabled_rules).toHaveLength(2);
    const saved = await t.http
      .put(`/v1/forms/${form.id}`)
      .set(bearer(owner.token))
      .send({ settings: { custom_rules: { regex: ['casino', 'free\\s*money'] } } });
    expect(saved.body.data.disabled_rules).toEqual([]);
  });
});

describe('every bad input is a 4xx in the error shape, and changes nothing', () => {
  const raw = (method: 'post' | 'put', path: string, json: string) =>
    t.http[method](path).set(bearer(owner.token)).set('Content-Type', 'application/json').send(json);

  it('NUL characters and unpaired surrogates, in bodies, queries and paths', async () => {
    const form = await makePublishedForm(t, owner);
    const posted = await t.http.post(form.endpoint).set('Accept', 'application/json').type('form').send('a=1');
    const before = JSON.stringify(await submissionsOf(t, form.id));
    const formsBefore = (await t.http.get('/v1/forms?per_page=100').set(bearer(owner.token))).body.meta.total;
    const cases: Array<[string, () => PromiseLike<{ status: number; body: { error?: string } }>, number]> = [
      ['NUL in a form name', () => raw('post', '/v1/forms', '{"name":"bad\\u0000name"}'), 400],
      ['lone surrogate in a form name', () => raw('post', '/v1/forms', '{"name":"bad\\ud800"}'), 400],
      ['NUL in a token name', () => raw('post', '/v1/tokens', '{"name":"x\\u0000","abilities":["forms:read"]}'), 400],
      [
        'NUL in bulk ids',
        () => raw('post', `/v1/forms/${form.id}/submissions/bulk`, '{"ids":["subm_\\u0000"],"action":"mark_spam"}'),
        400,
      ],
      [
        'NUL in a payload key',
        () => raw('put', `/v1/forms/${form.id}/submissions/${posted.body.id}`, '{"payload":{"k\\u0000":"v"}}'),
        400,
      ],
      [
        'lone surrogate in a payload',
        () => raw('put', `/v1/forms/${form.id}/submissions/${posted.body.id}`, '{"payload":{"k":["\\udc00"]}}'),
        400,
      ],
      [
        'NUL in ?category',
        () => t.http.get(`/v1/forms/${form.id}/submissions?category=%00`).set(bearer(owner.token)),
        400,
      ],
      ['NUL as a path id', () => t.http.get(`/v1/forms/${form.id}/submissions/%00`).set(bearer(owner.token)), 404],
      ['a malformed form id', () => t.http.get('/v1/forms/frm_%00x').set(bearer(owner.token)), 404],
      [
        'lone surrogate posted as JSON',
        () =>
          t.http
            .post(form.endpoint)
            .set('Accept', 'application/json')
            .set('Content-Type', 'application/json')
            .send('{"m":"\\ud83d"}'),
        400,
      ],
      [
        'February 30th',
        () => t.http.get(`/v1/forms/${form.id}/submissions?since=2024-02-30`).set(bearer(owner.token)),
        400,
      ],
      [
        'year zero',
        () => t.http.get(`/v1/forms/${form.id}/submissions?until=0000-01-01`).set(bearer(owner.token)),
        400,
      ],
      [
        'hour 24',
        () => t.http.get(`/v1/forms/${form.id}/submissions?since=2024-01-01T24:00:00Z`).set(bearer(owner.token)),
        400,
      ],
      [
        'a page past any offset (found by the fuzzer: 500)',
        () => t.http.get('/v1/forms?page=97088126703734480&per_page=95').set(bearer(owner.token)),
        400,
      ],
      [
        'a submissions page past any offset',
        () => t.http.get(`/v1/forms/${form.id}/submissions?page=97088126703734480`).set(bearer(owner.token)),
        400,
      ],
      [
        'an export since Feb 30th',
        () => t.http.get(`/v1/forms/${form.id}/submissions/export?since=2024-02-30`).set(bearer(owner.token)),
        400,
      ],
    ];
    for (const [name, send, status] of cases) {
      const res = await send();
      expect(res.status, name).toBe(status);
      expect(res.body.error, name).toEqual(expect.any(String));
    }
    expect(JSON.stringify(await submissionsOf(t, form.id))).toBe(before);
    expect((await t.http.get('/v1/forms?per_page=100').set(bearer(owner.token))).body.meta.total).toBe(formsBefore);
  });

  it('the deepest page allowed is an empty page, not an error', async () => {
    const form = await makePublishedForm(t, owner);
    expect((await t.http.get('/v1/forms?page=1000000&per_page=100').set(bearer(owner.token))).status).toBe(200);
    const deep = await t.http
      .get(`/v1/forms/${form.id}/submissions?page=1000000&per_page=100`)
      .set(bearer(owner.token));
    expect(deep.status).toBe(200);
    expect(deep.body.data).toEqual([]);
  });

  it('real instants are accepted: a leap day, a zone offset, a date without a zone (UTC)', async () => {
    const form = await makePublishedForm(t, owner);
    for (const q of [
      'since=2024-02-29',
      'since=2024-02-29T23:59:59.123456%2B05:30',
      'until=2999-12-31T00:00:00',
      'since=2024-01-01T00:00:00Z',
    ]) {
      const res = await t.http.get(`/v1/forms/${form.id}/submissions?${q}`).set(bearer(owner.token));
      expect(res.status, q).toBe(200);
    }
  });
});
