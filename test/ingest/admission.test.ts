import { describe, expect, it } from 'vitest';
import { makePublishedForm, submissionsOf } from '../support/forms.ts';
import { bearer, makeTeam, startTestApp } from '../support/harness.ts';
import { backfillUniqueKeys } from '../../server/domain/submissions/unique-keys.ts';

/** Who may submit, when and how often: unique fields, entry limits, open and close dates, the status endpoint. */
const t = await startTestApp({ INTAKE_TRUST_PROXY: 'loopback' });
const owner = await makeTeam(t, { plan: 'pro' });

let address = 0;
/** A JSON post from its own client address (the rate limits are per address). */
function post(endpoint: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  address += 1;
  return t.http
    .post(endpoint)
    .set('Accept', 'application/json')
    .set('X-Forwarded-For', `203.0.${Math.floor(address / 250) % 250}.${(address % 250) + 1}`)
    .set(headers)
    .send(body);
}

async function settle(formId: string, settings: Record<string, unknown>) {
  const res = await t.http.put(`/v1/forms/${formId}`).set(bearer(owner.token)).send({ settings });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.settings;
}

const clean = async (formId: string) => (await submissionsOf(t, formId)).filter((s) => s.status !== 'spam');

describe('unique rules', () => {
  it('a repeated e-mail is 409 duplicate_submission with the rule message and fields; nothing is stored', async () => {
    const form = await makePublishedForm(t, owner, {
      settings: { unique: [{ fields: ['email'], normalize: 'email', message: 'You already entered.' }] },
    });
    expect((await post(form.endpoint, { email: 'Ann@Example.com', n: '1' })).status).toBe(201);
    const again = await post(form.endpoint, { email: '  ann@example.COM ', n: '2' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'duplicate_submission', message: 'You already entered.', fields: ['email'] });
    expect((await submissionsOf(t, form.id)).map((s) => s.payload.n)).toEqual(['1']);
    // Another address is not a duplicate.
    expect((await post(form.endpoint, { email: 'bob@example.com' })).status).toBe(201);
  });

  it('text normalization folds case and whitespace; exact does not; all-empty fields are not checked', async () => {
    const form = await makePublishedForm(t, owner, {
      settings: {
        unique: [{ fields: ['first', 'last'] }, { fields: ['code'], normalize: 'exact' }],
      },
    });
    expect((await post(form.endpoint, { first: 'Ann  Lee', last: 'Smith', code: 'A' })).status).toBe(201);
    const repeat = await post(form.endpoint, { first: ' ann lee ', last: 'SMITH', code: 'B' });
    expect(repeat.status).toBe(409);
    expect(repeat.body.fields).toEqual(['first', 'last']);
    expect(repeat.body.message).toBe('This has already been submitted.');
    expect((await post(form.endpoint, { first: 'Zed', code: 'a' })).status).toBe(201);
    expect((await post(form.endpoint, { first: 'Yan', code: 'A' })).status).toBe(409);
    // Neither rule applies to a post without its fields.
    expect((await post(form.endpoint, { other: 'x' })).status).toBe(201);
    expect((await post(form.endpoint, { other: 'y' })).status).toBe(201);
  });

  it('20 parallel posts with one e-mail: exactly 1 stored, 19 answered 409', async () => {
    const form = await makePublishedForm(t, owner, {
      settings: { unique: [{ fields: ['email'], normalize: 'email' }] },
    });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(form.endpoint, { email: 'same@example.com', i: String(i) })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array(19).fill(409)]);
    expect(await clean(form.id)).toHaveLength(1);
  });

  it('deleting, or marking spam, frees the values; marking not spam holds them again', async () => {
    const form = await makePublishedForm(t, owner, {
      settings: { unique: [{ fields: ['email'], normalize: 'email' }] },
    });
    const first = await post(form.endpoint, { email: 'a@example.com' });
    const url = `/v1/forms/${form.id}/submissions/${first.body.id}`;
    expect((await t.http.put(url).set(bearer(owner.token)).send({ status: 'spam' })).status).toBe(200);
    const second = await post(form.endpoint, { email: 'a@example.com' });
    expect(second.status).toBe(201);
    expect(
      (await t.http.delete(`/v1/forms/${form.id}/submissions/${second.body.id}`).set(bearer(owner.token))).status,
    ).toBe(200);
    // The first is not spam again: it holds its values again (nobody else holds them now).
    expect((await t.http.put(url).set(bearer(owner.token)).send({ status: 'received' })).status).toBe(200);
    expect((await post(form.endpoint, { email: 'a@example.com' })).status).toBe(409);
  });

  it('posts filed as spam hold no values', async () => {
    const form = await makePublishedForm(t, owner, { settings: { unique: [{ fields: ['email'] }] } });
    expect((await post(form.endpoint, { email: 'x@example.com', _gotcha: 'bot' })).status).toBe(201);
    expect((await post(form.endpoint, { email: 'x@example.com' })).status).toBe(201);
    expect((await submissionsOf(t, form.id)).map((s) => s.status)).toEqual(['spam', 'received']);
  });

  it('the values are stored only as keyed digests', async () => {
    const form = await makePublishedForm(t, owner, { settings: { unique: [{ fields: ['email'] }] } });
    await post(form.endpoint, { email: 'secret-value@example.com' });
    const { rows } = await t.ctx.db.query<Record<string, unknown>>(
      'select k.* from submission_unique_keys k join submissions s on s.id = k.submission_id and s.team_id = k.team_id where s.form_id = $1',
      [form.id],
    );
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toMatch(/secret-value/i);
  });

  it('a window: values held longer than window_days are free again', async () => {
    const form = await makePublishedForm(t, owner, { settings: { unique: [{ fields: ['email'], window_days: 1 }] } });
    await post(form.endpoint, { email: 'w@example.com' });
    expect((await post(form.endpoint, { email: 'w@example.com' })).status).toBe(409);
    await t.ctx.db.query(
      `update submission_unique_keys set created_at = now() - interval '25 hours'
        where submission_id in (select id from submissions where form_id = $1)`,
      [form.id],
    );
    expect((await post(form.endpoint, { email: 'w@example.com' })).status).toBe(201);
    expect((await post(form.endpoint, { email: 'w@example.com' })).status).toBe(409);
  });

  it('a rule added later covers the clean submissions kept before it (its backfill job)', async () => {
    const form = await makePublishedForm(t, owner);
    await post(form.endpoint, { email: 'old@example.com' });
    await post(form.endpoint, { email: 'old@example.com' });
    await post(form.endpoint, { email: 'spam@example.com', _gotcha: 'bot' });
    await settle(form.id, { unique: [{ fields: ['email'], normalize: 'email' }] });
    const { rows } = await t.ctx.db.query(
      `select 1 from pgboss.job where name = 'unique-keys-backfill' and data->>'formId' = $1`,
      [form.id],
    );
    expect(rows).toHaveLength(1);
    // Changing only the message adds no rule: no second backfill.
    await settle(form.id, { unique: [{ fields: ['email'], normalize: 'email', message: 'Once.' }] });
    expect((await t.ctx.db.query(`select 1 from pgboss.job where data->>'formId' = $1`, [form.id])).rows).toHaveLength(
      1,
    );
    expect(await backfillUniqueKeys(t.ctx, form.id)).toEqual({ submissions: 2 });
    const again = await post(form.endpoint, { email: 'OLD@example.com' });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('Once.');
    expect((await post(form.endpoint, { email: 'spam@example.com' })).status).toBe(201);
  });

  it('an Idempotency-Key replay of the first post still gets the first answer', async () => {
    const form = await makePublishedForm(t, owner, { settings: { unique: [{ fields: ['email'] }] } });
    const first = await post(form.endpoint, { email: 'i@example.com' }, { 'Idempotency-Key': 'k-1' });
    const replay = await post(form.endpoint, { email: 'i@example.com' }, { 'Idempotency-Key': 'k-1' });
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(first.body.id);
  });

  it('concurrent posts with one Idempotency-Key and the same values: every one answers the first id', async () => {
    const form = await makePublishedForm(t, owner, { settings: { unique: [{ fields: ['email'] }] } });
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => post(form.endpoint, { email: 'k@example.com' }, { 'Idempotency-Key': 'same' })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await submissionsOf(t, form.id)).toHaveLength(1);
  });

  it('a browser is shown a 409 page with the message', async () => {
    const form = await makePublishedForm(t, owner, {
      settings: { unique: [{ fields: ['email'], message: 'One entry per person <3' }] },
    });
    await post(form.endpoint, { email: 'b@example.com' });
    const res = await t.http.post(form.endpoint).set('Accept', 'text/html').type('form').send('email=b%40example.com');
    expect(res.status).toBe(409);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('One entry per person &lt;3');
  });
});

describe('entry limits', () => {
  it('a limit of 5 and 30 parallel posts from distinct addresses: exactly 5 stored, 25 answered 403 limit_reached', async () => {
    const form = await makePublishedForm(t, owner, { settings: { max_submissions: 5 } });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => post(form.endpoint, { i: String(i) })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(5);
    const refused = answers.filter((a) => a.status === 403);
    expect(refused).toHaveLength(25);
    expect(refused[0]!.body).toMatchObject({ error: 'form_closed', reason: 'limit_reached' });
    expect(await clean(form.id)).toHaveLength(5);
    const status = await t.http.get(`/f/${form.id}/status`);
    expect(status.body).toEqual({
      open: false,
      reason: 'limit_reached',
      opens_at: null,
      closes_at: null,
      remaining: 0,
    });
  });

  it('spam does not count; deleting frees a place; not-spam counts again (never refused)', async () => {
    const form = await makePublishedForm(t, owner, { settings: { max_submissions: 2 } });
    expect((await post(form.endpoint, { a: '1', _gotcha: 'bot' })).status).toBe(201);
    const one = await post(form.endpoint, { a: '1' });
    await post(form.endpoint, { a: '2' });
    expect((await post(form.endpoint, { a: '3' })).status).toBe(403);
    await t.http.delete(`/v1/forms/${form.id}/submissions/${one.body.id}`).set(bearer(owner.token));
    expect((await t.http.get(`/f/${form.id}/status`)).body.remaining).toBe(1);
    const three = await post(form.endpoint, { a: '3' });
    expect(three.status).toBe(201);
    const spam = (await submissionsOf(t, form.id)).find((s) => s.status === 'spam')!;
    const back = await t.http
      .put(`/v1/forms/${form.id}/submissions/${spam.id}`)
      .set(bearer(owner.token))
      .send({ status: 'received' });
    expect(back.status).toBe(200);
    expect(await clean(form.id)).toHaveLength(3);
    expect((await t.http.get(`/f/${form.id}/status`)).body).toMatchObject({ open: false, remaining: 0 });
  });

  it('a browser is redirected to closed_redirect_url, or shown the closed message', async () => {
    const form = await makePublishedForm(t, owner, {
      settings: { max_submissions: 1, closed_message: 'Entries are closed, thanks!' },
    });
    await post(form.endpoint, { a: '1' });
    const page = await t.http.post(form.endpoint).set('Accept', 'text/html').type('form').send('a=2');
    expect(page.status).toBe(403);
    expect(page.text).toContain('Entries are closed, thanks!');
    await settle(form.id, { closed_redirect_url: 'https://example.com/closed' });
    const redirected = await t.http.post(form.endpoint).set('Accept', 'text/html').type('form').send('a=2');
    expect(redirected.status).toBe(303);
    expect(redirected.headers.location).toBe('https://example.com/closed');
    const json = await post(form.endpoint, { a: '2' });
    expect(json.body).toMatchObject({ error: 'form_closed', message: 'Entries are closed, thanks!' });
  });
});

describe('open and close dates', () => {
  it('before opens_at: not_yet_open; from closes_at: closed; status says so', async () => {
    const form = await makePublishedForm(t, owner);
    const soon = new Date(Date.now() + 3_600_000).toISOString();
    const settings = await settle(form.id, { opens_at: soon });
    expect(settings.opens_at).toBe(soon);
    const early = await post(form.endpoint, { a: '1' });
    expect(early.status).toBe(403);
    expect(early.body).toMatchObject({ error: 'form_closed', reason: 'not_yet_open', opens_at: soon, closes_at: null });
    expect((await t.http.get(`/f/${form.id}/status`)).body).toEqual({
      open: false,
      reason: 'not_yet_open',
      opens_at: soon,
      closes_at: null,
      remaining: null,
    });
    const past = new Date(Date.now() - 3_600_000).toISOString();
    await settle(form.id, { opens_at: new Date(Date.now() - 7_200_000).toISOString(), closes_at: past });
    expect((await post(form.endpoint, { a: '1' })).body.reason).toBe('closed');
    await settle(form.id, { closes_at: null });
    expect((await post(form.endpoint, { a: '1' })).status).toBe(201);
    expect((await t.http.get(`/f/${form.id}/status`)).body).toMatchObject({ open: true, reason: null });
    expect(await submissionsOf(t, form.id)).toHaveLength(1);
  });

  it('the status endpoint answers CORS for the origins the form allows, and 404 for no such form', async () => {
    const form = await makePublishedForm(t, owner, { settings: { allowed_origins: ['https://site.example'] } });
    const res = await t.http.get(`/f/${form.id}/status`).set('Origin', 'https://site.example');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://site.example');
    const other = await t.http.get(`/f/${form.id}/status`).set('Origin', 'https://evil.example');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect((await t.http.get('/f/frm_00000000000000000000000000/status')).status).toBe(404);
  });
});

describe('bad settings are 400 validation_failed naming the field, and change nothing', () => {
  it.each([
    [{ unique: Array.from({ length: 6 }, () => ({ fields: ['a'] })) }, 'settings.unique'],
    [{ max_submissions: 0 }, 'settings.max_submissions'],
    [{ opens_at: '2030-01-02T00:00:00Z', closes_at: '2030-01-01T00:00:00Z' }, 'settings.closes_at'],
    [{ unique: [{ fields: ['_replyto'] }] }, 'settings.unique.0.fields.0'],
    [{ unique: [{ fields: [] }] }, 'settings.unique.0.fields'],
    [{ closed_redirect_url: 'javascript:alert(1)' }, 'settings.closed_redirect_url'],
    [{ unique: [{ fields: ['a', 'b'] }, { fields: ['b', 'a'], window_days: 3 }] }, 'settings.unique.1'],
  ])('%j', async (settings, path) => {
    const form = await makePublishedForm(t, owner);
    const res = await t.http.put(`/v1/forms/${form.id}`).set(bearer(owner.token)).send({ settings });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
    const after = await t.http.get(`/v1/forms/${form.id}`).set(bearer(owner.token));
    expect(after.body.data.settings).toMatchObject({
      unique: [],
      max_submissions: null,
      opens_at: null,
      closes_at: null,
    });
  });

  it('a unique field the schema does not name', async () => {
    const form = await makePublishedForm(t, owner, { settings: { fields: [{ name: 'email', type: 'email' }] } });
    const res = await t.http
      .put(`/v1/forms/${form.id}`)
      .set(bearer(owner.token))
      .send({ settings: { unique: [{ fields: ['mail'] }] } });
    expect(res.status).toBe(400);
    expect(res.body.details[0]).toMatchObject({ path: 'settings.unique.0.fields.0' });
  });
});
