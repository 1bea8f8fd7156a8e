import { describe, expect, it } from 'vitest';
import { processSubmission } from '../../server/domain/submissions/processing.ts';
import { appRefusingMultiShard } from '../support/citus-app.ts';
import { bearer, makeMember, makeTeam, type TestMember } from '../support/harness.ts';

/**
 * On a Citus cluster (`make test-citus`), posting submissions to a published form, then reading and triaging
 * them through the API runs on the team's shard: the app's database refuses every statement that would run on more than one, so a statement of these
 * paths that is not routed by team fails its request. Skipped on plain Postgres.
 */
const app = await appRefusingMultiShard({
  // An export's lease is dropped after its answer: the next export of the team may start before.
  INTAKE_EXPORTS_PER_TEAM: '100',
  // Every post comes from one address.
  INTAKE_INGEST_RATE_LIMIT: '100000',
  INTAKE_INGEST_FLOOD_LIMIT: '100000',
});
const t = app!;
const citus = app !== null;

const base = (formId: string) => `/v1/forms/${formId}/submissions`;
const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((s) => s.id);

/** A form of `owner`, created and published through the API. */
async function makePublishedForm(owner: TestMember): Promise<{ id: string; endpoint: string }> {
  const created = await t.http.post('/v1/forms').set(bearer(owner.token)).send({ name: 'Contact' });
  expect(created.status, created.text).toBe(201);
  const id = created.body.data.id as string;
  const published = await t.http.post(`/v1/forms/${id}/publish`).set(bearer(owner.token));
  expect(published.status, published.text).toBe(200);
  return { id, endpoint: `/f/${id}` };
}

/** Posts a submission to the public endpoint as JSON (multipart with a file `doc`, report.txt, with `file`). */
async function post(form: { endpoint: string }, payload: Record<string, string>, file = false): Promise<string> {
  const req = t.http.post(form.endpoint).set('Accept', 'application/json');
  if (file) {
    for (const [name, value] of Object.entries(payload)) req.field(name, value);
    req.attach('doc', Buffer.from('a report'), { filename: 'report.txt', contentType: 'text/plain' });
  }
  const res = await (file ? req : req.send(payload));
  expect(res.status, res.text).toBe(201);
  expect(res.body.id).toEqual(expect.any(String));
  return res.body.id as string;
}

/** The file of a submission posted with one, as its detail shows it, and the key it is stored under. */
async function fileOf(owner: TestMember, formId: string, submissionId: string) {
  const read = await t.http.get(`${base(formId)}/${submissionId}`).set(bearer(owner.token));
  expect(read.status, read.text).toBe(200);
  const files = read.body.data.files as Array<{ id: string; filename: string }>;
  expect(files).toEqual([expect.objectContaining({ field: 'doc', filename: 'report.txt' })]);
  const id = files[0]!.id;
  return { id, key: `teams/${owner.teamId}/forms/${formId}/${submissionId}/${id}` };
}

/**
 * A published form of `owner` with posted submissions `person0`… (oldest first, processed; the one at `fileAt`
 * carrying a file) and one caught by the honeypot.
 */
async function formWith(owner: TestMember, n: number, fileAt?: number) {
  const form = await makePublishedForm(owner);
  const subs: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = await post(form, { name: `person${i}`, n: String(i) }, i === fileAt);
    // No worker runs here: each is moved to `processed` (and so made searchable) as its job would leave it.
    const processed = await t.http
      .put(`${base(form.id)}/${id}`)
      .set(bearer(owner.token))
      .send({ status: 'processed' });
    expect(processed.status, processed.text).toBe(200);
    subs.push(id);
  }
  const spam = await post(form, { name: 'bot', _gotcha: 'filled' });
  return { id: form.id, endpoint: form.endpoint, subs, spam };
}

describe.runIf(citus)('on Citus, submissions are read and triaged on one team’s shard', () => {
  it('lists a form’s folders by page and cursor, searches, and reads one', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 3);
    const list = (query = '') => t.http.get(`${base(form.id)}${query}`).set(bearer(owner.token));

    const inbox = await list();
    expect(inbox.status, inbox.text).toBe(200);
    expect(ids(inbox)).toEqual([...form.subs].reverse());
    expect(inbox.body.meta.total).toBe(3);
    const spam = await list('?folder=spam');
    expect(ids(spam)).toEqual([form.spam]);
    expect(spam.body.meta.total).toBe(1);
    const all = await list('?folder=all');
    expect(all.body.meta.total).toBe(4);

    const second = await list('?per_page=2&page=2');
    expect(second.status, second.text).toBe(200);
    expect(ids(second)).toEqual([form.subs[0]]);
    const first = await list('?per_page=2');
    expect(ids(first)).toEqual([form.subs[2], form.subs[1]]);
    const cursor = first.body.meta.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    const next = await list(`?per_page=2&cursor=${cursor}`);
    expect(next.status, next.text).toBe(200);
    expect(ids(next)).toEqual([form.subs[0]]);
    expect(next.body.meta.next_cursor).toBeNull();

    const found = await list('?q=person1');
    expect(found.status, found.text).toBe(200);
    expect(ids(found)).toEqual([form.subs[1]]);
    expect(found.body.meta.total).toBe(1);
    const none = await list('?q=nobody');
    expect(ids(none)).toEqual([]);

    const one = await t.http.get(`${base(form.id)}/${form.subs[0]}`).set(bearer(owner.token));
    expect(one.status, one.text).toBe(200);
    expect(one.body.data).toMatchObject({
      id: form.subs[0],
      payload: { name: 'person0', n: '0' },
      status: 'processed',
    });
    expect(one.headers.etag).toBe(one.body.data.etag);
    const other = await makeTeam(t);
    expect((await t.http.get(`${base(form.id)}/${form.subs[0]}`).set(bearer(other.token))).status).toBe(404);
  });

  it('streams a form’s events: from now, spam caught at the door, a processed submission, resumed by id', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(owner);
    const path = `${base(form.id)}/stream`;
    const poll = (lastEventId?: string) =>
      t.http
        .get(path)
        .query({ include: 'spam', ...(lastEventId ? { last_event_id: lastEventId } : {}) })
        .set(bearer(owner.token));
    const start = await poll();
    expect(start.status, start.text).toBe(200);
    const spam = await post(form, { name: 'bot', _gotcha: 'filled' });
    const clean = await post(form, { name: 'Ada', email: 'ada@example.com', message: 'Hello' });
    expect(await processSubmission(t.ctx, clean, { teamId: owner.teamId })).toBe('processed');
    const read = await poll(start.body.meta.last_event_id);
    expect(read.status, read.text).toBe(200);
    const events = read.body.data as Array<{ id: string; event: string; submission: { submission_id: string } }>;
    expect(events.map((e) => [e.event, e.submission.submission_id])).toEqual([
      ['spam', spam],
      ['submission', clean],
    ]);
    expect((await poll(events[0]!.id)).body.data.map((e: { id: string }) => e.id)).toEqual([events[1]!.id]);
  });

  it('edits a submission’s values', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 1);
    const sub = `${base(form.id)}/${form.subs[0]}`;
    const read = await t.http.get(sub).set(bearer(owner.token));
    const edited = await t.http
      .put(sub)
      .set(bearer(owner.token))
      .set('If-Match', read.body.data.etag)
      .send({ payload: { name: 'Ada', phone: '555' } });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.data.payload).toEqual({ name: 'Ada', n: '0', phone: '555' });
    expect(edited.body.data.etag).not.toBe(read.body.data.etag);
    const found = await t.http.get(`${base(form.id)}?q=ada`).set(bearer(owner.token));
    expect(found.status, found.text).toBe(200);
    expect(ids(found)).toEqual([form.subs[0]]);
  });

  it('triages a submission, and filters, counts and lists by stage, tag and assignee', async () => {
    const owner = await makeTeam(t);
    const editor = await makeMember(t, owner.teamId, 'editor');
    const form = await formWith(owner, 3);
    const [a, b] = form.subs as [string, string, string];
    const put = (id: string, body: Record<string, unknown>, ifMatch?: string) => {
      const req = t.http.put(`${base(form.id)}/${id}`).set(bearer(owner.token));
      if (ifMatch) req.set('If-Match', ifMatch);
      return req.send(body);
    };

    expect((await put(a, { stage: 'done' }, '"stale"')).status).toBe(412);
    const triaged = await put(a, { tags: ['Lead', 'vip'], stage: 'done', assignee_id: editor.userId });
    expect(triaged.status, triaged.text).toBe(200);
    expect(triaged.body.data).toMatchObject({ tags: ['lead', 'vip'], stage: 'done', assignee: { id: editor.userId } });
    expect((await put(b, { add_tags: ['lead'], stage: 'in_progress', assignee_id: owner.userId })).status).toBe(200);
    const c = form.subs[2]!;
    expect((await put(c, { status: 'spam' })).body.data.status).toBe('spam');
    expect((await put(c, { status: 'received' })).body.data.status).toBe('received');

    const list = (query: string) => t.http.get(`${base(form.id)}${query}`).set(bearer(owner.token));
    const tagged = await list('?tag=lead');
    expect(tagged.status, tagged.text).toBe(200);
    expect(ids(tagged)).toEqual([b, a]);
    expect(tagged.body.meta).toMatchObject({ total: 2, total_capped: false });
    expect(ids(await list('?tag=vip&tag=lead'))).toEqual([a]);
    const staged = await list('?stage=in_progress');
    expect(staged.status, staged.text).toBe(200);
    expect(ids(staged)).toEqual([b]);
    expect(ids(await list('?assignee=me'))).toEqual([b]);
    expect(ids(await list(`?assignee=${editor.userId}`))).toEqual([a]);
    expect(ids(await list('?assignee=none'))).toEqual([c]);
    expect(ids(await list('?tag=lead&q=person0'))).toEqual([a]);

    const stages = await t.http.get(`/v1/forms/${form.id}/stages`).set(bearer(owner.token));
    expect(stages.status, stages.text).toBe(200);
    expect(stages.body.data.map((s: { key: string; count: number }) => [s.key, s.count])).toEqual([
      ['new', 1],
      ['in_progress', 1],
      ['done', 1],
    ]);
    const tags = await t.http.get(`/v1/forms/${form.id}/tags`).set(bearer(owner.token));
    expect(tags.status, tags.text).toBe(200);
    expect(tags.body).toEqual({
      data: [
        { tag: 'lead', count: 2 },
        { tag: 'vip', count: 1 },
      ],
    });
  });

  it('adds, lists and deletes notes, and lists the activity', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 1);
    const id = form.subs[0]!;
    const sub = `${base(form.id)}/${id}`;

    const added = await t.http.post(`${sub}/notes`).set(bearer(owner.token)).send({ body: 'Called back.' });
    expect(added.status, added.text).toBe(201);
    expect(added.body.data).toMatchObject({ body: 'Called back.', author: { id: owner.userId } });
    const second = await t.http.post(`${sub}/notes`).set(bearer(owner.token)).send({ body: 'Again.' });
    expect(second.status).toBe(201);
    const notes = await t.http.get(`${sub}/notes`).set(bearer(owner.token));
    expect(notes.status, notes.text).toBe(200);
    expect(notes.body.data.map((n: { body: string }) => n.body)).toEqual(['Called back.', 'Again.']);
    expect(notes.body.meta.total).toBe(2);
    const removed = await t.http.delete(`${sub}/notes/${added.body.data.id}`).set(bearer(owner.token));
    expect(removed.status, removed.text).toBe(200);
    expect((await t.http.delete(`${sub}/notes/${added.body.data.id}`).set(bearer(owner.token))).status).toBe(404);
    const left = await t.http.get(`${sub}/notes`).set(bearer(owner.token));
    expect(left.body.data.map((n: { body: string }) => n.body)).toEqual(['Again.']);
    expect((await t.http.get(sub).set(bearer(owner.token))).body.data.notes_count).toBe(1);

    expect((await t.http.put(sub).set(bearer(owner.token)).send({ stage: 'done' })).status).toBe(200);
    expect((await t.http.put(sub).set(bearer(owner.token)).send({ status: 'spam' })).status).toBe(200);
    const activity = await t.http.get(`${sub}/activity`).set(bearer(owner.token));
    expect(activity.status, activity.text).toBe(200);
    expect(activity.body.data.map((e: { change: { field: string } }) => e.change.field)).toEqual([
      'folder',
      'stage',
      'notes',
      'notes',
      'notes',
    ]);
    expect(activity.body.meta.total).toBe(5);
  });

  it('acts on many at once, deletes one, and counts what is left', async () => {
    const owner = await makeTeam(t);
    const editor = await makeMember(t, owner.teamId, 'editor');
    const form = await formWith(owner, 4);
    const [a, b, c, d] = form.subs as [string, string, string, string];
    const bulk = (body: Record<string, unknown>) =>
      t.http
        .post(`${base(form.id)}/bulk`)
        .set(bearer(owner.token))
        .send(body);
    const total = async (folder: string) =>
      (await t.http.get(`${base(form.id)}?folder=${folder}`).set(bearer(owner.token))).body.meta.total as number;

    const tagged = await bulk({ ids: [a, b, 'subm_nope'], action: 'add_tags', tags: ['Hot'] });
    expect(tagged.status, tagged.text).toBe(200);
    expect(tagged.body).toEqual({ ok: true, affected: 2, skipped: ['subm_nope'] });
    expect((await bulk({ ids: [a], action: 'set_stage', stage: 'done' })).body.affected).toBe(1);
    expect((await bulk({ ids: [a, b], action: 'assign', assignee_id: editor.userId })).status).toBe(200);
    const read = (await t.http.get(`${base(form.id)}/${a}`).set(bearer(owner.token))).body.data;
    expect(read).toMatchObject({ tags: ['hot'], stage: 'done', assignee: { id: editor.userId } });
    expect((await bulk({ ids: [a, b], action: 'remove_tags', tags: ['hot'] })).status).toBe(200);

    const spammed = await bulk({ ids: [a, b], action: 'mark_spam' });
    expect(spammed.status, spammed.text).toBe(200);
    expect(await total('spam')).toBe(3);
    expect(await total('inbox')).toBe(2);
    const cleared = await bulk({ ids: [a], action: 'mark_not_spam' });
    expect(cleared.status, cleared.text).toBe(200);
    expect(await total('inbox')).toBe(3);

    const deleted = await bulk({ ids: [b, c, form.spam], action: 'delete' });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ ok: true, affected: 3, skipped: [] });
    expect(await total('inbox')).toBe(2);
    expect(await total('spam')).toBe(0);
    const one = await t.http.delete(`${base(form.id)}/${d}`).set(bearer(owner.token));
    expect(one.status, one.text).toBe(200);
    expect((await t.http.delete(`${base(form.id)}/${d}`).set(bearer(owner.token))).status).toBe(404);
    expect(await total('all')).toBe(1);
    expect(ids(await t.http.get(`${base(form.id)}?folder=all`).set(bearer(owner.token)))).toEqual([a]);
  });

  it('exports CSV and JSON, with links to files', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const form = await formWith(owner, 2, 1);
    const tagged = await t.http
      .put(`${base(form.id)}/${form.subs[0]}`)
      .set(bearer(owner.token))
      .send({ tags: ['x'] });
    expect(tagged.status).toBe(200);
    const file = await fileOf(owner, form.id, form.subs[1]!);

    const csv = await t.http.get(`${base(form.id)}/export?format=csv`).set(bearer(owner.token));
    expect(csv.status, csv.text).toBe(200);
    const [header, ...lines] = csv.text.trimEnd().split('\n');
    expect(header).toBe('id,received_at,status,category,score,name,n,_files,_tags,_stage,_assignee,_rules');
    expect(lines.map((l) => l.split(',')[0])).toEqual([...form.subs, form.spam]);
    expect(lines[1]).toContain(`/d/${file.id}?expires=`);
    expect(lines[0]).toMatch(/,x,new,,$/);
    const json = await t.http.get(`${base(form.id)}/export?format=json`).set(bearer(owner.token));
    expect(json.status, json.text).toBe(200);
    const rows = JSON.parse(json.text) as Array<{ id: string; tags: string[]; files: Array<{ id: string }> }>;
    expect(rows.map((r) => r.id)).toEqual([...form.subs, form.spam]);
    expect(rows[0]).toMatchObject({ tags: ['x'], payload: { name: 'person0' }, files: [] });
    expect(rows[1]!.files).toEqual([expect.objectContaining({ id: file.id, filename: 'report.txt' })]);
    const searched = await t.http.get(`${base(form.id)}/export?format=json&q=person1`).set(bearer(owner.token));
    expect(searched.status, searched.text).toBe(200);
    expect(JSON.parse(searched.text).map((r: { id: string }) => r.id)).toEqual([form.subs[1]]);
  });

  it('redirects to a file of a submission', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const form = await formWith(owner, 1, 0);
    const id = form.subs[0]!;
    const file = await fileOf(owner, form.id, id);
    const redirected = await t.http
      .get(`${base(form.id)}/${id}/files/${file.id}`)
      .set(bearer(owner.token))
      .redirects(0);
    expect(redirected.status, redirected.text).toBe(302);
    expect(redirected.headers.location).toContain(file.key);
    expect((await t.http.get(`${base(form.id)}/${id}/files/file_nope`).set(bearer(owner.token))).status).toBe(404);
    const other = await makeTeam(t, { plan: 'pro' });
    expect((await t.http.get(`${base(form.id)}/${id}/files/${file.id}`).set(bearer(other.token))).status).toBe(404);
  });

  it('deletes a submission with a file and queues its object’s removal', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const form = await formWith(owner, 2, 0);
    const file = await fileOf(owner, form.id, form.subs[0]!);
    const deleted = await t.http
      .post(`${base(form.id)}/bulk`)
      .set(bearer(owner.token))
      .send({ ids: form.subs, action: 'delete' });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ ok: true, affected: 2, skipped: [] });
    const removals = await t.ctx.db.query<{ keys: string[] }>(
      `select data->'keys' as keys from pgboss.job where name = 'delete-objects' and data->'keys' ? $1`,
      [file.key],
    );
    expect(removals.rows.map((r) => r.keys)).toEqual([[file.key]]);
  });
});
