import { describe, expect, it } from 'vitest';
import { makePublishedForm } from '../support/forms.ts';
import { recountFolders } from '../support/team-records.ts';
import { bearer, makeMember, makeTeam, makeToken, startTestApp, type TestMember } from '../support/harness.ts';
import { postForm } from '../support/processing.ts';

// Triage over REST: tags, stage and assignee on a submission, its ETag, the list filters, the stage and tag
// counts, a form's stage list, the bulk actions and the abilities they need. Posts stay `received` (no worker).
const t = await startTestApp({ INTAKE_INGEST_RATE_LIMIT: '100000', INTAKE_INGEST_FLOOD_LIMIT: '100000' });

type Member = { id: string; email: string; name: string };
type Item = { id: string; tags: string[]; stage: string; assignee: Member | null; notes_count: number };

const base = (formId: string) => `/v1/forms/${formId}/submissions`;
const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((s) => s.id);

/** A published form of `owner` with `n` clean submissions (oldest first) and `spam` honeypot ones. */
async function formWith(owner: TestMember, n: number, opts: { spam?: number; form?: Record<string, unknown> } = {}) {
  const form = await makePublishedForm(t, owner, opts.form);
  const subs: string[] = [];
  for (let i = 0; i < n; i++) subs.push(await postForm(t, form.endpoint, { name: `person${i}`, n: String(i) }));
  const spam: string[] = [];
  for (let i = 0; i < (opts.spam ?? 0); i++) spam.push(await postForm(t, form.endpoint, { name: 'bot', _gotcha: 'x' }));
  return { id: form.id, endpoint: form.endpoint, subs, spam };
}

const get = (m: TestMember, formId: string, id: string) => t.http.get(`${base(formId)}/${id}`).set(bearer(m.token));

function put(m: TestMember, formId: string, id: string, body: Record<string, unknown>, ifMatch?: string) {
  const req = t.http.put(`${base(formId)}/${id}`).set(bearer(m.token));
  if (ifMatch !== undefined) req.set('If-Match', ifMatch);
  return req.send(body);
}

/** A PUT that must succeed; answers the submission as it is now. */
async function triage(m: TestMember, formId: string, id: string, body: Record<string, unknown>) {
  const res = await put(m, formId, id, body);
  expect(res.status, res.text).toBe(200);
  return res.body.data as Item & { etag: string; updated_at: string };
}

const list = (m: TestMember, formId: string, query = '') => t.http.get(`${base(formId)}${query}`).set(bearer(m.token));
const bulk = (m: TestMember, formId: string, body: Record<string, unknown>) =>
  t.http
    .post(`${base(formId)}/bulk`)
    .set(bearer(m.token))
    .send(body);
const updateForm = (m: TestMember, formId: string, body: Record<string, unknown>) =>
  t.http.put(`/v1/forms/${formId}`).set(bearer(m.token)).send(body);

/** A 400 validation_failed naming `path` among its details. */
function expectInvalid(res: { status: number; text: string; body: Record<string, unknown> }, path: string | RegExp) {
  expect(res.status, res.text).toBe(400);
  expect(res.body.error).toBe('validation_failed');
  const paths = ((res.body.details ?? []) as Array<{ path: string }>).map((d) => d.path);
  if (typeof path === 'string') expect(paths).toContain(path);
  else
    expect(
      paths.some((p) => path.test(p)),
      JSON.stringify(paths),
    ).toBe(true);
}

/** The member as views show it. */
async function memberView(m: TestMember): Promise<Member> {
  const { rows } = await t.ctx.db.query<Member>('select id, email, name from users where id = $1', [m.userId]);
  return rows[0]!;
}

/** Triage columns as stored, for checks that a refused change changed nothing. */
async function stored(formId: string) {
  const { rows } = await t.ctx.db.query<{ id: string; tags: string[]; stage: string; assignee_id: string | null }>(
    'select id, tags, stage, assignee_id from submissions where form_id = $1 order by received_at, id',
    [formId],
  );
  return rows;
}

describe('tags', () => {
  it('replace, add and remove; stored trimmed and lower-cased, duplicates collapsed, order kept', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 1);
    const id = form.subs[0]!;
    expect(
      (await triage(owner, form.id, id, { tags: ['  Urgent ', 'VIP', 'urgent', 'Ärger', 'lead:web'] })).tags,
    ).toEqual(['urgent', 'vip', 'ärger', 'lead:web']);
    // add_tags appends the ones not there; one already there stays in place.
    expect((await triage(owner, form.id, id, { add_tags: ['VIP', 'Follow up', 'follow up '] })).tags).toEqual([
      'urgent',
      'vip',
      'ärger',
      'lead:web',
      'follow up',
    ]);
    // remove_tags matches after normalisation; removing a tag not there is no error.
    expect((await triage(owner, form.id, id, { remove_tags: [' URGENT', 'never-there'] })).tags).toEqual([
      'vip',
      'ärger',
      'lead:web',
      'follow up',
    ]);
    expect((await triage(owner, form.id, id, { tags: ['b_2', 'a-1'] })).tags).toEqual(['b_2', 'a-1']);
    expect((await get(owner, form.id, id)).body.data.tags).toEqual(['b_2', 'a-1']);
    expect((await triage(owner, form.id, id, { tags: [] })).tags).toEqual([]);
  });

  it('refuses tags with add_tags or remove_tags, more than 20 and bad characters; nothing changes', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 1);
    const id = form.subs[0]!;
    const twenty = Array.from({ length: 20 }, (_, i) => `t${i}`);
    await triage(owner, form.id, id, { tags: twenty });

    expectInvalid(await put(owner, form.id, id, { tags: ['a'], add_tags: ['b'] }), 'tags');
    expectInvalid(await put(owner, form.id, id, { tags: ['a'], remove_tags: ['t1'] }), 'tags');
    // The 21st tag: named by the field that was sent.
    expectInvalid(await put(owner, form.id, id, { add_tags: ['one-more'] }), 'add_tags');
    expectInvalid(await put(owner, form.id, id, { tags: [...twenty, 'one-more'] }), 'tags');
    for (const bad of ['a,b', '', '   ', 'semi;colon', 'slash/', 'x'.repeat(51), 'nul\u0000']) {
      expectInvalid(await put(owner, form.id, id, { add_tags: [bad] }), /^add_tags/);
      expectInvalid(await put(owner, form.id, id, { tags: [bad] }), /^tags/);
    }
    expect((await stored(form.id))[0]!.tags).toEqual(twenty);

    // Adding one already there (after normalisation) keeps it at 20: no error.
    expect((await triage(owner, form.id, id, { add_tags: [' T3 '] })).tags).toEqual(twenty);
    // Swapping one out in one request stays within 20.
    expect((await triage(owner, form.id, id, { remove_tags: ['t0'], add_tags: ['t20'] })).tags).toEqual([
      ...twenty.slice(1),
      't20',
    ]);
  });
});

describe('stage', () => {
  it('a new submission is in `new`; any key of the form stages is taken; an unknown key is 400 path stage', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 1);
    const id = form.subs[0]!;
    const fresh = (await get(owner, form.id, id)).body.data;
    expect(fresh).toMatchObject({ stage: 'new', tags: [], assignee: null, notes_count: 0 });
    const settings = (await t.http.get(`/v1/forms/${form.id}`).set(bearer(owner.token))).body.data.settings;
    expect(settings.stages).toEqual([
      { key: 'new', label: 'New', done: false },
      { key: 'in_progress', label: 'In progress', done: false },
      { key: 'done', label: 'Done', done: true },
    ]);
    expect((await triage(owner, form.id, id, { stage: 'in_progress' })).stage).toBe('in_progress');
    expect((await triage(owner, form.id, id, { stage: 'done' })).stage).toBe('done');
    for (const stage of ['nope', 'review']) expectInvalid(await put(owner, form.id, id, { stage }), 'stage');
    expectInvalid(await put(owner, form.id, id, { stage: 'Bad Key' }), 'stage');
    expect((await stored(form.id))[0]!.stage).toBe('done');
  });

  it("new submissions get the first of the form's own stages", async () => {
    const owner = await makeTeam(t);
    const stages = [
      { key: 'triage', label: 'Triage' },
      { key: 'new', label: 'New' },
      { key: 'closed', label: 'Closed', done: true },
    ];
    const form = await formWith(owner, 1, { form: { settings: { stages } } });
    expect((await get(owner, form.id, form.subs[0]!)).body.data.stage).toBe('triage');
    expect((await list(owner, form.id, '?stage=triage')).body.data.map((s: Item) => s.id)).toEqual(form.subs);
    expect((await list(owner, form.id, '?stage=new')).body.meta.total).toBe(0);
  });
});

describe('assignee', () => {
  it('a member of the team is assigned and shown; another team’s user or an unknown id is 400; null unassigns', async () => {
    const owner = await makeTeam(t);
    const editor = await makeMember(t, owner.teamId, 'editor');
    const stranger = await makeTeam(t);
    const form = await formWith(owner, 1);
    const id = form.subs[0]!;

    const assigned = await triage(owner, form.id, id, { assignee_id: editor.userId });
    expect(assigned.assignee).toEqual(await memberView(editor));
    expect(assigned.assignee).toMatchObject({
      id: editor.userId,
      email: expect.stringContaining('@'),
      name: 'Test User',
    });

    for (const assignee_id of [stranger.userId, 'usr_00000000000000000000000000', 'not-a-user', '']) {
      expectInvalid(await put(owner, form.id, id, { assignee_id }), 'assignee_id');
    }
    expect((await stored(form.id))[0]!.assignee_id).toBe(editor.userId);

    // The owner may assign themself; the editor may reassign.
    expect((await triage(editor, form.id, id, { assignee_id: owner.userId })).assignee).toEqual(
      await memberView(owner),
    );
    expect((await triage(owner, form.id, id, { assignee_id: null })).assignee).toBeNull();
    expect((await stored(form.id))[0]!.assignee_id).toBeNull();
  });
});

describe('the list and the detail carry the triage fields', () => {
  it('tags, stage, assignee, notes_count and updated_at on each list item and on the detail', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 2);
    const [a, b] = form.subs as [string, string];
    await triage(owner, form.id, a, { tags: ['Hot'], stage: 'in_progress', assignee_id: owner.userId });
    const res = await list(owner, form.id);
    expect(res.status, res.text).toBe(200);
    const byId = new Map<string, Item & { updated_at: string }>(res.body.data.map((s: Item) => [s.id, s]));
    expect(byId.get(a)).toMatchObject({
      tags: ['hot'],
      stage: 'in_progress',
      assignee: await memberView(owner),
      notes_count: 0,
    });
    expect(byId.get(b)).toMatchObject({ tags: [], stage: 'new', assignee: null, notes_count: 0 });
    for (const item of byId.values()) expect(Date.parse(item.updated_at)).not.toBeNaN();
    // The list item has no etag; the detail has every list field and its etag.
    expect(byId.get(a)).not.toHaveProperty('etag');
    const detail = (await get(owner, form.id, a)).body.data;
    expect(detail).toMatchObject({
      tags: ['hot'],
      stage: 'in_progress',
      assignee: await memberView(owner),
      notes_count: 0,
      updated_at: byId.get(a)!.updated_at,
    });
    expect(typeof detail.etag).toBe('string');
  });
});

describe('ETag and If-Match', () => {
  it('GET answers a strong quoted ETag equal to data.etag; PUT answers the new one', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 1);
    const id = form.subs[0]!;
    const read = await get(owner, form.id, id);
    expect(read.headers.etag).toMatch(/^"[^"]+"$/);
    expect(read.headers.etag).toBe(read.body.data.etag);
    // Reading again changes nothing.
    expect((await get(owner, form.id, id)).headers.etag).toBe(read.headers.etag);

    const changed = await put(owner, form.id, id, { stage: 'done' }, read.headers.etag);
    expect(changed.status, changed.text).toBe(200);
    expect(changed.headers.etag).toMatch(/^"[^"]+"$/);
    expect(changed.headers.etag).toBe(changed.body.data.etag);
    expect(changed.headers.etag).not.toBe(read.headers.etag);
    expect((await get(owner, form.id, id)).headers.etag).toBe(changed.headers.etag);
  });

  it('a stale If-Match is 412 precondition_failed and changes nothing; `*` matches', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 1);
    const id = form.subs[0]!;
    const first = (await get(owner, form.id, id)).body.data;
    await triage(owner, form.id, id, { tags: ['seen'] });
    const current = (await get(owner, form.id, id)).body.data;

    for (const body of [
      { stage: 'done' },
      { tags: ['other'] },
      { assignee_id: owner.userId },
      { payload: { x: '1' } },
    ]) {
      const stale = await put(owner, form.id, id, body, first.etag);
      expect(stale.status, stale.text).toBe(412);
      expect(stale.body).toMatchObject({ error: 'precondition_failed', message: expect.any(String) });
    }
    const after = (await get(owner, form.id, id)).body.data;
    expect(after).toEqual(current);
    expect(after.etag).toBe(current.etag);
    expect((await stored(form.id))[0]).toMatchObject({ tags: ['seen'], stage: 'new', assignee_id: null });

    const any = await put(owner, form.id, id, { stage: 'done' }, '*');
    expect(any.status, any.text).toBe(200);
    expect(any.body.data.stage).toBe('done');
    expect(any.body.data.etag).not.toBe(current.etag);
  });

  it('of concurrent changes sent with the same If-Match, exactly one is made; the others are 412', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 1);
    const id = form.subs[0]!;
    const { etag } = (await get(owner, form.id, id)).body.data;
    const bodies = [
      { stage: 'done' },
      { stage: 'in_progress' },
      { tags: ['one'] },
      { tags: ['two'] },
      { assignee_id: owner.userId },
      { add_tags: ['three'] },
    ];
    const answers = await Promise.all(bodies.map((body) => put(owner, form.id, id, body, etag)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 412, 412, 412, 412, 412]);
    const won = bodies[answers.findIndex((r) => r.status === 200)]!;
    const now = (await stored(form.id))[0]!;
    expect(now).toEqual({
      id,
      tags: 'tags' in won ? won.tags : 'add_tags' in won ? won.add_tags : [],
      stage: 'stage' in won ? won.stage : 'new',
      assignee_id: 'assignee_id' in won ? won.assignee_id : null,
    });
  });

  it('every kind of change moves the ETag and updated_at: triage, status and payload', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 1);
    const id = form.subs[0]!;
    let last = (await get(owner, form.id, id)).body.data as { etag: string; updated_at: string };
    for (const body of [
      { tags: ['a'] },
      { add_tags: ['b'] },
      { remove_tags: ['a'] },
      { stage: 'in_progress' },
      { assignee_id: owner.userId },
      { assignee_id: null },
      { status: 'spam' },
      { status: 'received' },
      { payload: { note: 'called' } },
    ]) {
      await new Promise((r) => setTimeout(r, 5));
      const res = await put(owner, form.id, id, body, last.etag);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(200);
      expect(res.body.data.etag, JSON.stringify(body)).not.toBe(last.etag);
      expect(Date.parse(res.body.data.updated_at), JSON.stringify(body)).toBeGreaterThan(Date.parse(last.updated_at));
      last = res.body.data;
    }
  });
});

describe('list filters', () => {
  it('tag (repeated: all must hold, matched normalised), stage and assignee me / none / an id', async () => {
    const owner = await makeTeam(t);
    const editor = await makeMember(t, owner.teamId, 'editor');
    const form = await formWith(owner, 5);
    const [a, b, c, d, e] = form.subs as [string, string, string, string, string];
    await triage(owner, form.id, a, { tags: ['red', 'blue'], stage: 'in_progress', assignee_id: owner.userId });
    await triage(owner, form.id, b, { tags: ['red'], stage: 'done', assignee_id: editor.userId });
    await triage(owner, form.id, c, { tags: ['blue'], assignee_id: owner.userId });
    await triage(owner, form.id, d, { tags: ['red', 'blue', 'green'], stage: 'in_progress' });
    const q = async (query: string) => {
      const res = await list(owner, form.id, query);
      expect(res.status, `${query}: ${res.text}`).toBe(200);
      return ids(res);
    };
    // Newest first.
    expect(await q('?tag=red')).toEqual([d, b, a]);
    expect(await q('?tag=red&tag=blue')).toEqual([d, a]);
    expect(await q('?tag=%20RED%20&tag=Blue&tag=green')).toEqual([d]);
    expect(await q('?tag=purple')).toEqual([]);
    expect(await q('?stage=in_progress')).toEqual([d, a]);
    expect(await q('?stage=new')).toEqual([e, c]);
    expect(await q('?stage=done')).toEqual([b]);
    expect(await q('?assignee=me')).toEqual([c, a]);
    expect(await q(`?assignee=${editor.userId}`)).toEqual([b]);
    expect(await q('?assignee=none')).toEqual([e, d]);
    expect(await q('?tag=red&stage=in_progress&assignee=me')).toEqual([a]);
    // `me` is the token's user.
    const theirs = await list(editor, form.id, '?assignee=me');
    expect(ids(theirs)).toEqual([b]);
    expect((await list(owner, form.id, '?tag=red&tag=blue')).body.meta.total).toBe(2);
  });

  it('refuses an unknown stage, a bad assignee and a bad tag with 400', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 1);
    expectInvalid(await list(owner, form.id, '?stage=review'), 'stage');
    expectInvalid(await list(owner, form.id, '?assignee=someone'), 'assignee');
    expectInvalid(await list(owner, form.id, '?tag=a%2Cb'), /^tag/);
    const elevenTags = Array.from({ length: 11 }, (_, i) => `tag=t${i}`).join('&');
    expectInvalid(await list(owner, form.id, `?${elevenTags}`), /^tag/);
  });

  it('combines with the folder and with cursor pagination', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 7, { spam: 2 });
    const tagged = [form.subs[0]!, form.subs[2]!, form.subs[3]!, form.subs[5]!, form.subs[6]!];
    for (const id of [...tagged, ...form.spam]) await triage(owner, form.id, id, { add_tags: ['lead'] });
    const newestFirst = [...tagged].reverse();

    expect(ids(await list(owner, form.id, '?tag=lead&folder=spam'))).toEqual([...form.spam].reverse());
    expect((await list(owner, form.id, '?tag=lead&folder=all')).body.meta.total).toBe(7);
    expect((await list(owner, form.id, '?tag=lead')).body.meta.total).toBe(5);

    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 5; i++) {
      const res = await list(owner, form.id, `?tag=lead&per_page=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status, res.text).toBe(200);
      seen.push(...ids(res));
      cursor = res.body.meta.next_cursor;
      if (!cursor) break;
      // The next link keeps the filter.
      expect(new URL(res.body.links.next).searchParams.getAll('tag')).toEqual(['lead']);
    }
    expect(seen).toEqual(newestFirst);

    await triage(owner, form.id, form.subs[6]!, { stage: 'done' });
    await triage(owner, form.id, form.subs[2]!, { stage: 'done' });
    const first = await list(owner, form.id, '?tag=lead&stage=new&per_page=2');
    expect(ids(first)).toEqual([form.subs[5], form.subs[3]]);
    const second = await list(owner, form.id, `?tag=lead&stage=new&per_page=2&cursor=${first.body.meta.next_cursor}`);
    expect(ids(second)).toEqual([form.subs[0]]);
    expect(second.body.meta.next_cursor).toBeNull();
  });

  it('counts the matches of a triage filter up to 1,000 (total_capped); GET …/tags counts them all', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 1);
    // 1,001 tagged submissions and 500 others, stored as the public endpoint would have.
    await t.ctx.db.query(
      `insert into submissions (id, team_id, form_id, status, payload, tags)
       select 'subm_' || substr(md5($2 || i), 1, 26), $1, $2, 'processed', '{}'::jsonb,
              case when i <= 1001 then '{bulk}'::text[] else '{}'::text[] end
         from generate_series(1, 1501) i`,
      [owner.teamId, form.id],
    );
    await recountFolders(t.ctx.db, owner.teamId, form.id);
    const tagged = await list(owner, form.id, '?tag=bulk&per_page=5');
    expect(tagged.body.meta).toMatchObject({ total: 1000, total_capped: true });
    expect(tagged.body.data).toHaveLength(5);
    expect((await list(owner, form.id, '?tag=bulk&folder=spam')).body.meta).toMatchObject({
      total: 0,
      total_capped: false,
    });
    expect((await list(owner, form.id)).body.meta).toMatchObject({ total: 1502, total_capped: false });
    const tags = await t.http.get(`/v1/forms/${form.id}/tags`).set(bearer(owner.token));
    expect(tags.body.data).toEqual([{ tag: 'bulk', count: 1001 }]);
  });
});

describe('GET …/stages and …/tags', () => {
  it('stages in the form order with the count of inbox submissions in each', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 4, { spam: 2 });
    await triage(owner, form.id, form.subs[0]!, { stage: 'done' });
    await triage(owner, form.id, form.subs[1]!, { stage: 'done' });
    await triage(owner, form.id, form.subs[2]!, { stage: 'in_progress' });
    await triage(owner, form.id, form.spam[0]!, { stage: 'in_progress' });
    const res = await t.http.get(`/v1/forms/${form.id}/stages`).set(bearer(owner.token));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      data: [
        { key: 'new', label: 'New', done: false, count: 1 },
        { key: 'in_progress', label: 'In progress', done: false, count: 1 },
        { key: 'done', label: 'Done', done: true, count: 2 },
      ],
    });
    const other = await makeTeam(t);
    expect((await t.http.get(`/v1/forms/${form.id}/stages`).set(bearer(other.token))).status).toBe(404);
  });

  it('tags of inbox submissions, most used first, then by tag', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 3, { spam: 1 });
    await triage(owner, form.id, form.subs[0]!, { tags: ['zeta', 'beta', 'alpha'] });
    await triage(owner, form.id, form.subs[1]!, { tags: ['Beta', 'gamma'] });
    await triage(owner, form.id, form.subs[2]!, { tags: ['beta', 'zeta'] });
    await triage(owner, form.id, form.spam[0]!, { tags: ['spammy', 'alpha'] });
    const res = await t.http.get(`/v1/forms/${form.id}/tags`).set(bearer(owner.token));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      data: [
        { tag: 'beta', count: 3 },
        { tag: 'zeta', count: 2 },
        { tag: 'alpha', count: 1 },
        { tag: 'gamma', count: 1 },
      ],
    });
    const empty = await formWith(owner, 1);
    expect((await t.http.get(`/v1/forms/${empty.id}/tags`).set(bearer(owner.token))).body).toEqual({ data: [] });
  });
});

describe("a form's stages (settings.stages)", () => {
  const renamed = [
    { key: 'new', label: 'Inbox', done: false },
    { key: 'review', label: 'Review', done: false },
    { key: 'done', label: 'Done', done: true },
  ];

  it('removing a stage submissions are in is 409 conflict naming it, and changes nothing', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 2);
    await triage(owner, form.id, form.subs[0]!, { stage: 'in_progress' });
    const before = (await t.http.get(`/v1/forms/${form.id}`).set(bearer(owner.token))).body.data;
    const res = await updateForm(owner, form.id, { settings: { stages: renamed } });
    expect(res.status, res.text).toBe(409);
    expect(res.body).toMatchObject({ error: 'conflict', stages: ['in_progress'] });
    expect(res.body.message).toContain('in_progress');
    const after = (await t.http.get(`/v1/forms/${form.id}`).set(bearer(owner.token))).body.data;
    expect(after.settings.stages).toEqual(before.settings.stages);
    expect((await stored(form.id)).map((s) => s.stage)).toEqual(['in_progress', 'new']);

    // A stage no submission is in goes without more ado.
    const withoutDone = await updateForm(owner, form.id, {
      settings: { stages: [before.settings.stages[0], before.settings.stages[1]] },
    });
    expect(withoutDone.status, withoutDone.text).toBe(200);
    expect(withoutDone.body.data.settings.stages.map((s: { key: string }) => s.key)).toEqual(['new', 'in_progress']);
  });

  it('removing two used stages names both; a reassign_stages covering one of them is still 409 naming the other', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 3);
    await triage(owner, form.id, form.subs[0]!, { stage: 'in_progress' });
    await triage(owner, form.id, form.subs[1]!, { stage: 'done' });
    const onlyOpen = [{ key: 'open', label: 'Open' }];
    const both = await updateForm(owner, form.id, { settings: { stages: onlyOpen } });
    expect(both.status, both.text).toBe(409);
    expect([...both.body.stages].sort()).toEqual(['done', 'in_progress', 'new']);
    const partly = await updateForm(owner, form.id, {
      settings: { stages: onlyOpen },
      reassign_stages: { new: 'open', done: 'open' },
    });
    expect(partly.status, partly.text).toBe(409);
    expect(partly.body).toMatchObject({ error: 'conflict', stages: ['in_progress'] });
    expect((await stored(form.id)).map((s) => s.stage)).toEqual(['in_progress', 'done', 'new']);
    const all = await updateForm(owner, form.id, {
      settings: { stages: onlyOpen },
      reassign_stages: { new: 'open', done: 'open', in_progress: 'open' },
    });
    expect(all.status, all.text).toBe(200);
    expect((await stored(form.id)).map((s) => s.stage)).toEqual(['open', 'open', 'open']);
  });

  it('reassign_stages moves the submissions of each removed stage; its target must be a stage of the new list', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 3);
    await triage(owner, form.id, form.subs[0]!, { stage: 'in_progress' });
    await triage(owner, form.id, form.subs[1]!, { stage: 'in_progress' });

    const badTarget = await updateForm(owner, form.id, {
      settings: { stages: renamed },
      reassign_stages: { in_progress: 'in_progress' },
    });
    expectInvalid(badTarget, 'reassign_stages.in_progress');
    const unknownTarget = await updateForm(owner, form.id, {
      settings: { stages: renamed },
      reassign_stages: { in_progress: 'nowhere' },
    });
    expectInvalid(unknownTarget, 'reassign_stages.in_progress');
    expect((await stored(form.id)).map((s) => s.stage)).toEqual(['in_progress', 'in_progress', 'new']);

    const res = await updateForm(owner, form.id, {
      settings: { stages: renamed },
      reassign_stages: { in_progress: 'review' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.settings.stages).toEqual(renamed);
    expect((await stored(form.id)).map((s) => s.stage)).toEqual(['review', 'review', 'new']);
    expect(ids(await list(owner, form.id, '?stage=review'))).toEqual([form.subs[1], form.subs[0]]);
    expectInvalid(await list(owner, form.id, '?stage=in_progress'), 'stage');
    const counts = (await t.http.get(`/v1/forms/${form.id}/stages`).set(bearer(owner.token))).body.data;
    expect(counts.map((s: { key: string; count: number }) => [s.key, s.count])).toEqual([
      ['new', 1],
      ['review', 2],
      ['done', 0],
    ]);
  });

  it('stage keys must be unique', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 0);
    const res = await updateForm(owner, form.id, {
      settings: {
        stages: [
          { key: 'new', label: 'New' },
          { key: 'new', label: 'Again' },
        ],
      },
    });
    expectInvalid(res, /^settings\.stages(\.|$)/);
    const created = await t.http
      .post('/v1/forms')
      .set(bearer(owner.token))
      .send({
        name: 'Dup',
        settings: {
          stages: [
            { key: 'a', label: 'A' },
            { key: 'a', label: 'B' },
          ],
        },
      });
    expectInvalid(created, /^settings\.stages(\.|$)/);
  });
});

describe('bulk triage actions', () => {
  it('add_tags, remove_tags, set_stage and assign act on the form’s ids and skip the others', async () => {
    const owner = await makeTeam(t);
    const editor = await makeMember(t, owner.teamId, 'editor');
    const other = await makeTeam(t);
    const form = await formWith(owner, 3);
    const sibling = await formWith(owner, 1);
    const foreign = await formWith(other, 1);
    const [a, b, c] = form.subs as [string, string, string];
    await triage(owner, form.id, a, { tags: ['keep'] });
    const skipped = [sibling.subs[0]!, foreign.subs[0]!, 'subm_unknown'];

    const add = await bulk(owner, form.id, { ids: [a, b, ...skipped], action: 'add_tags', tags: ['Lead', 'keep'] });
    expect(add.status, add.text).toBe(200);
    expect(add.body).toEqual({ ok: true, affected: 2, skipped });
    // Appended in the order sent, one already there kept in place.
    expect((await stored(form.id)).map((s) => s.tags)).toEqual([['keep', 'lead'], ['lead', 'keep'], []]);

    const remove = await bulk(owner, form.id, { ids: [a, c], action: 'remove_tags', tags: ['KEEP'] });
    expect(remove.body).toEqual({ ok: true, affected: 2, skipped: [] });
    expect((await stored(form.id)).map((s) => s.tags)).toEqual([['lead'], ['lead', 'keep'], []]);

    const stage = await bulk(owner, form.id, { ids: [b, c, foreign.subs[0]!], action: 'set_stage', stage: 'done' });
    expect(stage.body).toEqual({ ok: true, affected: 2, skipped: [foreign.subs[0]] });
    expect((await stored(form.id)).map((s) => s.stage)).toEqual(['new', 'done', 'done']);

    const assign = await bulk(owner, form.id, { ids: [a, b], action: 'assign', assignee_id: editor.userId });
    expect(assign.body).toEqual({ ok: true, affected: 2, skipped: [] });
    expect((await stored(form.id)).map((s) => s.assignee_id)).toEqual([editor.userId, editor.userId, null]);
    const unassign = await bulk(owner, form.id, { ids: [a], action: 'assign', assignee_id: null });
    expect(unassign.body).toEqual({ ok: true, affected: 1, skipped: [] });
    expect((await stored(form.id)).map((s) => s.assignee_id)).toEqual([null, editor.userId, null]);

    // Nothing of the sibling form or the other team changed.
    expect(await stored(sibling.id)).toEqual([{ id: sibling.subs[0], tags: [], stage: 'new', assignee_id: null }]);
    expect(await stored(foreign.id)).toEqual([{ id: foreign.subs[0], tags: [], stage: 'new', assignee_id: null }]);
  });

  it('an action without its argument, an unknown stage or a non-member is 400, and nothing changes', async () => {
    const owner = await makeTeam(t);
    const stranger = await makeTeam(t);
    const form = await formWith(owner, 2);
    const all = form.subs;
    expectInvalid(await bulk(owner, form.id, { ids: all, action: 'add_tags' }), 'tags');
    expectInvalid(await bulk(owner, form.id, { ids: all, action: 'remove_tags' }), 'tags');
    expectInvalid(await bulk(owner, form.id, { ids: all, action: 'add_tags', tags: ['a,b'] }), /^tags/);
    expectInvalid(await bulk(owner, form.id, { ids: all, action: 'set_stage' }), 'stage');
    expectInvalid(await bulk(owner, form.id, { ids: all, action: 'set_stage', stage: 'review' }), 'stage');
    expectInvalid(await bulk(owner, form.id, { ids: all, action: 'assign' }), 'assignee_id');
    expectInvalid(
      await bulk(owner, form.id, { ids: all, action: 'assign', assignee_id: stranger.userId }),
      'assignee_id',
    );
    // Past 20 tags on one of them: refused, for all.
    await triage(owner, form.id, all[0]!, { tags: Array.from({ length: 20 }, (_, i) => `t${i}`) });
    const tooMany = await bulk(owner, form.id, { ids: all, action: 'add_tags', tags: ['extra'] });
    expect(tooMany.status, tooMany.text).toBe(400);
    expect(tooMany.body.error).toBe('validation_failed');
    const rows = await stored(form.id);
    expect(rows.map((s) => [s.tags.length, s.stage, s.assignee_id])).toEqual([
      [20, 'new', null],
      [0, 'new', null],
    ]);
  });
});

describe('abilities', () => {
  it('submissions:read reads stages, tags, notes and activity; changing triage or notes needs submissions:write', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner, 1);
    const id = form.subs[0]!;
    await triage(owner, form.id, id, { tags: ['x'], stage: 'in_progress' });
    const note = await t.http
      .post(`${base(form.id)}/${id}/notes`)
      .set(bearer(owner.token))
      .send({ body: 'Called them back.' });
    expect(note.status, note.text).toBe(201);
    const reader = { ...owner, ...(await makeToken(t, owner, ['submissions:read'])) };

    for (const path of [
      `/v1/forms/${form.id}/stages`,
      `/v1/forms/${form.id}/tags`,
      `${base(form.id)}/${id}/notes`,
      `${base(form.id)}/${id}/activity`,
      `${base(form.id)}/${id}`,
      `${base(form.id)}?tag=x&stage=in_progress&assignee=none`,
    ]) {
      const res = await t.http.get(path).set(bearer(reader.token));
      expect(res.status, `${path}: ${res.text}`).toBe(200);
    }
    const notes = await t.http.get(`${base(form.id)}/${id}/notes`).set(bearer(reader.token));
    expect(notes.body.data.map((n: { body: string }) => n.body)).toEqual(['Called them back.']);
    const activity = await t.http.get(`${base(form.id)}/${id}/activity`).set(bearer(reader.token));
    expect(activity.body.data.length).toBeGreaterThan(0);

    const refusals = [
      await put(reader, form.id, id, { tags: ['y'] }),
      await put(reader, form.id, id, { stage: 'done' }),
      await put(reader, form.id, id, { assignee_id: null }),
      await bulk(reader, form.id, { ids: [id], action: 'add_tags', tags: ['y'] }),
      await bulk(reader, form.id, { ids: [id], action: 'set_stage', stage: 'done' }),
      await t.http
        .post(`${base(form.id)}/${id}/notes`)
        .set(bearer(reader.token))
        .send({ body: 'mine' }),
      await t.http.delete(`${base(form.id)}/${id}/notes/${note.body.data.id}`).set(bearer(reader.token)),
    ];
    for (const res of refusals) {
      expect(res.status, res.text).toBe(403);
      expect(res.body.error).toBe('forbidden');
    }
    expect((await stored(form.id))[0]).toMatchObject({ tags: ['x'], stage: 'in_progress' });
    expect((await get(owner, form.id, id)).body.data.notes_count).toBe(1);
    // A token without submissions:read reads none of it.
    const formsOnly = { ...owner, ...(await makeToken(t, owner, ['forms:read'])) };
    expect((await t.http.get(`/v1/forms/${form.id}/stages`).set(bearer(formsOnly.token))).status).toBe(403);
    expect((await t.http.get(`${base(form.id)}/${id}/notes`).set(bearer(formsOnly.token))).status).toBe(403);
  });
});
