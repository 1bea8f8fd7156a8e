import { describe, expect, it } from 'vitest';
import { filesOf, makePublishedForm, submissionsOf } from '../support/forms.ts';
import { bearer, makeTeam, makeToken, startTestApp, type TestMember } from '../support/harness.ts';

const t = await startTestApp();

async function post(endpoint: string, body: string): Promise<string> {
  const res = await t.http.post(endpoint).set('Accept', 'application/json').type('form').send(body);
  if (res.status !== 201) throw new Error(`post failed: ${res.status}`);
  return res.body.id as string;
}

/** A form with `n` clean submissions and `spam` spam ones, oldest first. */
async function formWith(owner: TestMember, n: number, spam = 0) {
  const form = await makePublishedForm(t, owner);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await post(form.endpoint, `name=person${i}&n=${i}`));
  const spamIds: string[] = [];
  for (let i = 0; i < spam; i++) spamIds.push(await post(form.endpoint, `name=bot${i}&_gotcha=x`));
  return { ...form, ids, spamIds };
}

const list = (owner: TestMember, formId: string, query = '') =>
  t.http.get(`/v1/forms/${formId}/submissions${query}`).set(bearer(owner.token));

describe('GET …/submissions', () => {
  it('lists the inbox newest first with the envelope, and the spam and all folders', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 3, 2);
    const inbox = await list(owner, form.id);
    expect(inbox.status).toBe(200);
    expect(inbox.body.data.map((s: { id: string }) => s.id)).toEqual([...form.ids].reverse());
    expect(inbox.body.meta).toMatchObject({ current_page: 1, per_page: 25, total: 3, last_page: 1, next_cursor: null });
    const item = inbox.body.data[0];
    expect(Object.keys(item).sort()).toEqual([
      'ai_moderation',
      'assignee',
      'category',
      'id',
      'notes_count',
      'payload',
      'received_at',
      'spam_reason',
      'stage',
      'status',
      'tags',
      'updated_at',
    ]);
    expect(item).toMatchObject({ tags: [], stage: 'new', assignee: null, notes_count: 0 });
    expect(item.payload).toEqual({ name: 'person2', n: '2' });
    const spam = await list(owner, form.id, '?folder=spam');
    expect(spam.body.data.map((s: { id: string }) => s.id)).toEqual([...form.spamIds].reverse());
    expect(spam.body.data[0]).toMatchObject({ status: 'spam', spam_reason: 'honeypot_filled' });
    const all = await list(owner, form.id, '?folder=all');
    expect(all.body.meta.total).toBe(5);
  });

  it('rejects bad parameters with 400', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 1);
    for (const q of [
      '?folder=trash',
      '?per_page=0',
      '?per_page=101',
      '?page=0',
      '?since=yesterday',
      '?until=2026-13-45',
      '?cursor=garbage',
      '?page=x',
    ]) {
      const res = await list(owner, form.id, q);
      expect(res.status, q).toBe(400);
      expect(res.body.error).toBe('validation_failed');
    }
  });

  it('paginates by page and by keyset cursor without repeating or skipping', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 7);
    const newestFirst = [...form.ids].reverse();
    const p2 = await list(owner, form.id, '?per_page=3&page=2');
    expect(p2.body.data.map((s: { id: string }) => s.id)).toEqual(newestFirst.slice(3, 6));
    expect(p2.body.meta).toMatchObject({ current_page: 2, per_page: 3, total: 7, last_page: 3 });
    expect(p2.body.links.next).toContain('page=3');
    const seen: string[] = [];
    let cursor = '';
    for (let i = 0; i < 5; i++) {
      const res = await list(owner, form.id, `?per_page=3${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...res.body.data.map((s: { id: string }) => s.id));
      cursor = res.body.meta.next_cursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(newestFirst);
  });

  it('by cursor, links.next follows the cursor and the page has no number', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 7);
    const first = await list(owner, form.id, '?per_page=3&folder=inbox');
    const byCursor = await list(owner, form.id, `?per_page=3&folder=inbox&cursor=${first.body.meta.next_cursor}`);
    expect(byCursor.status).toBe(200);
    expect(byCursor.body.meta).toMatchObject({ current_page: null, per_page: 3, total: 7 });
    expect(byCursor.body.links.prev).toBeNull();
    const next = new URL(byCursor.body.links.next);
    expect(next.searchParams.get('cursor')).toBe(byCursor.body.meta.next_cursor);
    expect(next.searchParams.get('page')).toBeNull();
    expect(next.searchParams.get('folder')).toBe('inbox');
    // Following links.next gives the third page.
    const third = await list(owner, form.id, `${next.search}`);
    expect(third.body.data).toHaveLength(1);
    expect(third.body.links.next).toBeNull();
  });

  it('filters by category, since and until', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 4);
    await t.ctx.db.query(`update submissions set category = 'sales' where id = any($1::text[])`, [
      [form.ids[0], form.ids[2]],
    ]);
    await t.ctx.db.query(`update submissions set received_at = '2026-01-01T00:00:00Z' where id = $1`, [form.ids[1]]);
    const sales = await list(owner, form.id, '?category=sales');
    expect(sales.body.data.map((s: { id: string }) => s.id).sort()).toEqual([form.ids[0], form.ids[2]].sort());
    expect(sales.body.meta.total).toBe(2);
    const old = await list(owner, form.id, '?until=2026-02-01');
    expect(old.body.data.map((s: { id: string }) => s.id)).toEqual([form.ids[1]]);
    const recent = await list(owner, form.id, '?since=2026-02-01T00:00:00Z');
    expect(recent.body.meta.total).toBe(3);
  });

  it('includes files only for submissions with uploads', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const form = await makePublishedForm(t, owner);
    await post(form.endpoint, 'a=1');
    await t.http
      .post(form.endpoint)
      .field('a', '2')
      .attach('cv', Buffer.from('%PDF-1.4'), { filename: 'cv.pdf', contentType: 'application/pdf' });
    const res = await list(owner, form.id);
    const [withFile, without] = res.body.data;
    expect(without.files).toBeUndefined();
    expect(withFile.files).toEqual([
      {
        id: expect.stringMatching(/^file_/),
        field: 'cv',
        filename: 'cv.pdf',
        content_type: 'application/pdf',
        size: 8,
      },
    ]);
  });
});

describe('GET …/submissions/{submission}', () => {
  it('has no files key when the submission had no uploads (the spec: present only if it had)', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 1);
    const res = await t.http.get(`/v1/forms/${form.id}/submissions/${form.ids[0]}`).set(bearer(owner.token));
    expect(res.status).toBe(200);
    expect(res.body.data).not.toHaveProperty('files');
  });

  it('shows typed fields, metadata and 60-second signed file URLs that serve the bytes', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const form = await makePublishedForm(t, owner);
    const sent = Buffer.from('hello file');
    const posted = await t.http
      .post(form.endpoint)
      .set('Accept', 'application/json')
      .field('age', '42')
      .field('zip', '0123')
      .field('subscribe', 'on')
      .field('email', 'Ada@Example.com')
      .field('date', '2026-03-01')
      .field('site', 'https://ada.example')
      .field('note', 'hi')
      .attach('doc', sent, { filename: 'hello.txt', contentType: 'text/plain' });
    const res = await t.http.get(`/v1/forms/${form.id}/submissions/${posted.body.id}`).set(bearer(owner.token));
    expect(res.status).toBe(200);
    const s = res.body.data;
    expect(s.payload.age).toBe('42');
    const typed = Object.fromEntries(
      s.fields.map((f: { name: string; type: string; value: unknown }) => [f.name, [f.type, f.value]]),
    );
    expect(typed).toEqual({
      age: ['number', 42],
      zip: ['string', '0123'],
      subscribe: ['boolean', true],
      email: ['email', 'ada@example.com'],
      date: ['date', '2026-03-01'],
      site: ['url', 'https://ada.example/'],
      note: ['string', 'hi'],
    });
    expect(s.metadata.content_type).toBe('multipart');
    expect(s.files).toHaveLength(1);
    const url = new URL(s.files[0].url);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('60');
    expect(Date.parse(s.files[0].url_expires_at) - Date.now()).toBeLessThanOrEqual(60_000);
    const fetched = await fetch(s.files[0].url);
    expect(fetched.status).toBe(200);
    expect(Buffer.from(await fetched.arrayBuffer()).equals(sent)).toBe(true);
  });

  it("is 404 for another team's submission and another form's id", async () => {
    const a = await makeTeam(t);
    const b = await makeTeam(t);
    const formA = await formWith(a, 1);
    const formA2 = await formWith(a, 1);
    const formB = await formWith(b, 1);
    expect((await t.http.get(`/v1/forms/${formA.id}/submissions/${formA.ids[0]}`).set(bearer(b.token))).status).toBe(
      404,
    );
    expect((await t.http.get(`/v1/forms/${formB.id}/submissions/${formA.ids[0]}`).set(bearer(b.token))).status).toBe(
      404,
    );
    expect((await t.http.get(`/v1/forms/${formA2.id}/submissions/${formA.ids[0]}`).set(bearer(a.token))).status).toBe(
      404,
    );
    expect((await list(b, formA.id)).status).toBe(404);
  });
});

describe('PUT …/submissions/{submission}', () => {
  it('merges the payload shallowly, null clears, and records an audit event', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 1);
    const id = form.ids[0]!;
    const res = await t.http
      .put(`/v1/forms/${form.id}/submissions/${id}`)
      .set(bearer(owner.token))
      .send({ payload: { n: null, note: 'called back' } });
    expect(res.status).toBe(200);
    expect(res.body.data.payload).toEqual({ name: 'person0', note: 'called back' });
    const { rows } = await t.ctx.db.query(
      'select actor_user_id, actor_token_id, action, changes from submission_events where submission_id = $1',
      [id],
    );
    expect(rows).toEqual([
      {
        actor_user_id: owner.userId,
        actor_token_id: owner.tokenId,
        action: 'update',
        changes: { payload: { n: { from: '0', to: null }, note: { from: null, to: 'called back' } } },
      },
    ]);
  });

  it('moves between the inbox and spam folders per the status table', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 2);
    const id = form.ids[0]!;
    const put = (status: string) =>
      t.http.put(`/v1/forms/${form.id}/submissions/${id}`).set(bearer(owner.token)).send({ status });
    expect((await put('spam')).body.data).toMatchObject({ status: 'spam', spam_reason: 'manual' });
    expect((await list(owner, form.id)).body.meta.total).toBe(1);
    expect((await list(owner, form.id, '?folder=spam')).body.data.map((s: { id: string }) => s.id)).toEqual([id]);
    expect((await put('received')).body.data).toMatchObject({ status: 'received', spam_reason: null });
    expect((await list(owner, form.id)).body.meta.total).toBe(2);
    expect((await put('processed')).body.data.status).toBe('processed');
    expect((await put('failed')).body.data.status).toBe('failed');
    expect((await put('deleted')).status).toBe(400);
    const nul = await t.http
      .put(`/v1/forms/${form.id}/submissions/${id}`)
      .set(bearer(owner.token))
      .send({ payload: { a: 'x\u0000' } });
    expect(nul.status).toBe(400);
    const readOnly = await makeToken(t, owner, ['submissions:read']);
    expect(
      (await t.http.put(`/v1/forms/${form.id}/submissions/${id}`).set(bearer(readOnly.token)).send({ status: 'spam' }))
        .status,
    ).toBe(403);
  });
});

describe('DELETE …/submissions/{submission}', () => {
  it('hard-deletes the row, its files (storage objects too) and its audit trail', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const form = await makePublishedForm(t, owner);
    const posted = await t.http
      .post(form.endpoint)
      .set('Accept', 'application/json')
      .field('a', '1')
      .attach('f', Buffer.from('bytes'), { filename: 'f.bin' });
    const id = posted.body.id;
    await t.http
      .put(`/v1/forms/${form.id}/submissions/${id}`)
      .set(bearer(owner.token))
      .send({ payload: { a: '2' } });
    const [file] = await filesOf(t, form.id);
    const res = await t.http.delete(`/v1/forms/${form.id}/submissions/${id}`).set(bearer(owner.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(await submissionsOf(t, form.id)).toEqual([]);
    expect(await filesOf(t, form.id)).toEqual([]);
    expect((await t.ctx.db.query('select 1 from submission_events where submission_id = $1', [id])).rowCount).toBe(0);
    const { rows } = await t.ctx.db.query(
      `select data from pgboss.job where name = 'delete-objects' and data->'keys' ? $1`,
      [file!.storage_key],
    );
    expect(rows).toHaveLength(1);
    expect((await t.http.delete(`/v1/forms/${form.id}/submissions/${id}`).set(bearer(owner.token))).status).toBe(404);
    const form2 = (await t.http.get(`/v1/forms/${form.id}`).set(bearer(owner.token))).body.data;
    expect(form2.submissions_count).toBe(0);
  });
});

describe('POST …/submissions/bulk', () => {
  it('marks spam and not spam, deletes, and lists ids it may not act on as skipped', async () => {
    const owner = await makeTeam(t);
    const other = await makeTeam(t);
    const form = await formWith(owner, 4);
    const otherForm = await formWith(owner, 1);
    const foreign = await formWith(other, 1);
    const bulk = (ids: string[], action: string) =>
      t.http.post(`/v1/forms/${form.id}/submissions/bulk`).set(bearer(owner.token)).send({ ids, action });
    const skippedIds = [otherForm.ids[0]!, foreign.ids[0]!, 'subm_unknown'];
    const spam = await bulk([form.ids[0]!, form.ids[1]!, ...skippedIds], 'mark_spam');
    expect(spam.status).toBe(200);
    expect(spam.body).toEqual({ ok: true, affected: 2, skipped: skippedIds });
    expect((await list(owner, form.id, '?folder=spam')).body.meta.total).toBe(2);
    const notSpam = await bulk([form.ids[0]!], 'mark_not_spam');
    expect(notSpam.body).toEqual({ ok: true, affected: 1, skipped: [] });
    expect((await submissionsOf(t, form.id)).find((s) => s.id === form.ids[0])!.status).toBe('received');
    const del = await bulk([form.ids[2]!, form.ids[3]!, foreign.ids[0]!], 'delete');
    expect(del.body).toEqual({ ok: true, affected: 2, skipped: [foreign.ids[0]] });
    expect((await submissionsOf(t, form.id)).map((s) => s.id).sort()).toEqual([form.ids[0], form.ids[1]].sort());
    expect(await submissionsOf(t, foreign.id)).toHaveLength(1);
  });

  it('413 beyond 500 ids, 400 for a bad action, nothing changed', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 1);
    const ids = [form.ids[0]!, ...Array.from({ length: 500 }, (_, i) => `subm_x${i}`)];
    const res = await t.http
      .post(`/v1/forms/${form.id}/submissions/bulk`)
      .set(bearer(owner.token))
      .send({ ids, action: 'delete' });
    expect(res.status).toBe(413);
    expect(await submissionsOf(t, form.id)).toHaveLength(1);
    const bad = await t.http
      .post(`/v1/forms/${form.id}/submissions/bulk`)
      .set(bearer(owner.token))
      .send({ ids: [form.ids[0]], action: 'archive' });
    expect(bad.status).toBe(400);
  });

  it('checks the form, then the count; an id that is not one is skipped', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 1);
    const tooMany = [...Array.from({ length: 501 }, (_, i) => `subm_x${i}`), 'x'.repeat(100)];
    const send = (formId: string, ids: string[]) =>
      t.http.post(`/v1/forms/${formId}/submissions/bulk`).set(bearer(owner.token)).send({ ids, action: 'mark_spam' });
    expect((await send('frm_00000000000000000000000000', tooMany)).status).toBe(404);
    expect((await send(form.id, tooMany)).status).toBe(413);
    const malformed = await send(form.id, [form.ids[0]!, 'x'.repeat(100)]);
    expect(malformed.status).toBe(200);
    expect(malformed.body).toEqual({ ok: true, affected: 1, skipped: ['x'.repeat(100)] });
    expect((await submissionsOf(t, form.id)).map((s) => s.status)).toEqual(['spam']);
  });
});

describe('GET …/submissions/export', () => {
  it('streams CSV with metadata columns, one column per field, neutralised cells and file links', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const form = await makePublishedForm(t, owner);
    await post(form.endpoint, 'name=Ada&formula=%3DHYPERLINK(%22x%22)&quote=say+%22hi%22%2C+ok&multi=a&multi=b');
    await t.http
      .post(form.endpoint)
      .field('name', '@Bob')
      .field('extra', '-1+1')
      .attach('cv', Buffer.from('cv'), { filename: 'cv.txt' });
    const res = await t.http
      .get(`/v1/forms/${form.id}/submissions/export?format=csv`)
      .set(bearer(owner.token))
      .buffer(true)
      .parse((r, cb) => {
        let data = '';
        r.on('data', (c: Buffer) => (data += c.toString()));
        r.on('end', () => cb(null, data));
      });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="frm_.*\.csv"$/);
    const lines = (res.body as string).trimEnd().split('\n');
    expect(lines[0]).toBe(
      'id,received_at,status,category,score,name,formula,quote,multi,extra,_files,_tags,_stage,_assignee,_rules',
    );
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`,Ada,"'=HYPERLINK(""x"")","say ""hi"", ok",a; b,,`);
    expect(lines[2]).toContain(`,'@Bob,,,,'-1+1,http://intake.test/d/file_`);
    expect(lines[2]).toMatch(/,,new,,$/);
    const link = new URL(lines[2]!.split(',').at(-5)!);
    const follow = await t.http.get(link.pathname + link.search);
    expect(follow.status).toBe(302);
    expect((await fetch(follow.headers.location!)).status).toBe(200);
    const signature = link.searchParams.get('signature')!;
    link.searchParams.set('signature', (signature[0] === '0' ? '1' : '0') + signature.slice(1));
    const tampered = await t.http.get(link.pathname + link.search);
    // A bad signature answers as a missing file does (SECURITY.md: /d/ tells an outsider nothing).
    expect(tampered.status).toBe(404);
    expect(tampered.body.error).toBe('not_found');
  });

  it('streams JSON and honours since/until', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 3);
    await t.ctx.db.query(`update submissions set received_at = '2026-01-01T00:00:00Z' where id = $1`, [form.ids[0]]);
    const res = await t.http
      .get(`/v1/forms/${form.id}/submissions/export?format=json&since=2026-02-01`)
      .set(bearer(owner.token));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const rows = JSON.parse(res.text);
    expect(rows.map((r: { id: string }) => r.id)).toEqual([form.ids[1], form.ids[2]]);
    expect(rows[0]).toMatchObject({ status: 'received', payload: { name: 'person1', n: '1' }, files: [] });
    expect(
      (await t.http.get(`/v1/forms/${form.id}/submissions/export?format=xml`).set(bearer(owner.token))).status,
    ).toBe(400);
  });
});

describe('GET …/files/{file}', () => {
  it('redirects (302) to a new signed URL every time, serving the original name as an attachment', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const form = await makePublishedForm(t, owner);
    const posted = await t.http
      .post(form.endpoint)
      .set('Accept', 'application/json')
      .attach('doc', Buffer.from('contents'), { filename: 'Quarterly report.txt', contentType: 'text/plain' });
    const [file] = await filesOf(t, form.id);
    const path = `/v1/forms/${form.id}/submissions/${posted.body.id}/files/${file!.id}`;
    const first = await t.http.get(path).set(bearer(owner.token));
    await new Promise((r) => setTimeout(r, 1100));
    const second = await t.http.get(path).set(bearer(owner.token));
    expect(first.status).toBe(302);
    expect(second.headers.location).not.toBe(first.headers.location);
    const fetched = await fetch(first.headers.location!);
    expect(fetched.status).toBe(200);
    expect(await fetched.text()).toBe('contents');
    expect(fetched.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''Quarterly%20report.txt`);
    const other = await makeTeam(t, { plan: 'pro' });
    expect((await t.http.get(path).set(bearer(other.token))).status).toBe(404);
    expect(
      (await t.http.get(`/v1/forms/${form.id}/submissions/${posted.body.id}/files/file_nope`).set(bearer(owner.token)))
        .status,
    ).toBe(404);
  });
});
