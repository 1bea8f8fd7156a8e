import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';
import { makePublishedForm, submissionsOf } from '../support/forms.ts';
import { bearer, makeTeam, type TestMember } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';

const t = await startLiveTestApp({ INTAKE_INGEST_RATE_LIMIT: '10000', INTAKE_INGEST_FLOOD_LIMIT: '10000' });

const SCHEMA = [
  { name: 'name', label: 'Your name', type: 'text', required: true, min: 2, max: 40 },
  { name: 'email', label: 'E-mail', type: 'email', required: true },
  { name: 'age', type: 'integer', min: 18, max: 120 },
  { name: 'budget', type: 'number' },
  { name: 'website', type: 'url' },
  { name: 'phone', type: 'tel' },
  { name: 'start', type: 'date' },
  { name: 'call_at', type: 'datetime' },
  { name: 'terms', label: 'Terms', type: 'boolean', required: true },
  { name: 'newsletter', type: 'boolean' },
  { name: 'size', type: 'select', options: ['S', 'M', 'L'] },
  { name: 'topics', type: 'multiselect', options: ['sales', 'support', 'press'], max: 2 },
  { name: 'code', type: 'text', pattern: '[A-Z]{3}-\\d{3}' },
];

async function schemaForm(owner: TestMember, settings: Record<string, unknown> = {}) {
  return makePublishedForm(t, owner, { settings: { fields: SCHEMA, ...settings } });
}

const postJson = (endpoint: string, body: unknown) =>
  t.http.post(endpoint).set('Content-Type', 'application/json').send(JSON.stringify(body));
const postUrlencoded = (endpoint: string, body: string, accept = 'application/json') =>
  t.http.post(endpoint).type('form').set('Accept', accept).send(body);

const GOOD = { name: 'Ada Lovelace', email: 'ada@example.com', terms: 'on' };

describe('a form with a field schema', () => {
  it('refuses a post that breaks it with 422 and every problem per field, storing nothing', async () => {
    const owner = await makeTeam(t);
    const form = await schemaForm(owner);
    const res = await postJson(form.endpoint, {
      name: 'A',
      age: '17',
      budget: 'lots',
      website: 'ftp://x.example',
      phone: 'call me',
      start: '2026-02-30',
      call_at: 'tomorrow',
      size: 'XL',
      topics: ['sales', 'support', 'press'],
      code: 'abc-123',
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'validation_failed',
      message: '12 fields need attention.',
      fields: {
        name: ['Your name must be at least 2 characters.'],
        email: ['E-mail is required.'],
        age: ['age must be at least 18.'],
        budget: ['budget must be a number.'],
        website: ['website must be a web address starting with http:// or https://.'],
        phone: ['phone must be a phone number.'],
        start: ['start must be a date, like 2026-01-31.'],
        call_at: ['call_at must be a date and time, like 2026-01-31T14:30.'],
        terms: ['Terms must be checked.'],
        size: ['size must be one of: S, M, L.'],
        topics: ['Choose at most 2 for topics.'],
        code: ['code is not in the expected format.'],
      },
    });
    expect(await submissionsOf(t, form.id)).toEqual([]);
  });

  it('answers 422 JSON to a form post that asks for JSON', async () => {
    const owner = await makeTeam(t);
    const form = await schemaForm(owner);
    const res = await postUrlencoded(form.endpoint, 'name=Ada&email=nope&terms=on');
    expect(res.status).toBe(422);
    expect(res.body.fields).toEqual({ email: ['E-mail must be an e-mail address, like name@example.com.'] });
    expect(res.body.message).toBe('One field needs attention.');
  });

  it('stores accepted values typed: numbers, booleans, dates; absent optional fields left out', async () => {
    const owner = await makeTeam(t);
    const form = await schemaForm(owner);
    const body = new URLSearchParams({
      name: 'Ada Lovelace',
      email: ' ada@example.com ',
      age: '36',
      budget: '1250.50',
      website: 'https://ada.example',
      phone: '+44 20 7946 0958',
      start: '2026-03-01',
      call_at: '2026-03-02T09:30',
      size: 'M',
      code: 'ABC-123',
    });
    body.append('terms', 'off'); // a hidden field before the checkbox: the last value is the answer
    body.append('terms', 'on');
    body.append('topics', 'sales');
    body.append('topics', 'press');
    expect((await postUrlencoded(form.endpoint, body.toString())).status).toBe(201);
    const [stored] = await submissionsOf(t, form.id);
    expect(stored!.payload).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      age: 36,
      budget: 1250.5,
      website: 'https://ada.example/',
      phone: '+44 20 7946 0958',
      start: '2026-03-01',
      call_at: '2026-03-02T09:30',
      terms: true,
      newsletter: false,
      size: 'M',
      topics: ['sales', 'press'],
      code: 'ABC-123',
    });
    // A zoned date-time is stored as the instant in UTC.
    expect((await postJson(form.endpoint, { ...GOOD, terms: true, call_at: '2026-03-02T09:30:00+02:00' })).status).toBe(
      201,
    );
    const second = (await submissionsOf(t, form.id))[1]!;
    expect(second.payload.call_at).toBe('2026-03-02T07:30:00.000Z');
    expect(second.payload.terms).toBe(true);
    expect(second.payload).not.toHaveProperty('age');
  });

  it('keeps, drops or rejects fields the schema does not name', async () => {
    const owner = await makeTeam(t);
    const keep = await schemaForm(owner);
    const drop = await schemaForm(owner, { unknown_fields: 'drop' });
    const reject = await schemaForm(owner, { unknown_fields: 'reject' });
    const extra = { ...GOOD, utm_source: 'newsletter', _subject: 'Hi' };
    expect((await postJson(keep.endpoint, extra)).status).toBe(201);
    expect((await postJson(drop.endpoint, extra)).status).toBe(201);
    const refused = await postJson(reject.endpoint, extra);
    expect(refused.status).toBe(422);
    // Control fields (`_…`) are never unknown.
    expect(refused.body.fields).toEqual({ utm_source: ['This form has no field named "utm_source".'] });
    expect((await submissionsOf(t, keep.id))[0]!.payload.utm_source).toBe('newsletter');
    expect((await submissionsOf(t, drop.id))[0]!.payload).not.toHaveProperty('utm_source');
    expect(await submissionsOf(t, reject.id)).toEqual([]);
  });

  it('checks file fields: required, how many, which types', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, {
      settings: {
        fields: [
          {
            name: 'cv',
            label: 'CV',
            type: 'file',
            required: true,
            accept: ['application/pdf', 'image/*'],
            max_files: 1,
          },
          { name: 'note', type: 'text' },
        ],
        unknown_fields: 'reject',
      },
    });
    const multipart = () => t.http.post(form.endpoint).set('Accept', 'application/json').field('note', 'hello');
    const missing = await multipart();
    expect(missing.status).toBe(422);
    expect(missing.body.fields).toEqual({ cv: ['CV is required: choose a file.'] });
    const wrongType = await multipart().attach('cv', Buffer.from('MZ…'), {
      filename: 'cv.exe',
      contentType: 'application/x-msdownload',
    });
    expect(wrongType.body.fields).toEqual({ cv: ['CV must be a file of type application/pdf, image/*.'] });
    const two = await multipart()
      .attach('cv', Buffer.from('%PDF-1.7'), { filename: 'a.pdf', contentType: 'application/pdf' })
      .attach('cv', Buffer.from('%PDF-1.7'), { filename: 'b.pdf', contentType: 'application/pdf' });
    expect(two.body.fields).toEqual({ cv: ['CV takes at most 1 file.'] });
    const stray = await multipart()
      .attach('cv', Buffer.from('%PDF-1.7'), { filename: 'a.pdf', contentType: 'application/pdf' })
      .attach('photo', Buffer.from('png'), { filename: 'p.png', contentType: 'image/png' });
    expect(stray.body.fields).toEqual({ photo: ['This form has no field named "photo".'] });
    expect(await submissionsOf(t, form.id)).toEqual([]);
    const ok = await multipart().attach('cv', Buffer.from('\x89PNG'), { filename: 'me.png', contentType: 'image/png' });
    expect(ok.status).toBe(201);
    const { rows } = await t.ctx.db.query<{ field: string; filename: string }>(
      'select field, filename from submission_files where form_id = $1',
      [form.id],
    );
    expect(rows).toEqual([{ field: 'cv', filename: 'me.png' }]);
  });

  it('refuses a schema that cannot work, naming each problem (400)', async () => {
    const owner = await makeTeam(t);
    const res = await t.http
      .post('/v1/forms')
      .set(bearer(owner.token))
      .send({
        name: 'Bad',
        settings: {
          fields: [
            { name: 'a', type: 'select' },
            { name: 'a', type: 'text', pattern: '(\\w)\\1' },
            { name: '_b', type: 'date', min: 1 },
            { name: 'c', type: 'text', min: 5, max: 2, accept: ['image/png'] },
            { name: 'cf-turnstile-response', type: 'text' },
          ],
        },
      });
    expect(res.status).toBe(400);
    const paths = (res.body.details as Array<{ path: string }>).map((d) => d.path);
    expect(paths).toEqual([
      'settings.fields.0.options',
      'settings.fields.1.name',
      'settings.fields.1.pattern',
      'settings.fields.2.name',
      'settings.fields.2.min',
      'settings.fields.3.min',
      'settings.fields.3',
      'settings.fields.4.name',
    ]);
    const unknownType = await t.http
      .post('/v1/forms')
      .set(bearer(owner.token))
      .send({ name: 'Bad', settings: { fields: [{ name: 'x', type: 'color' }] } });
    expect(unknownType.status).toBe(400);
  });

  it("reads only posted values: a field named like an Object method is not Object's", async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, {
      settings: {
        fields: [
          { name: 'constructor', type: 'text' },
          { name: 'toString', type: 'text', required: true },
        ],
      },
    });
    const missing = await postJson(form.endpoint, {});
    expect(missing.body.fields).toEqual({ toString: ['toString is required.'] });
    expect((await postJson(form.endpoint, { toString: 'x' })).status).toBe(201);
    expect((await submissionsOf(t, form.id))[0]!.payload).toEqual({ toString: 'x' });
  });

  it('a pattern runs in linear time on a hostile value', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, {
      settings: { fields: [{ name: 'x', type: 'text', pattern: '(a+)+$' }] },
    });
    const started = performance.now();
    const res = await postJson(form.endpoint, { x: `${'a'.repeat(30_000)}!` });
    expect(res.status).toBe(422);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('changing the schema never rewrites stored submissions', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    expect((await postJson(form.endpoint, { age: 'forty', extra: 'x' })).status).toBe(201);
    // What was stored: its values and their metadata. (Its status may move on meanwhile: another test file's
    // worker on the same database may process it, which a schema change has nothing to do with.)
    const stored = async () =>
      (await submissionsOf(t, form.id)).map(({ id, payload, metadata }) => ({ id, payload, metadata }));
    const before = await stored();
    const put = await t.http
      .put(`/v1/forms/${form.id}`)
      .set(bearer(owner.token))
      .send({ settings: { fields: [{ name: 'age', type: 'integer', required: true }], unknown_fields: 'reject' } });
    expect(put.status).toBe(200);
    expect(put.body.data.settings.fields).toEqual([{ name: 'age', type: 'integer', required: true }]);
    expect(await stored()).toEqual(before);
    expect(before).toEqual([expect.objectContaining({ payload: { age: 'forty', extra: 'x' } })]);
    expect((await postJson(form.endpoint, { age: 'forty' })).status).toBe(422);
  });
});

describe('the CSV export of a form with a schema', () => {
  it("uses the schema's order and labels, then the other learned names", async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    // Learned first-seen order: message, email, extra.
    expect((await postJson(form.endpoint, { message: 'first', email: 'a@example.com', extra: 'e' })).status).toBe(201);
    await t.http
      .put(`/v1/forms/${form.id}`)
      .set(bearer(owner.token))
      .send({
        settings: {
          fields: [
            { name: 'email', label: 'E-mail', type: 'email' },
            { name: 'count', label: 'How many', type: 'integer' },
            { name: 'message', type: 'text' },
            { name: 'cv', type: 'file' },
          ],
        },
      });
    expect((await postJson(form.endpoint, { message: 'second', email: 'b@example.com', count: '3' })).status).toBe(201);
    const res = await t.http
      .get(`/v1/forms/${form.id}/submissions/export?format=csv`)
      .set(bearer(owner.token))
      .buffer(true);
    expect(res.status).toBe(200);
    const [header, first, second] = res.text.trim().split('\n');
    expect(header).toBe(
      'id,received_at,status,category,score,E-mail,How many,message,extra,_files,_tags,_stage,_assignee,_rules',
    );
    expect(first!.split(',').slice(5)).toEqual(['a@example.com', '', 'first', 'e', '', '', 'new', '', '']);
    expect(second!.split(',').slice(5)).toEqual(['b@example.com', '3', 'second', '', '', '', 'new', '', '']);
  });
});

describe('the suggested schema', () => {
  it('proposes types and required-ness from the last submissions', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    for (let i = 0; i < 24; i++) {
      const body: Record<string, unknown> = {
        email: `p${i}@example.com`,
        seats: String(i + 1),
        plan: ['basic', 'pro', 'team'][i % 3],
        start: `2026-01-${String((i % 28) + 1).padStart(2, '0')}`,
        agree: 'true',
        message: `Message number ${i} with its own words`,
        site: `https://s${i}.example`,
      };
      if (i % 2) body.note = 'sometimes';
      expect((await postJson(form.endpoint, body)).status).toBe(201);
    }
    expect((await postJson(form.endpoint, { email: 'bot@example.com', _gotcha: 'x', weird: '1' })).status).toBe(201); // spam: not read
    const res = await t.http.get(`/v1/forms/${form.id}/schema/suggested`).set(bearer(owner.token));
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ sampled: 24 });
    expect(res.body.data).toEqual({
      unknown_fields: 'keep',
      fields: [
        { name: 'email', type: 'email', required: true },
        { name: 'seats', type: 'integer', required: true },
        { name: 'plan', type: 'select', options: ['basic', 'pro', 'team'], required: true },
        { name: 'start', type: 'date', required: true },
        { name: 'agree', type: 'boolean', required: true },
        { name: 'message', type: 'text', required: true },
        { name: 'site', type: 'url', required: true },
        { name: 'note', type: 'text', required: false },
      ],
    });
    // The proposal is a schema the form takes as it is.
    const put = await t.http
      .put(`/v1/forms/${form.id}`)
      .set(bearer(owner.token))
      .send({ settings: { fields: res.body.data.fields } });
    expect(put.status).toBe(200);
    const other = await makeTeam(t);
    expect((await t.http.get(`/v1/forms/${form.id}/schema/suggested`).set(bearer(other.token))).status).toBe(404);
  });
});

describe('a browser posting a form that breaks the schema', () => {
  it(
    'shows a page listing the problems in plain words, and Back keeps what was typed',
    { timeout: 60_000 },
    async () => {
      const owner = await makeTeam(t);
      const form = await schemaForm(owner);
      // The site's own page, served from another origin, posting straight to Intake.
      const site = http.createServer((_req, res) => {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.end(`<!doctype html><html><body><form method="post" action="${t.baseUrl}${form.endpoint}">
        <input name="name" value=""><input name="email"><input name="age"><input type="checkbox" name="terms">
        <button type="submit">Send</button></form></body></html>`);
      });
      site.listen(0, '127.0.0.1');
      await once(site, 'listening');
      afterAll(() => new Promise<void>((r) => site.close(() => r())));
      const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/contact`;

      const browser = await launchChromium();
      try {
        const page = await browser.context.newPage();
        await page.goto(siteUrl);
        await page.fill('input[name=name]', 'Ada Lovelace');
        await page.fill('input[name=email]', 'ada-at-example.com');
        await page.fill('input[name=age]', '12');
        const [response] = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
        expect(response!.status()).toBe(422);
        expect(await page.title()).toBe('Please check the form');
        const items = await page.locator('li').allTextContents();
        expect(items).toEqual([
          'E-mail must be an e-mail address, like name@example.com.',
          'age must be at least 18.',
          'Terms must be checked.',
        ]);
        // Browsers send only the origin as Referer across sites (strict-origin-when-cross-origin): the link goes there.
        expect(await page.locator('main a').getAttribute('href')).toBe(`${new URL(siteUrl).origin}/`);
        expect(await page.locator('main a').textContent()).toBe('← Back to the form');
        expect(await submissionsOf(t, form.id)).toEqual([]);

        await page.goBack();
        expect(await page.inputValue('input[name=name]')).toBe('Ada Lovelace');
        await page.fill('input[name=email]', 'ada@example.com');
        await page.fill('input[name=age]', '36');
        await page.check('input[name=terms]');
        await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
        expect(await page.locator('h1').textContent()).toBe('Thank you!');
        const [stored] = await submissionsOf(t, form.id);
        expect(stored!.payload).toMatchObject({ name: 'Ada Lovelace', email: 'ada@example.com', age: 36, terms: true });
      } finally {
        await browser.close();
      }
    },
  );
});
