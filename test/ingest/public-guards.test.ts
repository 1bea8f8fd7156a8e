import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { PUBLIC_POST_LIMITS } from '../../contract/public-endpoint.ts';
import { actionLink } from '../../server/domain/notifications/links.ts';
import { fileLink } from '../../server/domain/submissions/file-links.ts';
import { filesOf, makePublishedForm, submissionsOf } from '../support/forms.ts';
import { bearer, makeTeam } from '../support/harness.ts';
import { jobsFor, postForm, startProcessingApp, submission } from '../support/processing.ts';
import { startSmtpTestServer } from '../support/smtp.ts';
import { eventually } from '../support/worker-process.ts';

/**
 * The guards of the endpoints anyone can reach without a token (issue 25): malformed paths, the values
 * cap of every kind of public post, `/d/` file links that tell nothing, e-mail actions on a form in the trash.
 */
const smtp = await startSmtpTestServer();
afterAll(() => smtp.close());
const t = await startProcessingApp({
  SMTP_URL: smtp.url,
  INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true',
  INTAKE_INGEST_RATE_LIMIT: '10000',
  INTAKE_INGEST_FLOOD_LIMIT: '10000',
});
const owner = await makeTeam(t, { plan: 'team' });
const form = await makePublishedForm(t, owner);

describe('a malformed percent-escape in the path is 400 validation_failed on every route, not 500', () => {
  const bad = '%FF%FE';
  const routes: Array<[string, string]> = [
    ['get', `/v1/forms/${bad}/submissions`],
    ['get', `/v1/forms/${bad}`],
    ['put', `/v1/forms/${form.id}/submissions/${bad}`],
    ['delete', `/v1/tokens/%E0%A4%A`],
    ['get', `/v1/forms/${form.id}/submissions/subm_x/files/%`],
    ['post', `/mcp/${bad}`],
    ['get', `/mcp${bad}`],
    ['post', `/f/${bad}`],
    ['options', `/f/${bad}`],
    ['get', `/f/${bad}/thanks`],
    ['get', `/f/${form.id}/thanks/${bad}`],
    ['get', `/d/${bad}?expires=1&signature=00`],
    ['get', `/v/${bad}`],
    ['get', `/a/${bad}`],
    ['post', `/a/${bad}`],
    ['get', `/u/${bad}`],
    ['post', `/u/${bad}`],
    ['get', `/intake.js${bad}`],
    ['get', `/${bad}/intake.js`],
  ];
  for (const [method, path] of routes) {
    for (const auth of [true, false]) {
      it(`${method.toUpperCase()} ${path}${auth ? ' (with a token)' : ''}`, async () => {
        let req = (t.http as unknown as Record<string, (p: string) => import('supertest').Test>)[method]!(path);
        if (auth) req = req.set(bearer(owner.token));
        const res = await req;
        expect(res.status).toBe(400);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body).toMatchObject({
          error: 'validation_failed',
          message: expect.any(String),
          details: [{ in: 'path', path: '(path)', message: expect.any(String) }],
        });
        expect(res.headers['x-request-id']).toBeTruthy();
      });
    }
  }

  it('well-formed escapes still route (a percent-encoded id is the id)', async () => {
    const encoded = form.id.replace('frm_', '%66rm_');
    expect((await t.http.get(`/v1/forms/${encoded}`).set(bearer(owner.token))).status).toBe(200);
    expect((await t.http.get(`/f/${encoded}/thanks`)).status).toBe(200);
  });
});

describe('urlencoded and multipart posts obey the values and field caps of JSON', () => {
  const { values, fields } = PUBLIC_POST_LIMITS;
  const json = (endpoint: string, body: unknown) =>
    t.http
      .post(endpoint)
      .set('Accept', 'application/json')
      .send(body as object);
  const urlencoded = (endpoint: string, body: string) =>
    t.http.post(endpoint).set('Accept', 'application/json').type('form').send(body);
  function multipart(endpoint: string, parts: Array<[string, string]>) {
    let req = t.http.post(endpoint).set('Accept', 'application/json');
    for (const [k, v] of parts) req = req.field(k, v);
    return req;
  }

  /** What JSON answers past the values cap: every other kind must answer byte for byte the same. */
  async function jsonRefusal() {
    const form = await makePublishedForm(t, owner);
    const res = await json(form.endpoint, { list: Array.from({ length: values + 500 }, (_, i) => i) });
    expect(res.status).toBe(413);
    expect(res.body.error).toBe('payload_too_large');
    return res.text;
  }

  it(`200,000 repeated values of one urlencoded field: 413 as JSON answers, fast, nothing stored`, async () => {
    const expected = await jsonRefusal();
    const form = await makePublishedForm(t, owner);
    const body = 't=x&'.repeat(200_000); // 800 KB, within the 1 MB body limit
    const before = process.threadCpuUsage();
    const started = performance.now();
    const res = await urlencoded(form.endpoint, body);
    const ms = performance.now() - started;
    const cpu = process.threadCpuUsage(before);
    expect(res.status).toBe(413);
    expect(res.text).toBe(expected);
    expect(ms).toBeLessThan(1000);
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(300);
    expect(await submissionsOf(t, form.id)).toEqual([]);
  });

  it(`urlencoded: ${values} values are taken, ${values + 1} are refused; ${fields + 1} distinct names are refused`, async () => {
    const expected = await jsonRefusal();
    const form = await makePublishedForm(t, owner);
    const at = await urlencoded(form.endpoint, Array.from({ length: values }, (_, i) => `tag=${i}`).join('&'));
    expect(at.status).toBe(201);
    expect((await submissionsOf(t, form.id))[0]!.payload.tag).toHaveLength(values);
    const over = await urlencoded(
      form.endpoint,
      Array.from({ length: values + 1 }, (_, i) => `t${i % 10}=${i}`).join('&'),
    );
    expect(over.status).toBe(413);
    expect(over.text).toBe(expected);
    const names = await urlencoded(form.endpoint, Array.from({ length: fields + 1 }, (_, i) => `f${i}=x`).join('&'));
    expect(names.status).toBe(413);
    expect(await submissionsOf(t, form.id)).toHaveLength(1);
  });

  it(`multipart: ${values} values are taken, ${values + 1} (or 5,000) refused as JSON is; ${fields + 1} distinct names refused`, async () => {
    const expected = await jsonRefusal();
    const form = await makePublishedForm(t, owner);
    const at = await multipart(
      form.endpoint,
      Array.from({ length: values }, (_, i) => ['tag', String(i)]),
    );
    expect(at.status, at.text).toBe(201);
    expect((await submissionsOf(t, form.id))[0]!.payload.tag).toHaveLength(values);
    for (const n of [values + 1, 5_000]) {
      const over = await multipart(
        form.endpoint,
        Array.from({ length: n }, (_, i) => [`t${i % 10}`, String(i)]),
      );
      expect(over.status).toBe(413);
      expect(over.text).toBe(expected);
    }
    const names = await multipart(
      form.endpoint,
      Array.from({ length: fields + 1 }, (_, i) => [`f${i}`, 'x']),
    );
    expect(names.status).toBe(413);
    expect(names.body.error).toBe('payload_too_large');
    expect(await submissionsOf(t, form.id)).toHaveLength(1);
  });
});

describe('/d/ file links answer one status and body whatever is wrong with them', () => {
  it('bad signature, expired, missing file, trashed form, another scope: byte-identical 404s', async () => {
    const form = await makePublishedForm(t, owner);
    const posted = await t.http
      .post(form.endpoint)
      .set('Accept', 'application/json')
      .attach('cv', Buffer.from('%PDF-1.7'), { filename: 'cv.pdf' });
    expect(posted.status).toBe(201);
    const [file] = await filesOf(t, form.id);
    const key = t.ctx.keys.linkSigning;
    const now = Math.floor(Date.now() / 1000);
    const path = (fileId: string, scope: { teamId: string; formId: string; expires: number }, k = key) => {
      const u = new URL(fileLink('http://intake.test', k, fileId, scope));
      return `${u.pathname}${u.search}`;
    };
    const scope = { teamId: owner.teamId, formId: form.id, expires: now + 3600 };
    const valid = path(file!.id, scope);
    expect((await t.http.get(valid)).status).toBe(302);

    const badSignature = valid.replace(/signature=[0-9a-f]{64}/, `signature=${randomBytes(32).toString('hex')}`);
    const expired = path(file!.id, { ...scope, expires: now - 10 });
    const missing = path('file_01kadc1x3w9cnpjt0v4fq2sg3e', scope); // correctly signed, for a file that does not exist
    const missingBadSignature = `/d/file_01kadc1x3w9cnpjt0v4fq2sg3e?expires=${now + 3600}&signature=${randomBytes(32).toString('hex')}`;
    const otherTeam = path(file!.id, { ...scope, teamId: (await makeTeam(t)).teamId });
    const answers = [];
    for (const p of [badSignature, expired, missing, missingBadSignature, otherTeam]) answers.push(await t.http.get(p));
    await t.http.delete(`/v1/forms/${form.id}`).set(bearer(owner.token)).expect(200);
    answers.push(await t.http.get(valid));

    const first = answers[0]!;
    expect(first.status).toBe(404);
    expect(first.body).toMatchObject({ error: 'not_found' });
    for (const res of answers) {
      expect(res.status).toBe(first.status);
      expect(res.text).toBe(first.text);
      expect(res.headers['content-type']).toBe(first.headers['content-type']);
    }
  });
});

describe('one-click e-mail actions refuse a form in the trash, and an erased one', () => {
  it('"Not spam", "Delete", "Mark as spam" on a trashed form: a page that says why; nothing changed, queued, delivered or sent', async () => {
    const to = `trash-${randomBytes(4).toString('hex')}@example.com`;
    const form = await makePublishedForm(t, owner, {
      name: 'Trash test',
      notification_emails: [to],
      settings: { notify_spam: true },
    });
    const hook = await t.http
      .post(`/v1/forms/${form.id}/webhooks`)
      .set(bearer(owner.token))
      .send({ label: 'every', url: 'https://127.0.0.1:9/hook' });
    expect(hook.status, hook.text).toBe(201);
    const id = await postForm(t, form.endpoint, { name: 'Maybe a bot', message: 'hello there', _gotcha: 'filled' });
    // The spam is processed (its e-mail sent; spam reaches no webhook) before anything is counted.
    await eventually(
      async () => smtp.messages.filter((m) => m.envelope.to.includes(to)).length,
      (n) => n === 1,
    );
    const deliveries = async () =>
      (await t.ctx.db.query<{ n: number }>('select count(*)::int as n from deliveries where submission_id = $1', [id]))
        .rows[0]!.n;
    const before = {
      status: (await submission(t, id)).status,
      jobs: (await jobsFor(t, id)).length,
      deliveries: await deliveries(),
      mails: smtp.messages.length,
    };
    expect(before.status).toBe('spam');

    await t.http.delete(`/v1/forms/${form.id}`).set(bearer(owner.token)).expect(200);
    const local = (url: string) => url.replace('http://intake.test', '');
    for (const action of ['not_spam', 'delete', 'spam'] as const) {
      const link = local(actionLink(t.ctx, { id, teamId: owner.teamId }, action).url);
      for (const method of ['get', 'post'] as const) {
        const res = await t.http[method](link);
        expect(res.status, `${method} ${action}`).toBe(409);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(res.text).toContain('is in the trash: restore it to act on its submissions. Nothing was changed.');
        expect(res.text).toContain('Trash test');
        expect(res.text).not.toContain('<form method="post">');
      }
    }
    await new Promise((r) => setTimeout(r, 1500)); // time for a worker to act on anything queued
    const after = {
      status: (await submission(t, id)).status,
      jobs: (await jobsFor(t, id)).length,
      deliveries: await deliveries(),
      mails: smtp.messages.length,
    };
    expect(after).toEqual(before);
    const events = await t.ctx.db.query('select 1 from submission_events where submission_id = $1 and action like $2', [
      id,
      'email:%',
    ]);
    expect(events.rowCount).toBe(0);

    // Restored, the same link acts again; erased, it names what is gone.
    await t.http.post(`/v1/forms/${form.id}/restore`).set(bearer(owner.token)).expect(200);
    const notSpam = local(actionLink(t.ctx, { id, teamId: owner.teamId }, 'not_spam').url);
    expect((await t.http.post(notSpam)).text).toContain('moved back to the inbox');
    await eventually(deliveries, (n) => n === 1); // what the refusals spared: a delivery (and an e-mail)
    await t.http.delete(`/v1/forms/${form.id}`).set(bearer(owner.token)).expect(200);
    await t.http.delete(`/v1/forms/${form.id}/force`).set(bearer(owner.token)).expect(200);
    const erased = await t.http.post(notSpam);
    expect(erased.status).toBe(404);
    expect(erased.text).toContain('This submission no longer exists: it, or its form, was deleted.');
  });
});
