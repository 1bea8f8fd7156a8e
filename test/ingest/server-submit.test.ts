import { describe, expect, it } from 'vitest';
import { makePublishedForm, submissionsOf } from '../support/forms.ts';
import { bearer, makeMember, makeTeam, makeToken, startTestApp } from '../support/harness.ts';

/** `POST /v1/forms/{form}/submissions`: a post from the team's own server, through the public endpoint's rules. */
const t = await startTestApp({ INTAKE_SUBMIT_TOKEN_RATE_LIMIT: '40', INTAKE_INGEST_RATE_LIMIT: '3' });
const owner = await makeTeam(t, { plan: 'pro' });

const submit = (formId: string, body: unknown, token = owner.token) =>
  t.http
    .post(`/v1/forms/${formId}/submissions`)
    .set(bearer(token))
    .send(body as object);

describe('server-side submit', () => {
  it('answers 201 with the stored submission, its folder, source api and the token', async () => {
    const form = await makePublishedForm(t, owner);
    const res = await submit(form.id, {
      fields: { name: 'Ann', email: 'ann@example.com', _replyto: 'ann@example.com' },
      client: { ip: '198.51.100.7', user_agent: 'Shop/1.0', referrer: 'https://shop.example/checkout' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toMatchObject({
      form_id: form.id,
      status: 'received',
      spam_reason: null,
      source: 'api',
      api_token_id: owner.tokenId,
      payload: { name: 'Ann', email: 'ann@example.com' },
      metadata: { ip: '198.51.100.7', user_agent: 'Shop/1.0', referrer: 'https://shop.example/checkout' },
    });
    const detail = await t.http.get(`/v1/forms/${form.id}/submissions/${res.body.data.id}`).set(bearer(owner.token));
    expect(detail.body.data).toMatchObject({ source: 'api', api_token_id: owner.tokenId });
    // A post to the public endpoint is `form`.
    const posted = await t.http.post(form.endpoint).set('Accept', 'application/json').send({ a: 1 });
    const shown = await t.http.get(`/v1/forms/${form.id}/submissions/${posted.body.id}`).set(bearer(owner.token));
    expect(shown.body.data).toMatchObject({ source: 'form', api_token_id: null });
  });

  it('has no honeypot or CAPTCHA, and the per-address limits only for an address it names', async () => {
    const form = await makePublishedForm(t, owner);
    // 10 posts with no address: none is rate limited (the public endpoint files the 4th from one address as spam).
    for (let i = 0; i < 10; i++) {
      const res = await submit(form.id, { fields: { i, _gotcha: 'filled by a server, not a bot' } });
      expect(res.body.data.status).toBe('received');
    }
    const named = [];
    for (let i = 0; i < 5; i++) named.push(await submit(form.id, { fields: { i }, client: { ip: '192.0.2.1' } }));
    expect(named.map((r) => r.body.data.spam_reason)).toEqual([null, null, null, 'rate_limited', 'rate_limited']);
  });

  it("runs the form's rules: the field schema (422 per field), unique rules (409), limits (403)", async () => {
    const form = await makePublishedForm(t, owner, {
      settings: {
        fields: [{ name: 'email', type: 'email', required: true }],
        unique: [{ fields: ['email'], normalize: 'email' }],
        max_submissions: 2,
      },
    });
    const bad = await submit(form.id, { fields: { email: 'not an address' } });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toBe('validation_failed');
    expect(Object.keys(bad.body.fields)).toEqual(['email']);
    expect((await submit(form.id, { fields: { email: 'a@example.com' } })).status).toBe(201);
    const again = await submit(form.id, { fields: { email: 'A@example.com' } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'duplicate_submission', fields: ['email'] });
    expect((await submit(form.id, { fields: { email: 'b@example.com' } })).status).toBe(201);
    const full = await submit(form.id, { fields: { email: 'c@example.com' } });
    expect(full.status).toBe(403);
    expect(full.body).toMatchObject({ error: 'form_closed', reason: 'limit_reached' });
    expect(await submissionsOf(t, form.id)).toHaveLength(2);
  });

  it('a repeated Idempotency-Key answers the first submission', async () => {
    const form = await makePublishedForm(t, owner);
    const first = await submit(form.id, { fields: { n: 1 } }).set('Idempotency-Key', 'order-42');
    const again = await submit(form.id, { fields: { n: 2 } }).set('Idempotency-Key', 'order-42');
    expect(again.status).toBe(201);
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(await submissionsOf(t, form.id)).toHaveLength(1);
  });

  it('multipart with files and client parts', async () => {
    const form = await makePublishedForm(t, owner);
    const res = await t.http
      .post(`/v1/forms/${form.id}/submissions`)
      .set(bearer(owner.token))
      .field('name', 'Ann')
      .field('client[ip]', '198.51.100.9')
      .attach('cv', Buffer.from('%PDF-1.4 hello'), { filename: 'cv.pdf', contentType: 'application/pdf' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.payload).toEqual({ name: 'Ann' });
    expect(res.body.data.metadata.ip).toBe('198.51.100.9');
    expect(res.body.data.files).toHaveLength(1);
    expect(res.body.data.files[0]).toMatchObject({ field: 'cv', filename: 'cv.pdf', size: 14 });
    const bad = await t.http
      .post(`/v1/forms/${form.id}/submissions`)
      .set(bearer(owner.token))
      .field('client[ip]', 'not-an-ip')
      .field('name', 'x');
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].path).toBe('client[ip]');
    // Another route does not take multipart.
    const other = await t.http.put(`/v1/forms/${form.id}`).set(bearer(owner.token)).field('name', 'x');
    expect(other.status).toBe(415);
  });

  it('needs submissions:create: viewers cannot hold it, and another team cannot submit', async () => {
    const form = await makePublishedForm(t, owner);
    const viewer = await makeMember(t, owner.teamId, 'viewer');
    expect((await submit(form.id, { fields: { a: 1 } }, viewer.token)).status).toBe(403);
    const { token: reader } = await makeToken(t, owner, ['submissions:read']);
    expect((await submit(form.id, { fields: { a: 1 } }, reader)).status).toBe(403);
    const other = await makeTeam(t);
    expect((await submit(form.id, { fields: { a: 1 } }, other.token)).status).toBe(404);
    const editor = await makeMember(t, owner.teamId, 'editor');
    expect((await submit(form.id, { fields: { a: 1 } }, editor.token)).status).toBe(201);
  });

  it('a draft form is 409 conflict (publish it first), not 404', async () => {
    const created = await t.http.post('/v1/forms').set(bearer(owner.token)).send({ name: 'Draft' });
    const res = await submit(created.body.data.id, { fields: { a: 1 } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'conflict' });
  });

  it('bad bodies are 400 and store nothing', async () => {
    const form = await makePublishedForm(t, owner);
    expect((await submit(form.id, { fields: { a: 1 }, extra: true })).status).toBe(400);
    expect((await submit(form.id, { fields: { a: 1 }, client: { ip: '999.1.1.1' } })).status).toBe(400);
    const deep = await submit(form.id, { fields: { a: { b: { c: { d: { e: { f: 1 } } } } } } });
    expect(deep.status).toBe(400);
    const many = await submit(form.id, {
      fields: Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`f${i}`, i])),
    });
    expect(many.status).toBe(413);
    expect(await submissionsOf(t, form.id)).toHaveLength(0);
  });

  it('a per-token limit answers 429 with Retry-After', async () => {
    const form = await makePublishedForm(t, owner);
    const { token } = await makeToken(t, owner, ['submissions:create']);
    const answers = [];
    for (let i = 0; i < 42; i++) answers.push(await submit(form.id, { fields: { i } }, token));
    expect(answers.slice(0, 40).every((r) => r.status === 201)).toBe(true);
    const refused = answers[41]!;
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body.error).toBe('rate_limited');
  });
});
