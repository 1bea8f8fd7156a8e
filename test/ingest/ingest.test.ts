import { randomBytes } from 'node:crypto';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { currentPeriod } from '../../server/domain/accounts/plans.ts';
import { filesOf, makePublishedForm, readObject, submissionsOf } from '../support/forms.ts';
import { bearer, makeTeam, startTestApp } from '../support/harness.ts';

const t = await startTestApp();
// Many posts from one address (group commit): the per-IP limits out of reach, so each post is judged on its own.
const g = await startTestApp({ INTAKE_INGEST_RATE_LIMIT: '10000', INTAKE_INGEST_FLOOD_LIMIT: '10000' });
const second = await startTestApp({ INTAKE_INGEST_RATE_LIMIT: '10000', INTAKE_INGEST_FLOOD_LIMIT: '10000' });

describe('POST /f/{form}: accepted bodies', () => {
  it('takes an HTML form post, redirects the browser (303) and stores the payload', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const res = await t.http
      .post(form.endpoint)
      .type('form')
      .set('Referer', 'https://site.example/contact')
      .set('User-Agent', 'Mozilla/5.0 test')
      .send(
        'name=Ada+Lovelace&email=ada%40example.com&topic=a&topic=b&message=Hello%20there%20%E2%9C%93&_subject=Hi&_gotcha=',
      );
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(
      `/f/${form.id}/thanks?back=${encodeURIComponent('https://site.example/contact')}`,
    );
    const [s] = await submissionsOf(t, form.id);
    expect(s!.status).toBe('received');
    expect(s!.payload).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      topic: ['a', 'b'],
      message: 'Hello there ✓',
    });
    expect(s!.metadata).toMatchObject({
      user_agent: 'Mozilla/5.0 test',
      referrer: 'https://site.example/contact',
      content_type: 'urlencoded',
      controls: { _subject: 'Hi', _gotcha: '' },
    });
    expect(s!.metadata.ip).toBeTruthy();
    expect(s!.metadata.ip_hash).toMatch(/^[0-9a-f]{32}$/);
    const thanks = await t.http.get(res.headers.location!).set('Referer', 'https://site.example/contact');
    expect(thanks.status).toBe(200);
    expect(thanks.text).toContain('Thank you');
    expect(thanks.text).toContain('href="https://site.example/contact"');
  });

  it("the thank-you page links back only to the visitor's own site", async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const page = (back: string, referer?: string) => {
      const req = t.http.get(`/f/${form.id}/thanks?back=${encodeURIComponent(back)}`);
      return referer ? req.set('Referer', referer) : req;
    };
    // A crafted link (mailed, or from another site) shows no link to somewhere else.
    expect((await page('https://evil.example/login')).text).not.toContain('evil.example');
    expect((await page('https://evil.example/login', 'https://shop.example/')).text).not.toContain('evil.example');
    expect((await page('https://shop.example/contact', 'https://shop.example/')).text).toContain(
      'href="https://shop.example/contact"',
    );
  });

  it('answers 201 { ok, id } to Accept: application/json and to JSON bodies', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const a = await t.http.post(form.endpoint).type('form').set('Accept', 'application/json').send('x=1');
    expect(a.status).toBe(201);
    expect(a.body).toEqual({ ok: true, id: expect.stringMatching(/^subm_/) });
    const b = await t.http.post(form.endpoint).send({ name: 'Bob', tags: ['x', 'y'], address: { city: 'Oslo' }, n: 3 });
    expect(b.status).toBe(201);
    const stored = await submissionsOf(t, form.id);
    expect(stored.map((s) => s.id)).toEqual([a.body.id, b.body.id]);
    expect(stored[1]!.payload).toEqual({ name: 'Bob', tags: ['x', 'y'], address: { city: 'Oslo' }, n: 3 });
  });

  it('stores multipart files byte for byte in object storage', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const form = await makePublishedForm(t, owner);
    const binary = randomBytes(300_000);
    const text = Buffer.from('plain text file\n');
    const res = await t.http
      .post(form.endpoint)
      .set('Accept', 'application/json')
      .field('name', 'Files')
      .attach('resume', binary, { filename: 'résumé.pdf', contentType: 'application/pdf' })
      .attach('notes', text, { filename: 'notes.txt', contentType: 'text/plain' });
    expect(res.status).toBe(201);
    const files = await filesOf(t, form.id);
    expect(files.map((f) => [f.field, f.filename, f.content_type, Number(f.size_bytes)])).toEqual([
      ['resume', 'résumé.pdf', 'application/pdf', binary.length],
      ['notes', 'notes.txt', 'text/plain', text.length],
    ]);
    expect((await readObject(t, files[0]!.storage_key)).equals(binary)).toBe(true);
    expect((await readObject(t, files[1]!.storage_key)).equals(text)).toBe(true);
    const usage = await t.http.get('/v1/billing/usage').set(bearer(owner.token));
    expect(usage.body.data.storage_bytes.used).toBe(binary.length + text.length);
    expect(usage.body.data.submissions.used).toBe(1);
  });

  it('ignores an empty file input (browsers send one)', async () => {
    const owner = await makeTeam(t, { plan: 'free' });
    const form = await makePublishedForm(t, owner);
    const res = await t.http
      .post(form.endpoint)
      .set('Accept', 'application/json')
      .field('name', 'No file')
      .attach('upload', Buffer.alloc(0), { filename: '', contentType: 'application/octet-stream' });
    expect(res.status).toBe(201);
    expect(await filesOf(t, form.id)).toEqual([]);
  });
});

/** Sends the bytes as they are (superagent would serialise a Buffer by content type). */
const rawPost = (endpoint: string, type: string, bytes: Buffer) =>
  t.http
    .post(endpoint)
    .set('Content-Type', type)
    .serialize((b: unknown) => b as string)
    .send(bytes as unknown as string);

describe('POST /f/{form}: hostile input is refused and stores nothing', () => {
  const boundary = '----intake-test-boundary';
  const cases: Array<[string, (endpoint: string) => Promise<{ status: number; body: { error?: string } }>, number]> = [
    [
      'malformed multipart',
      (e) =>
        t.http
          .post(e)
          .set('Content-Type', `multipart/form-data; boundary=${boundary}`)
          .send(`--${boundary}\r\nContent-Disposition: form-data; name="a"\r\n\r\nunterminated`),
      400,
    ],
    ['multipart without boundary', (e) => t.http.post(e).set('Content-Type', 'multipart/form-data').send('x'), 400],
    [
      'a file over 10 MB',
      (e) =>
        t.http
          .post(e)
          .field('a', '1')
          .attach('big', Buffer.alloc(10 * 1024 * 1024 + 1), { filename: 'big.bin' }),
      413,
    ],
    [
      'a body over 1 MB',
      (e) =>
        t.http
          .post(e)
          .type('form')
          .send(`a=${'x'.repeat(1024 * 1024 + 10)}`),
      413,
    ],
    [
      '1,000 fields',
      (e) =>
        t.http
          .post(e)
          .type('form')
          .send(Array.from({ length: 1000 }, (_, i) => `f${i}=v`).join('&')),
      413,
    ],
    [
      '1,000 multipart fields',
      (e) => {
        let req = t.http.post(e);
        for (let i = 0; i < 1000; i++) req = req.field(`f${i}`, 'v');
        return req;
      },
      413,
    ],
    [
      '11 files',
      (e) => {
        let req = t.http.post(e);
        for (let i = 0; i < 11; i++) req = req.attach(`f${i}`, Buffer.from('x'), { filename: `f${i}.txt` });
        return req;
      },
      413,
    ],
    [
      'deeply nested JSON',
      (e) =>
        t.http
          .post(e)
          .type('json')
          .send(`{"a":${'['.repeat(50)}${']'.repeat(50)}}`),
      400,
    ],
    ['JSON that is not an object', (e) => t.http.post(e).type('json').send('[1,2]'), 400],
    ['malformed JSON', (e) => t.http.post(e).type('json').send('{"a":'), 400],
    [
      'invalid UTF-8 (urlencoded bytes)',
      (e) => rawPost(e, 'application/x-www-form-urlencoded', Buffer.from([0x61, 0x3d, 0xff, 0xfe])),
      400,
    ],
    ['invalid UTF-8 (percent-escape)', (e) => t.http.post(e).type('form').send('a=%FF%FE'), 400],
    [
      'invalid UTF-8 (JSON)',
      (e) =>
        rawPost(
          e,
          'application/json',
          Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
        ),
      400,
    ],
    ['a NUL byte in a value', (e) => t.http.post(e).type('form').send('a=x%00y'), 400],
    ['a NUL character in JSON', (e) => t.http.post(e).type('json').send('{"a":{"b":"x\\u0000"}}'), 400],
    [
      'a 65-character field name',
      (e) =>
        t.http
          .post(e)
          .type('form')
          .send(`${'n'.repeat(65)}=v`),
      400,
    ],
    ['a huge multipart field name', (e) => t.http.post(e).field('n'.repeat(5000), 'v'), 400],
    ['an unsupported content type', (e) => t.http.post(e).set('Content-Type', 'text/plain').send('hello'), 415],
  ];

  for (const [name, send, status] of cases) {
    it(`${name} → ${status}`, async () => {
      const owner = await makeTeam(t, { plan: 'pro' });
      const form = await makePublishedForm(t, owner);
      const res = await send(form.endpoint);
      expect(res.status).toBe(status);
      expect(res.body.error).toEqual(expect.any(String));
      expect(await submissionsOf(t, form.id)).toEqual([]);
      expect(await filesOf(t, form.id)).toEqual([]);
    });
  }
});

describe('POST /f/{form}: which forms accept posts', () => {
  it('404 for unknown, draft and deleted forms', async () => {
    const owner = await makeTeam(t);
    expect((await t.http.post('/f/frm_00000000000000000000000000').type('form').send('a=1')).status).toBe(404);
    expect((await t.http.post('/f/not-an-id').type('form').send('a=1')).status).toBe(404);
    const draft = await t.http.post('/v1/forms').set(bearer(owner.token)).send({ name: 'Draft' });
    expect((await t.http.post(`/f/${draft.body.data.id}`).type('form').send('a=1')).status).toBe(404);
    const form = await makePublishedForm(t, owner);
    await t.http.delete(`/v1/forms/${form.id}`).set(bearer(owner.token));
    expect((await t.http.post(form.endpoint).type('form').send('a=1')).status).toBe(404);
  });

  it('402 quota_exceeded over the monthly quota, storing nothing', async () => {
    const owner = await makeTeam(t, { plan: 'free' });
    const form = await makePublishedForm(t, owner);
    await t.ctx.db.query(
      'insert into usage_counters (team_id, period_start, shard, submissions) values ($1, $2, 0, 49)',
      [owner.teamId, currentPeriod().start],
    );
    expect((await t.http.post(form.endpoint).type('form').send('a=last')).status).toBe(303);
    const over = await t.http.post(form.endpoint).set('Accept', 'application/json').type('form').send('a=over');
    expect(over.status).toBe(402);
    expect(over.body.error).toBe('quota_exceeded');
    expect((await submissionsOf(t, form.id)).map((s) => s.payload)).toEqual([{ a: 'last' }]);
  });

  it('402 for file uploads on a plan without them', async () => {
    const owner = await makeTeam(t, { plan: 'free' });
    const form = await makePublishedForm(t, owner);
    const res = await t.http
      .post(form.endpoint)
      .field('a', '1')
      .attach('f', Buffer.from('data'), { filename: 'a.txt' });
    expect(res.status).toBe(402);
    expect(await submissionsOf(t, form.id)).toEqual([]);
  });
});

describe('POST /f/{form}: redirects, CORS, idempotency', () => {
  it('follows _next only to the redirect host or an allowed origin', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, {
      settings: { redirect_url: 'https://site.example/thanks', allowed_origins: ['https://other.example'] },
    });
    const post = (next: string) =>
      t.http
        .post(form.endpoint)
        .type('form')
        .send(`a=1&_next=${encodeURIComponent(next)}`);
    expect((await post('https://site.example/custom')).headers.location).toBe('https://site.example/custom');
    expect((await post('https://other.example/done')).headers.location).toBe('https://other.example/done');
    expect((await post('https://evil.example/phish')).headers.location).toBe('https://site.example/thanks');
    expect((await post('javascript:alert(1)')).headers.location).toBe('https://site.example/thanks');
  });

  it('a stored redirect_url that is not http(s) is never sent: browsers get the thank-you page', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    // The API refuses this value, yet a stored row may hold it: written directly.
    await t.ctx.db.query(
      `update forms set settings = jsonb_set(settings, '{redirect_url}', '"javascript:alert(1)"') where id = $1`,
      [form.id],
    );
    const browser = await t.http.post(form.endpoint).type('form').send('a=1');
    expect(browser.status).toBe(303);
    expect(browser.headers.location).toMatch(new RegExp(`^/f/${form.id}/thanks`));
    const script = await t.http.post(form.endpoint).set('Accept', 'application/json').send({ a: 1 });
    expect(script.status).toBe(201);
    expect(script.body).not.toHaveProperty('redirect');
    const shown = await t.http.get(`/v1/forms/${form.id}`).set(bearer(owner.token));
    expect(shown.status).toBe(200);
    expect(shown.body.data.settings.redirect_url).toBeNull();
  });

  it('a field named __proto__ cannot lend the post controls it never sent', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, {
      settings: { redirect_url: 'https://site.example/thanks', allowed_origins: ['https://other.example'] },
    });
    const res = await t.http
      .post(form.endpoint)
      .set('Content-Type', 'application/json')
      .send('{"__proto__":{"_gotcha":"bot"},"name":"Ada"}');
    expect(res.status).toBe(201);
    const [stored] = await submissionsOf(t, form.id);
    expect(stored!.status).not.toBe('spam');
    expect(stored!.payload).toEqual({ name: 'Ada' });
  });

  it("follows _next to the posting page's own origin without configuration, and nowhere else", async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const post = (next: string, headers: Record<string, string>) =>
      t.http
        .post(form.endpoint)
        .set(headers)
        .type('form')
        .send(`a=1&_next=${encodeURIComponent(next)}`);
    expect((await post('https://shop.example/thanks', { Origin: 'https://shop.example' })).headers.location).toBe(
      'https://shop.example/thanks',
    );
    expect(
      (await post('https://shop.example/thanks', { Referer: 'https://shop.example/contact' })).headers.location,
    ).toBe('https://shop.example/thanks');
    const elsewhere = await post('https://evil.example/phish', { Origin: 'https://shop.example' });
    expect(elsewhere.headers.location).toMatch(new RegExp(`^/f/${form.id}/thanks`));
  });

  it('a post to a draft form says it is not published; a browser gets a page, a script JSON', async () => {
    const owner = await makeTeam(t);
    const draft = await t.http.post('/v1/forms').set(bearer(owner.token)).send({ name: 'Draft' });
    const endpoint = `/f/${draft.body.data.id}`;
    const script = await t.http.post(endpoint).set('Accept', 'application/json').type('form').send('a=1');
    expect(script.status).toBe(404);
    expect(script.body).toMatchObject({ error: 'not_found', message: expect.stringMatching(/not published/) });
    const browser = await t.http
      .post(endpoint)
      .set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8')
      .type('form')
      .send('a=1');
    expect(browser.status).toBe(404);
    expect(browser.headers['content-type']).toMatch(/^text\/html/);
    expect(browser.text).toContain('not published');
    const unknown = await t.http
      .post('/f/frm_00000000000000000000000000')
      .set('Accept', 'text/html')
      .type('form')
      .send('a=1');
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^text\/html/);
  });

  it('answers CORS preflights for allowed origins and refuses others', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, { settings: { allowed_origins: ['https://site.example'] } });
    const ok = await t.http
      .options(form.endpoint)
      .set('Origin', 'https://site.example')
      .set('Access-Control-Request-Method', 'POST');
    expect(ok.status).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe('https://site.example');
    expect(ok.headers['access-control-allow-methods']).toContain('POST');
    const bad = await t.http.options(form.endpoint).set('Origin', 'https://evil.example');
    expect(bad.headers['access-control-allow-origin']).toBeUndefined();
    const post = await t.http
      .post(form.endpoint)
      .set('Origin', 'https://site.example')
      .set('Accept', 'application/json')
      .type('form')
      .send('a=1');
    expect(post.status).toBe(201);
    expect(post.headers['access-control-allow-origin']).toBe('https://site.example');
    const refused = await t.http.post(form.endpoint).set('Origin', 'https://evil.example').type('form').send('a=2');
    expect(refused.status).toBe(403);
    // The refusal itself is readable by the page (a script can show why), and nothing was stored.
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    expect(await submissionsOf(t, form.id)).toHaveLength(1);
    const unknown = await t.http
      .post('/f/frm_00000000000000000000000000')
      .set('Origin', 'https://site.example')
      .set('Accept', 'application/json')
      .type('form')
      .send('a=3');
    expect(unknown.status).toBe(404);
    expect(unknown.headers['access-control-allow-origin']).toBe('*');
  });

  it('returns the first submission for a repeated Idempotency-Key', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const send = (key: string, body: string) =>
      t.http.post(form.endpoint).set('Idempotency-Key', key).set('Accept', 'application/json').type('form').send(body);
    const first = await send('click-1', 'a=1');
    const again = await send('click-1', 'a=2');
    const [c1, c2] = await Promise.all([send('race', 'r=1'), send('race', 'r=2')]);
    expect(again.body.id).toBe(first.body.id);
    expect(c1.body.id).toBe(c2.body.id);
    expect((await send('click-2', 'a=3')).body.id).not.toBe(first.body.id);
    const stored = await submissionsOf(t, form.id);
    expect(stored).toHaveLength(3);
    // An expired key (older than 24 h) is taken over by the next post.
    await t.ctx.db.query(`update idempotency_keys set created_at = now() - interval '25 hours' where form_id = $1`, [
      form.id,
    ]);
    expect((await send('click-1', 'a=4')).body.id).not.toBe(first.body.id);
  });
});

describe('POST /f/{form}: spam stack', () => {
  it('stores honeypot and custom-rule spam in the spam folder, answered like success', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, {
      settings: {
        custom_rules: {
          blocked_emails: ['@blocked.example', 'bad@x.example'],
          keywords: ['Casino'],
          regex: ['\\bfree\\s+money\\b'],
        },
      },
    });
    const post = (body: string) => t.http.post(form.endpoint).set('Accept', 'application/json').type('form').send(body);
    const responses = [
      await post('a=1&_gotcha=i+am+a+bot'),
      await post('email=someone%40blocked.example'),
      await post('email=ok%40ok.example&_replyto=bad%40x.example'),
      await post('message=best+CASINO+offers'),
      await post('message=get+FREE++money+now'),
      await post('message=hello'),
    ];
    for (const r of responses) expect(r.status).toBe(201);
    const stored = await submissionsOf(t, form.id);
    expect(stored.map((s) => [s.status, s.spam_reason])).toEqual([
      ['spam', 'honeypot_filled'],
      ['spam', 'rule:blocked_email'],
      ['spam', 'rule:blocked_email'],
      ['spam', 'rule:keyword'],
      ['spam', 'rule:regex'],
      ['received', null],
    ]);
  });

  it('a renamed honeypot field is honoured', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, { settings: { honeypot_field: '_website' } });
    await t.http.post(form.endpoint).type('form').send('a=1&_gotcha=ignored');
    await t.http.post(form.endpoint).type('form').send('a=2&_website=http%3A%2F%2Fspam');
    expect((await submissionsOf(t, form.id)).map((s) => s.status)).toEqual(['received', 'spam']);
  });

  it('enqueues process-submission in the same transaction, only for clean submissions', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const clean = await t.http.post(form.endpoint).set('Accept', 'application/json').type('form').send('a=1');
    const spam = await t.http.post(form.endpoint).set('Accept', 'application/json').type('form').send('a=1&_gotcha=x');
    const { rows } = await t.ctx.db.query(
      `select data->>'submissionId' as id from pgboss.job where name = 'process-submission' and data->>'submissionId' = any($1::text[])`,
      [[clean.body.id, spam.body.id]],
    );
    expect(rows.map((r) => r.id)).toEqual([clean.body.id]);
  });
});

describe('POST /f/{form}: rate limits shared through Postgres', () => {
  it('marks posts over the per-IP rate as spam and floods get 429', async () => {
    const a = await startTestApp({ INTAKE_INGEST_RATE_LIMIT: '2', INTAKE_INGEST_FLOOD_LIMIT: '4' });
    const b = await startTestApp({ INTAKE_INGEST_RATE_LIMIT: '2', INTAKE_INGEST_FLOOD_LIMIT: '4' });
    const owner = await makeTeam(a);
    const form = await makePublishedForm(a, owner);
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 5; i++) {
      last = await (i % 2 ? b : a).http
        .post(form.endpoint)
        .set('Accept', 'application/json')
        .type('form')
        .send(`n=${i}`);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([201, 201, 201, 201, 429]);
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    expect(last!.body).toMatchObject({ error: 'rate_limited', retry_after: expect.any(Number) });
    expect((await submissionsOf(a, form.id)).map((s) => s.spam_reason)).toEqual([
      null,
      null,
      'rate_limited',
      'rate_limited',
    ]);
  });
});

describe('POST /f/{form}: group commit', () => {
  const post = (endpoint: string, body: string, key?: string) => {
    const req = g.http.post(endpoint).set('Accept', 'application/json').type('form');
    return (key ? req.set('Idempotency-Key', key) : req).send(body);
  };

  /** The process-submission jobs holding any of these submissions, each with the submissions it holds. */
  async function processJobsOf(ids: string[]): Promise<Array<{ id: string; ids: string[] }>> {
    const { rows } = await g.ctx.db.query<{ id: string; ids: string[] }>(
      `select id::text, case when data ? 'submissionIds' then array(select jsonb_array_elements_text(data->'submissionIds'))
                             else array[data->>'submissionId'] end as ids
         from pgboss.job where name = 'process-submission'
          and (data->>'submissionId' = any($1::text[]) or data->'submissionIds' ?| $1::text[])`,
      [ids],
    );
    return rows;
  }

  it('posts committed together keep each its own job queue: clean ones share processing, spam is notified', async () => {
    const owner = await makeTeam(g);
    const form = await makePublishedForm(g, owner, {
      notification_emails: ['team@example.com'],
      settings: { notify_spam: true },
    });
    const bodies = Array.from({ length: 80 }, (_, i) => (i % 4 === 3 ? `n=${i}&_gotcha=bot` : `n=${i}`));
    const responses = await Promise.all(bodies.map((b) => post(form.endpoint, b)));
    expect(responses.map((r) => r.status)).toEqual(bodies.map(() => 201));
    const ids = responses.map((r) => r.body.id as string);
    const stored = await submissionsOf(g, form.id);
    const spam = stored.filter((s) => s.status === 'spam').map((s) => s.id);
    const clean = stored.filter((s) => s.status === 'received').map((s) => s.id);
    expect(spam).toHaveLength(20);

    expect((await processJobsOf(ids)).flatMap((j) => j.ids).sort()).toEqual(clean.sort());
    const notified = await g.ctx.db.query<{ id: string }>(
      `select data->>'submissionId' as id from pgboss.job where name = 'notification-email' and data->>'submissionId' = any($1::text[])`,
      [ids],
    );
    expect(notified.rows.map((r) => r.id).sort()).toEqual(spam.sort());
  });

  it('commits concurrent posts together, each one whole: row, job, counters, key', async () => {
    const owner = await makeTeam(g);
    const form = await makePublishedForm(g, owner);
    const bodies = Array.from({ length: 120 }, (_, i) =>
      i % 10 === 9 ? `n=${i}&_gotcha=bot` : `n=${i}&email=p${i}@example.test`,
    );
    const responses = await Promise.all(
      bodies.map((b, i) => post(form.endpoint, b, i % 30 === 0 ? `k-${i}` : undefined)),
    );
    expect(responses.map((r) => r.status)).toEqual(bodies.map(() => 201));
    const ids = responses.map((r) => r.body.id as string);
    expect(new Set(ids).size).toBe(120);

    const stored = await g.ctx.db.query<{ id: string; status: string; payload: { n: string }; tx: string }>(
      'select id, status, payload, xmin::text as tx from submissions where form_id = $1',
      [form.id],
    );
    expect(stored.rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(stored.rows.filter((r) => r.status === 'spam')).toHaveLength(12);
    // Several posts shared a commit (the same transaction id): that is the point. On Citus each post is one
    // statement on its team's shard (docs/scaling.md): a commit and a job of its own.
    const commits = new Set(stored.rows.map((r) => r.tx)).size;
    if (g.ctx.db.distributed) expect(commits).toBe(120);
    else expect(commits).toBeLessThan(120);

    const clean = stored.rows.filter((r) => r.status === 'received').map((r) => r.id);
    const jobs = await processJobsOf(ids);
    // Every clean post is in exactly one job, and posts committed together share theirs.
    expect(jobs.flatMap((j) => j.ids).sort()).toEqual(clean.sort());
    if (g.ctx.db.distributed) expect(jobs).toHaveLength(clean.length);
    else expect(jobs.length).toBeLessThan(clean.length);
    const usage = await g.ctx.db.query<{ n: number }>(
      'select sum(submissions)::int as n from usage_counters where team_id = $1',
      [owner.teamId],
    );
    expect(usage.rows[0]!.n).toBe(120);
    const folders = await g.ctx.db.query<{ folder: string; n: number }>(
      'select folder, sum(n)::int as n from form_folder_counts where form_id = $1 group by folder order by folder',
      [form.id],
    );
    expect(folders.rows).toEqual([
      { folder: 'inbox', n: 108 },
      { folder: 'spam', n: 12 },
    ]);
    const keys = await g.ctx.db.query<{ n: number }>(
      'select count(*)::int as n from idempotency_keys where form_id = $1',
      [form.id],
    );
    expect(keys.rows[0]!.n).toBe(4);
    const fields = await g.ctx.db.query<{ name: string }>(
      'select name from form_fields where form_id = $1 order by name',
      [form.id],
    );
    expect(fields.rows.map((r) => r.name)).toEqual(['email', 'n']);
  });

  it('a spent quota holds exactly across batches and processes: every post gets its own answer', async () => {
    const owner = await makeTeam(g, { plan: 'free' });
    const form = await makePublishedForm(g, owner);
    await g.ctx.db.query(
      'insert into usage_counters (team_id, period_start, shard, submissions) values ($1, $2, 0, 45)',
      [owner.teamId, currentPeriod().start],
    );
    // Two API processes (each with its own group commit, up to two statements at once) posting together.
    const other = supertest(second.app);
    const send = (i: number) =>
      (i % 2 ? other : g.http).post(form.endpoint).set('Accept', 'application/json').type('form').send(`n=${i}`);
    const responses = await Promise.all(Array.from({ length: 48 }, (_, i) => send(i)));
    const accepted = responses.filter((r) => r.status === 201);
    const refused = responses.filter((r) => r.status === 402);
    expect(refused.every((r) => r.body.error === 'quota_exceeded')).toBe(true);
    // Exact: each statement takes the team's quota lock first, so none sees usage another is about to commit.
    expect(accepted).toHaveLength(5);
    expect(refused).toHaveLength(43);
    const stored = await submissionsOf(g, form.id);
    expect(stored.map((s) => s.id).sort()).toEqual(accepted.map((r) => r.body.id as string).sort());
  });
});
