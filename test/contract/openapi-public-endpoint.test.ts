import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv } from 'ajv';
import type { Response } from 'supertest';
import { describe, expect, it } from 'vitest';
import { currentPeriod } from '../../server/domain/accounts/plans.ts';
import { makePublishedForm, submissionsOf } from '../support/forms.ts';
import { makeTeam, startTestApp } from '../support/harness.ts';

/**
 * openapi.json describes `POST /f/{form}` exactly as it behaves: real posts to a real server provoke each
 * documented answer, and every answer must be a status the document lists for the operation, in a media
 * type it lists, with a JSON body valid against the schema it declares (checked by Ajv, a JSON Schema
 * validator independent of the zod schemas the document was generated from).
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking a parsed document

const doc = (await SwaggerParser.dereference(
  JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')),
)) as Json;
const publicPath = doc.paths['/f/{form}'] as Json;
const ajv = new Ajv({ allErrors: true });
const t = await startTestApp({ INTAKE_INGEST_RATE_LIMIT: '10000', INTAKE_INGEST_FLOOD_LIMIT: '10000' });
// A second app whose flood limit is reached at the third post from one address.
const flood = await startTestApp({ INTAKE_INGEST_RATE_LIMIT: '10000', INTAKE_INGEST_FLOOD_LIMIT: '2' });

const seen: Record<string, Set<string>> = { post: new Set(), options: new Set() };

/** Fails unless the answer is one openapi.json declares for this operation, body and headers included. */
function expectDocumented(res: Response, method: 'post' | 'options' = 'post'): void {
  const status = String(res.status);
  const where = `${method.toUpperCase()} /f/{form} → ${status} ${JSON.stringify(res.body)}`;
  const declared = (publicPath[method] as Json).responses[status] as Json | undefined;
  expect(declared, `${where}: status not in openapi.json`).toBeDefined();
  for (const header of Object.keys(declared!.headers ?? {})) {
    // Only the CORS headers depend on the request (an allowed Origin); every other declared header is always sent.
    if (!header.startsWith('Access-Control-'))
      expect(res.headers[header.toLowerCase()], `${where}: header ${header}`).toBeDefined();
  }
  if (!declared!.content) {
    // A redirect's short text (express writes one) and a 204 carry nothing a client reads.
    expect(res.status === 204 || res.status === 303, `${where}: body without a declared content`).toBe(true);
    seen[method]!.add(status);
    return;
  }
  const mediaType = String(res.headers['content-type'] ?? '').split(';')[0]!;
  expect(Object.keys(declared!.content), `${where}: media type`).toContain(mediaType);
  if (mediaType === 'application/json') {
    const validate = ajv.compile(declared!.content[mediaType].schema);
    expect(validate(res.body), `${where}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  }
  seen[method]!.add(status);
}

const json = { Accept: 'application/json' };

describe('POST /f/{form} answers as openapi.json says', () => {
  it('201 for JSON clients (JSON body, or Accept: application/json), files too; a repeated Idempotency-Key answers the first id', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const bodyJson = await t.http.post(form.endpoint).send({ name: 'Ada', _subject: 'Hi', tags: ['a', 'b'] });
    expect(bodyJson.status).toBe(201);
    expectDocumented(bodyJson);
    const urlencoded = await t.http.post(form.endpoint).set(json).type('form').send('name=Ada&name=Lovelace&_gotcha=');
    expectDocumented(urlencoded);
    const multipart = await t.http
      .post(form.endpoint)
      .set(json)
      .field('name', 'Ada')
      .attach('cv', Buffer.from('%PDF-1.4'), { filename: 'cv.pdf' });
    expect(multipart.status).toBe(201);
    expectDocumented(multipart);

    const first = await t.http
      .post(form.endpoint)
      .set({ ...json, 'Idempotency-Key': 'order-42' })
      .type('form')
      .send('a=1');
    const again = await t.http
      .post(form.endpoint)
      .set({ ...json, 'Idempotency-Key': 'order-42' })
      .type('form')
      .send('a=2');
    expectDocumented(again);
    expect(again.body.id).toBe(first.body.id);
  });

  it('303 to the thank-you page for a browser', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const res = await t.http.post(form.endpoint).set('Accept', 'text/html').type('form').send('name=Ada');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/f/${form.id}/thanks`);
    expectDocumented(res);
  });

  it('400 for malformed JSON, a body that is not one object, an over-long field name or Idempotency-Key', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const malformed = await t.http.post(form.endpoint).type('json').send('{"name":');
    expect(malformed.body.error).toBe('invalid_json');
    expectDocumented(malformed);
    const list = await t.http.post(form.endpoint).send([1, 2]);
    expect(list.body).toMatchObject({ error: 'validation_failed', details: [{ in: 'body' }] });
    expectDocumented(list);
    const longName = await t.http
      .post(form.endpoint)
      .set(json)
      .type('form')
      .send(`${'n'.repeat(65)}=1`);
    expect(longName.status).toBe(400);
    expectDocumented(longName);
    const longKey = await t.http
      .post(form.endpoint)
      .set({ ...json, 'Idempotency-Key': 'k'.repeat(256) })
      .type('form')
      .send('a=1');
    expect(longKey.body).toMatchObject({
      error: 'validation_failed',
      details: [{ in: 'header', path: 'idempotency-key' }],
    });
    expectDocumented(longKey);
  });

  it('402 for a spent monthly quota and for files on a plan without uploads', async () => {
    const owner = await makeTeam(t, { plan: 'free' });
    const form = await makePublishedForm(t, owner);
    const file = await t.http
      .post(form.endpoint)
      .set(json)
      .field('a', '1')
      .attach('f', Buffer.from('data'), { filename: 'a.txt' });
    expect(file.body.error).toBe('plan_limit_reached');
    expectDocumented(file);
    await t.ctx.db.query(
      'insert into usage_counters (team_id, period_start, shard, submissions) values ($1, $2, 0, 50)',
      [owner.teamId, currentPeriod().start],
    );
    const over = await t.http.post(form.endpoint).set(json).type('form').send('a=1');
    expect(over.body.error).toBe('quota_exceeded');
    expectDocumented(over);
  });

  it('403 for an Origin the form does not allow', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, { settings: { allowed_origins: ['https://site.example'] } });
    const res = await t.http
      .post(form.endpoint)
      .set({ ...json, Origin: 'https://other.example' })
      .type('form')
      .send('a=1');
    expect(res.status).toBe(403);
    expectDocumented(res);
    const allowed = await t.http
      .post(form.endpoint)
      .set({ ...json, Origin: 'https://site.example' })
      .type('form')
      .send('a=1');
    expect(allowed.headers['access-control-allow-origin']).toBe('https://site.example');
    expectDocumented(allowed);
  });

  it('404 for a form that takes no posts: JSON, or an HTML page for a browser', async () => {
    const res = await t.http.post('/f/frm_00000000000000000000000000').set(json).type('form').send('a=1');
    expect(res.status).toBe(404);
    expectDocumented(res);
    const page = await t.http.post('/f/not-a-form').set('Accept', 'text/html').type('form').send('a=1');
    expect(page.status).toBe(404);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expectDocumented(page);
  });

  it('413 past the limits (a 1 MB body, 200 fields), storing nothing', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const big = await t.http
      .post(form.endpoint)
      .set(json)
      .type('form')
      .send(`a=${'x'.repeat(1024 * 1024)}`);
    expect(big.status).toBe(413);
    expectDocumented(big);
    const many = await t.http
      .post(form.endpoint)
      .send(Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`f${i}`, 'x'])));
    expect(many.status).toBe(413);
    expectDocumented(many);
    expect(await submissionsOf(t, form.id)).toEqual([]);
  });

  it('415 for another content type', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const res = await t.http
      .post(form.endpoint)
      .set({ ...json, 'Content-Type': 'text/plain' })
      .send('name=Ada');
    expect(res.status).toBe(415);
    expectDocumented(res);
  });

  it('422 for a post the form refuses: field errors, a missing CAPTCHA token, an HTML page for a browser', async () => {
    const owner = await makeTeam(t);
    const schema = await makePublishedForm(t, owner, {
      settings: { fields: [{ name: 'email', type: 'email', required: true }] },
    });
    const fields = await t.http.post(schema.endpoint).send({ email: 'not an address' });
    expect(fields.body).toMatchObject({ error: 'validation_failed', fields: { email: [expect.any(String)] } });
    expectDocumented(fields);
    const page = await t.http.post(schema.endpoint).type('form').send('email=');
    expect(page.status).toBe(422);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expectDocumented(page);

    const captcha = await makePublishedForm(t, owner, {
      settings: { captcha: { provider: 'turnstile', secret_key: '0x0000000000000000000000000000000AA' } },
    });
    const refused = await t.http.post(captcha.endpoint).send({ name: 'Ada' });
    expect(refused.body.error).toBe('captcha_failed');
    expectDocumented(refused);
    expect(await submissionsOf(t, captcha.id)).toEqual([]);
  });

  it('429 with Retry-After past the flood limit', async () => {
    const owner = await makeTeam(flood);
    const form = await makePublishedForm(flood, owner);
    const answers: Response[] = [];
    for (let i = 0; i < 3; i++)
      answers.push(await flood.http.post(form.endpoint).set(json).type('form').send(`a=${i}`));
    expect(answers.map((r) => r.status)).toEqual([201, 201, 429]);
    const limited = answers[2]!;
    expect(limited.headers['retry-after']).toBe(String(limited.body.retry_after));
    expectDocumented(limited);
  });

  it('400 for a malformed percent-escape in the path, POST and OPTIONS alike', async () => {
    for (const method of ['post', 'options'] as const) {
      const res = await t.http[method]('/f/%FF%FE').set(json);
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([expect.objectContaining({ in: 'path' })]);
      expectDocumented(res, method);
    }
  });

  it('OPTIONS: the CORS preflight (204, with the headers for an allowed origin) and 404', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, { settings: { allowed_origins: ['https://site.example'] } });
    const ok = await t.http.options(form.endpoint).set('Origin', 'https://site.example');
    expect(ok.status).toBe(204);
    expect(ok.headers['access-control-allow-methods']).toBe('POST, OPTIONS');
    expectDocumented(ok, 'options');
    const refused = await t.http.options(form.endpoint).set('Origin', 'https://other.example');
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    expectDocumented(refused, 'options');
    expectDocumented(await t.http.options('/f/frm_00000000000000000000000000'), 'options');
  });

  // 408 (a crawling body) and 503 (Postgres or storage down) are provoked by test/http/slow-clients.test.ts and test/platform/faults.test.ts.
  it('every answer the document lists was provoked above (but 408, 500 and 503: a crawling body, storage failing, an outage)', () => {
    const listed = (method: string) =>
      Object.keys((publicPath[method] as Json).responses).filter((s) => !['408', '500', '503'].includes(s));
    expect([...seen.post!].sort()).toEqual(listed('post'));
    expect([...seen.options!].sort()).toEqual(listed('options'));
  });
});
