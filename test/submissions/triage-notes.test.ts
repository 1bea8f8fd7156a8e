import { describe, expect, it } from 'vitest';
import { MAX_NOTE_CHARS, MAX_NOTES } from '../../contract/triage.ts';
import { actionLink } from '../../server/domain/notifications/links.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeMember, makeTeam, makeToken, seed, startTestApp, type TestMember } from '../support/harness.ts';
import { postForm } from '../support/processing.ts';

// A submission's notes and its activity: who changed its stage, tags, assignee, folder and notes, and when.
const t = await startTestApp({ INTAKE_INGEST_RATE_LIMIT: '100000', INTAKE_INGEST_FLOOD_LIMIT: '100000' });

type Member = { id: string; email: string; name: string };
type Actor = (Member & { token: { id: string; name: string } | null }) | null;
type Note = { id: string; body: string; author: Actor; created_at: string };
type Entry = { at: string; actor: Actor; change: { field: string; from: unknown; to: unknown } };

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const sub = (formId: string, id: string) => `/v1/forms/${formId}/submissions/${id}`;

/** A published form of `owner` with `n` submissions posted to it. */
async function formWith(owner: TestMember, n = 1) {
  const form = await makePublishedForm(t, owner);
  const subs: string[] = [];
  for (let i = 0; i < n; i++) subs.push(await postForm(t, form.endpoint, { name: `person${i}` }));
  return { id: form.id, subs };
}

const addNote = (m: TestMember, formId: string, id: string, body: unknown) =>
  t.http
    .post(`${sub(formId, id)}/notes`)
    .set(bearer(m.token))
    .send({ body });
const deleteNote = (m: TestMember, formId: string, id: string, noteId: string) =>
  t.http.delete(`${sub(formId, id)}/notes/${noteId}`).set(bearer(m.token));
const notes = (m: TestMember, formId: string, id: string, query = '') =>
  t.http.get(`${sub(formId, id)}/notes${query}`).set(bearer(m.token));
const activity = (m: TestMember, formId: string, id: string, query = '') =>
  t.http.get(`${sub(formId, id)}/activity${query}`).set(bearer(m.token));
const detail = async (m: TestMember, formId: string, id: string) =>
  (await t.http.get(sub(formId, id)).set(bearer(m.token))).body.data;

async function note(m: TestMember, formId: string, id: string, body: string): Promise<Note> {
  const res = await addNote(m, formId, id, body);
  expect(res.status, res.text).toBe(201);
  return res.body.data as Note;
}

async function put(m: TestMember, formId: string, id: string, body: Record<string, unknown>) {
  const res = await t.http.put(sub(formId, id)).set(bearer(m.token)).send(body);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

async function entries(m: TestMember, formId: string, id: string): Promise<Entry[]> {
  const res = await activity(m, formId, id, '?per_page=100');
  expect(res.status, res.text).toBe(200);
  return res.body.data as Entry[];
}

async function memberView(m: TestMember): Promise<Member> {
  const { rows } = await t.ctx.db.query<Member>('select id, email, name from users where id = $1', [m.userId]);
  return rows[0]!;
}

/** The actor of a change made with the member's token (named `name`). */
async function actorOf(m: TestMember, name = 'test'): Promise<Actor> {
  return { ...(await memberView(m)), token: { id: m.tokenId, name } };
}

describe('notes', () => {
  it('are created trimmed with their author, listed oldest first with pagination, and counted', async () => {
    const owner = await makeTeam(t);
    const editor = await makeMember(t, owner.teamId, 'editor');
    const form = await formWith(owner);
    const id = form.subs[0]!;
    const before = await detail(owner, form.id, id);

    const first = await addNote(owner, form.id, id, '  Called them back.\n');
    expect(first.status, first.text).toBe(201);
    expect(first.body).toEqual({
      data: {
        id: expect.stringMatching(/^note_/),
        body: 'Called them back.',
        author: await actorOf(owner),
        created_at: expect.stringMatching(ISO),
      },
    });
    const second = await note(editor, form.id, id, 'They want a quote.');
    const third = await note(owner, form.id, id, 'Quote sent.');
    expect(second.author).toEqual(await actorOf(editor));

    const all = await notes(owner, form.id, id);
    expect(all.status, all.text).toBe(200);
    expect(all.body.data.map((n: Note) => n.id)).toEqual([first.body.data.id, second.id, third.id]);
    expect(all.body.data[1]).toEqual(second);
    expect(all.body.meta).toMatchObject({ current_page: 1, total: 3, last_page: 1 });
    const page2 = await notes(owner, form.id, id, '?per_page=2&page=2');
    expect(page2.body.data.map((n: Note) => n.body)).toEqual(['Quote sent.']);
    expect(page2.body.meta).toMatchObject({ current_page: 2, per_page: 2, total: 3, last_page: 2 });

    const after = await detail(owner, form.id, id);
    expect(after.notes_count).toBe(3);
    expect(after.etag).not.toBe(before.etag);
    expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(before.updated_at));
    const listed = await t.http.get(`/v1/forms/${form.id}/submissions`).set(bearer(owner.token));
    expect(listed.body.data[0]).toMatchObject({ id, notes_count: 3 });
    // Notes are the submission's: another one has none.
    const other = await postForm(t, `/f/${form.id}`, { name: 'other' });
    expect((await notes(owner, form.id, other)).body).toMatchObject({ data: [], meta: { total: 0 } });
  });

  it('refuses an empty body and one over 10,000 characters; 10,000 is fine', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner);
    const id = form.subs[0]!;
    for (const body of ['', '   \n ', 'x'.repeat(MAX_NOTE_CHARS + 1), 42, null]) {
      const res = await addNote(owner, form.id, id, body);
      expect(res.status, String(body).slice(0, 20)).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain('body');
    }
    expect(MAX_NOTE_CHARS).toBe(10_000);
    expect((await note(owner, form.id, id, 'y'.repeat(MAX_NOTE_CHARS))).body).toHaveLength(MAX_NOTE_CHARS);
    expect((await detail(owner, form.id, id)).notes_count).toBe(1);
  });

  it('its author, an admin or the owner may delete a note; another editor gets 403; an unknown one 404', async () => {
    const owner = await makeTeam(t);
    const admin = await makeMember(t, owner.teamId, 'admin');
    const author = await makeMember(t, owner.teamId, 'editor');
    const colleague = await makeMember(t, owner.teamId, 'editor');
    const stranger = await makeTeam(t);
    const form = await formWith(owner, 2);
    const [id, sibling] = form.subs as [string, string];
    const [a, b, c] = [
      await note(author, form.id, id, 'one'),
      await note(author, form.id, id, 'two'),
      await note(author, form.id, id, 'three'),
    ];

    const refused = await deleteNote(colleague, form.id, id, a.id);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.error).toBe('forbidden');
    // Another team sees no such submission; the note through another submission's path is unknown.
    expect((await deleteNote(stranger, form.id, id, a.id)).status).toBe(404);
    expect((await deleteNote(owner, form.id, sibling, a.id)).status).toBe(404);
    expect((await deleteNote(owner, form.id, id, 'note_00000000000000000000000000')).status).toBe(404);
    expect((await deleteNote(owner, form.id, id, 'nonsense')).status).toBe(404);
    expect((await notes(owner, form.id, id)).body.meta.total).toBe(3);

    const beforeDelete = await detail(owner, form.id, id);
    for (const [who, n] of [
      [author, a],
      [admin, b],
      [owner, c],
    ] as const) {
      const res = await deleteNote(who, form.id, id, n.id);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ ok: true });
    }
    expect((await deleteNote(owner, form.id, id, a.id)).status).toBe(404);
    expect((await notes(owner, form.id, id)).body.data).toEqual([]);
    const after = await detail(owner, form.id, id);
    expect(after.notes_count).toBe(0);
    expect(after.etag).not.toBe(beforeDelete.etag);
  });

  it(`a submission holds at most ${MAX_NOTES} notes: one more is 409 conflict`, async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner);
    const id = form.subs[0]!;
    await note(owner, form.id, id, 'the first');
    await seed(
      t,
      `insert into submission_notes (id, team_id, submission_id, author_user_id, body)
         select 'note_' || lpad(g::text, 26, '0'), $1, $2, $3, 'seeded ' || g from generate_series(2, $4::int) g`,
      [owner.teamId, id, owner.userId, MAX_NOTES],
    );
    await t.ctx.db.query('update submissions set notes_count = $2 where id = $1', [id, MAX_NOTES]);
    const res = await addNote(owner, form.id, id, 'one too many');
    expect(res.status, res.text).toBe(409);
    expect(res.body.error).toBe('conflict');
    expect((await notes(owner, form.id, id, '?per_page=1')).body.meta.total).toBe(MAX_NOTES);
  });
});

describe('activity', () => {
  it('records stage, tags and assignee changes, newest first, with the actor and the token', async () => {
    const owner = await makeTeam(t);
    const editor = await makeMember(t, owner.teamId, 'editor');
    const extra = { ...owner, ...(await makeToken(t, owner)) };
    const form = await formWith(owner);
    const id = form.subs[0]!;
    expect(await entries(owner, form.id, id)).toEqual([]);

    await put(owner, form.id, id, { stage: 'in_progress' });
    await put(editor, form.id, id, { tags: ['Urgent', 'vip'] });
    await put(extra, form.id, id, { add_tags: ['lead'], remove_tags: ['vip'] });
    await put(owner, form.id, id, { assignee_id: editor.userId });
    await put(editor, form.id, id, { assignee_id: null });
    const ownerActor = await actorOf(owner);
    const log = await entries(owner, form.id, id);
    expect(log.map((e) => e.change)).toEqual([
      { field: 'assignee', from: await memberView(editor), to: null },
      { field: 'assignee', from: null, to: await memberView(editor) },
      { field: 'tags', from: ['urgent', 'vip'], to: ['urgent', 'lead'] },
      { field: 'tags', from: [], to: ['urgent', 'vip'] },
      { field: 'stage', from: 'new', to: 'in_progress' },
    ]);
    expect(log.map((e) => e.actor)).toEqual([
      await actorOf(editor),
      ownerActor,
      await actorOf(extra, 'extra'),
      await actorOf(editor),
      ownerActor,
    ]);
    for (const e of log) expect(e.at).toMatch(ISO);
    const ats = log.map((e) => Date.parse(e.at));
    expect([...ats].sort((x, y) => y - x)).toEqual(ats);

    // Pages of it, newest first.
    const page = await activity(owner, form.id, id, '?per_page=2&page=3');
    expect(page.status, page.text).toBe(200);
    expect(page.body.data).toEqual([log[4]]);
    expect(page.body.meta).toMatchObject({ current_page: 3, per_page: 2, total: 5, last_page: 3 });
  });

  it('one entry per field changed; a change to nothing new, a payload edit or a status within the inbox adds none', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner);
    const id = form.subs[0]!;
    await put(owner, form.id, id, { stage: 'done', tags: ['a'], assignee_id: owner.userId });
    const log = await entries(owner, form.id, id);
    expect(log).toHaveLength(3);
    expect(log.map((e) => e.change.field).sort()).toEqual(['assignee', 'stage', 'tags']);
    expect(log.find((e) => e.change.field === 'stage')!.change).toEqual({ field: 'stage', from: 'new', to: 'done' });
    expect(new Set(log.map((e) => JSON.stringify(e.actor)))).toEqual(new Set([JSON.stringify(await actorOf(owner))]));

    await put(owner, form.id, id, { stage: 'done', tags: ['A '], assignee_id: owner.userId });
    await put(owner, form.id, id, { add_tags: ['a'], remove_tags: ['absent'] });
    await put(owner, form.id, id, { payload: { name: 'changed' } });
    await put(owner, form.id, id, { status: 'processed' });
    expect(await entries(owner, form.id, id)).toEqual(log);
  });

  it('records the folder when marked spam or not spam by PUT, bulk or an e-mail link (actor null)', async () => {
    const owner = await makeTeam(t);
    const form = await formWith(owner);
    const id = form.subs[0]!;
    await put(owner, form.id, id, { status: 'spam' });
    await put(owner, form.id, id, { status: 'received' });
    const bulk = async (action: string) => {
      const res = await t.http
        .post(`/v1/forms/${form.id}/submissions/bulk`)
        .set(bearer(owner.token))
        .send({ ids: [id], action });
      expect(res.body, res.text).toEqual({ ok: true, affected: 1, skipped: [] });
    };
    await bulk('mark_spam');
    await bulk('mark_not_spam');
    const link = new URL(actionLink(t.ctx, { id, teamId: owner.teamId }, 'spam').url);
    const clicked = await t.http.post(link.pathname);
    expect(clicked.status, clicked.text).toBe(200);

    const log = await entries(owner, form.id, id);
    const ownerActor = await actorOf(owner);
    expect(log).toEqual(
      [
        [null, 'inbox', 'spam'],
        [ownerActor, 'spam', 'inbox'],
        [ownerActor, 'inbox', 'spam'],
        [ownerActor, 'spam', 'inbox'],
        [ownerActor, 'inbox', 'spam'],
      ].map(([actor, from, to]) => ({ at: expect.stringMatching(ISO), actor, change: { field: 'folder', from, to } })),
    );
  });

  it('bulk actions record an entry on each submission they change, and none on one already so', async () => {
    const owner = await makeTeam(t);
    const editor = await makeMember(t, owner.teamId, 'editor');
    const form = await formWith(owner, 2);
    const [a, b] = form.subs as [string, string];
    await put(owner, form.id, b, { stage: 'done', tags: ['x'] });
    const before = await entries(owner, form.id, b);
    const bulk = async (body: Record<string, unknown>) => {
      const res = await t.http
        .post(`/v1/forms/${form.id}/submissions/bulk`)
        .set(bearer(editor.token))
        .send({ ids: [a, b], ...body });
      expect(res.body, res.text).toEqual({ ok: true, affected: 2, skipped: [] });
    };
    await bulk({ action: 'set_stage', stage: 'done' });
    await bulk({ action: 'add_tags', tags: ['X'] });
    await bulk({ action: 'assign', assignee_id: owner.userId });
    const actor = await actorOf(editor);
    expect((await entries(owner, form.id, a)).map((e) => [e.actor, e.change])).toEqual([
      [actor, { field: 'assignee', from: null, to: await memberView(owner) }],
      [actor, { field: 'tags', from: [], to: ['x'] }],
      [actor, { field: 'stage', from: 'new', to: 'done' }],
    ]);
    // b was in `done` with `x` already: only the assignee changed.
    const onB = await entries(owner, form.id, b);
    expect(onB.slice(1)).toEqual(before);
    expect(onB[0]).toMatchObject({ actor, change: { field: 'assignee', from: null, to: await memberView(owner) } });
  });

  it('records notes added (null → id) and deleted (id → null) by whoever did it', async () => {
    const owner = await makeTeam(t);
    const editor = await makeMember(t, owner.teamId, 'editor');
    const form = await formWith(owner);
    const id = form.subs[0]!;
    const n = await note(editor, form.id, id, 'A note.');
    const res = await deleteNote(owner, form.id, id, n.id);
    expect(res.status, res.text).toBe(200);
    expect(await entries(owner, form.id, id)).toEqual([
      { at: expect.stringMatching(ISO), actor: await actorOf(owner), change: { field: 'notes', from: n.id, to: null } },
      {
        at: expect.stringMatching(ISO),
        actor: await actorOf(editor),
        change: { field: 'notes', from: null, to: n.id },
      },
    ]);
  });

  it("is 404 for another team's submission and for another form's", async () => {
    const owner = await makeTeam(t);
    const stranger = await makeTeam(t);
    const form = await formWith(owner);
    const otherForm = await formWith(owner);
    const id = form.subs[0]!;
    expect((await activity(stranger, form.id, id)).status).toBe(404);
    expect((await notes(stranger, form.id, id)).status).toBe(404);
    expect((await addNote(stranger, form.id, id, 'x')).status).toBe(404);
    expect((await activity(owner, otherForm.id, id)).status).toBe(404);
    expect((await notes(owner, otherForm.id, id)).status).toBe(404);
    expect((await addNote(owner, otherForm.id, id, 'x')).status).toBe(404);
    expect((await detail(owner, form.id, id)).notes_count).toBe(0);
  });
});
