import { describe, expect, it } from 'vitest';
import { cliHome, runCli, userEnv } from '../support/cli.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeMember, makeTeam, type TestMember } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';

/** Triage from the CLI (docs/forms-and-submissions.md "Triage"): the real binary against a live server. */

const t = await startLiveTestApp();
const home = cliHome('intake-cli-triage-');
const SLOW = { timeout: 120_000 };

function cli(member: TestMember, ...args: string[]) {
  return runCli(args, userEnv(home, { url: t.baseUrl, token: member.token }));
}

/** `intake … --json` parsed, failing with the CLI's stderr. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function json(member: TestMember, ...args: string[]): Promise<any> {
  const res = await cli(member, ...args, '--json');
  expect(res.code, `intake ${args.join(' ')}: ${res.stderr}`).toBe(0);
  return JSON.parse(res.stdout);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const api = async (member: TestMember, p: string): Promise<any> =>
  (await t.http.get(p).set(bearer(member.token))).body.data;

/** A printed table as records keyed by its header's column names (cells are two or more spaces apart). */
function rowsOf(stdout: string): Array<Record<string, string>> {
  const [header, ...rows] = stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/\s{2,}/));
  return rows.map((cells) => Object.fromEntries(header!.map((name, i) => [name, cells[i] ?? ''])));
}

async function submit(form: string, email: string): Promise<string> {
  const res = await t.http.post(`/f/${form}`).set('Accept', 'application/json').type('form').send({ email });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body.id as string;
}

/** A team with an owner and an editor, a published form and one submission. */
async function setup() {
  const owner = await makeTeam(t, { plan: 'team' });
  const editor = await makeMember(t, owner.teamId, 'editor');
  const form = (await makePublishedForm(t, owner)).id;
  const submission = await submit(form, 'ada@example.com');
  const detail = (s = submission) => api(owner, `/v1/forms/${form}/submissions/${s}`);
  return { owner, editor, form, submission, detail };
}

describe('intake submissions tag | stage | assign', SLOW, () => {
  it('tag adds (trimmed, lower-cased, once), removes and replaces; human output shows the triage fields', async () => {
    const { owner, form, submission, detail } = await setup();
    const added = await json(
      owner,
      'submissions',
      'tag',
      submission,
      '--form',
      form,
      '--add',
      ' Urgent ,VIP',
      '--add',
      'vip',
    );
    expect(added.tags).toEqual(['urgent', 'vip']);
    expect(added).toEqual(await detail());

    const changed = await json(
      owner,
      'submissions',
      'tag',
      submission,
      '--form',
      form,
      '--remove',
      'vip',
      '--add',
      'old',
    );
    expect(changed.tags).toEqual(['urgent', 'old']);

    const human = await cli(owner, 'submissions', 'tag', submission, '--form', form, '--set', 'billing,callback');
    expect(human.code, human.stderr).toBe(0);
    const current = await detail();
    expect(current.tags).toEqual(['billing', 'callback']);
    expect(human.stdout).toMatch(new RegExp(`^id\\s+${submission}$`, 'm'));
    expect(human.stdout).toMatch(/^tags\s+billing, callback$/m);
    expect(human.stdout).toMatch(/^stage\s+new$/m);
    expect(human.stdout).toMatch(/^assignee\s+—$/m);
    expect(human.stdout).toContain(current.etag);

    expect((await json(owner, 'submissions', 'tag', submission, '--form', form, '--set', '')).tags).toEqual([]);
  });

  it('tag: conflicting or missing options are usage errors that send nothing; a bad tag is the API 400', async () => {
    const { owner, form, submission, detail } = await setup();
    const before = await detail();
    const both = await cli(owner, 'submissions', 'tag', submission, '--form', form, '--set', 'a', '--add', 'b');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--set replaces the tags');
    const none = await cli(owner, 'submissions', 'tag', submission, '--form', form);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--add, --remove or --set');
    const noForm = await cli(owner, 'submissions', 'tag', submission, '--add', 'a');
    expect(noForm.code).toBe(2);
    expect(noForm.stderr).toContain("required option '--form <id>' not specified");
    const bad = await cli(owner, 'submissions', 'tag', submission, '--form', form, '--add', 'a;b');
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/400 validation_failed/);
    expect(bad.stderr).toMatch(/add_tags/);
    expect((await detail()).etag).toBe(before.etag);
  });

  it('stage moves a submission by argument or --to; an unknown stage is a 400 naming `stage`', async () => {
    const { owner, form, submission, detail } = await setup();
    expect((await detail()).stage).toBe('new');
    expect((await json(owner, 'submissions', 'stage', submission, '--form', form, 'in_progress')).stage).toBe(
      'in_progress',
    );
    expect((await json(owner, 'submissions', 'stage', submission, '--form', form, '--to', 'done')).stage).toBe('done');
    expect((await detail()).stage).toBe('done');

    const twice = await cli(owner, 'submissions', 'stage', submission, '--form', form, 'new', '--to', 'done');
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('the stage is given twice');
    const missing = await cli(owner, 'submissions', 'stage', submission, '--form', form);
    expect(missing.code).toBe(2);
    const unknown = await cli(owner, 'submissions', 'stage', submission, '--form', form, 'archived');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^ {2}stage: /m);
    expect((await detail()).stage).toBe('done');
  });

  it('assign takes a member id, `me` (the caller) or `none`; anyone else is a 400 naming `assignee_id`', async () => {
    const { owner, editor, form, submission, detail } = await setup();
    const mine = await json(owner, 'submissions', 'assign', submission, '--form', form, 'me');
    expect(mine.assignee).toMatchObject({ id: owner.userId });
    expect((await detail()).assignee.id).toBe(owner.userId);

    const human = await cli(owner, 'submissions', 'assign', submission, '--form', form, editor.userId);
    expect(human.code, human.stderr).toBe(0);
    const assigned = (await detail()).assignee;
    expect(assigned.id).toBe(editor.userId);
    expect(human.stdout).toMatch(new RegExp(`^assignee\\s+.*<${assigned.email}>$`, 'm'));

    // `me` is whoever runs the command.
    expect((await json(editor, 'submissions', 'assign', submission, '--form', form, 'me')).assignee.id).toBe(
      editor.userId,
    );
    expect((await json(owner, 'submissions', 'assign', submission, '--form', form, 'none')).assignee).toBeNull();
    // The generic update clears a nullable field with --no-<field>.
    await json(owner, 'submissions', 'assign', submission, '--form', form, 'me');
    const cleared = await json(owner, 'submissions', 'update', submission, '--form', form, '--no-assignee-id');
    expect(cleared.assignee).toBeNull();

    const stranger = await makeTeam(t);
    const outsider = await cli(owner, 'submissions', 'assign', submission, '--form', form, stranger.userId);
    expect(outsider.code).toBe(2);
    expect(outsider.stderr).toMatch(/^ {2}assignee_id: /m);
    expect((await detail()).assignee).toBeNull();
  });

  it('--if-match: a stale ETag is refused (412) and changes nothing; the current one or `*` goes through', async () => {
    const { owner, form, submission, detail } = await setup();
    const read = await json(owner, 'submissions', 'get', submission, '--form', form);
    const etag = read.etag as string;
    expect(etag).toMatch(/^".+"$/);
    const moved = await json(
      owner,
      'submissions',
      'stage',
      submission,
      '--form',
      form,
      'in_progress',
      '--if-match',
      etag,
    );
    expect(moved.etag).not.toBe(etag);

    for (const args of [
      ['submissions', 'stage', submission, '--form', form, 'done'],
      ['submissions', 'tag', submission, '--form', form, '--add', 'late'],
      ['submissions', 'assign', submission, '--form', form, 'me'],
      ['submissions', 'update', submission, '--form', form, '--stage', 'done'],
    ]) {
      const stale = await cli(owner, ...args, '--if-match', etag);
      expect(stale.code, args.join(' ')).not.toBe(0);
      expect(stale.stdout).toBe('');
      expect(stale.stderr).toContain('412 precondition_failed');
    }
    const unchanged = await detail();
    expect(unchanged).toMatchObject({ stage: 'in_progress', tags: [], assignee: null, etag: moved.etag });

    const updated = await json(
      owner,
      'submissions',
      'update',
      submission,
      '--form',
      form,
      '--add-tags',
      'vip',
      '--if-match',
      moved.etag,
    );
    expect(updated.tags).toEqual(['vip']);
    expect(
      (await json(owner, 'submissions', 'stage', submission, '--form', form, 'done', '--if-match', '*')).stage,
    ).toBe('done');
  });
});

describe('intake submissions note | notes | delete-note | activity', SLOW, () => {
  it('adds notes (trimmed), lists them oldest first, deletes by author or owner only, and counts them', async () => {
    const { owner, editor, form, submission, detail } = await setup();
    const first = await json(owner, 'submissions', 'note', submission, '--form', form, '--body', '  Called back  ');
    expect(first).toMatchObject({ body: 'Called back', author: { id: owner.userId } });
    expect(first.id).toMatch(/^note_/);
    const second = await json(editor, 'submissions', 'note', submission, '--form', form, '--body', 'Quote sent');

    const listed = await json(owner, 'submissions', 'notes', submission, '--form', form);
    expect(listed).toEqual(await api(owner, `/v1/forms/${form}/submissions/${submission}/notes`));
    expect(listed.map((n: { id: string }) => n.id)).toEqual([first.id, second.id]);
    expect((await detail()).notes_count).toBe(2);

    const table = await cli(owner, 'submissions', 'notes', submission, '--form', form);
    expect(table.code, table.stderr).toBe(0);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+AUTHOR\s+CREATED_AT\s+BODY$/);
    expect(rows[0]).toMatch(new RegExp(`^${first.id}\\s+${listed[0].author.email}\\s+.*(ago|now)\\s+Called back$`));

    const empty = await cli(owner, 'submissions', 'note', submission, '--form', form, '--body', '   ');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^ {2}body: /m);

    const denied = await cli(editor, 'submissions', 'delete-note', submission, first.id, '--form', form);
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain('403 forbidden');
    expect(await json(owner, 'submissions', 'delete-note', submission, second.id, '--form', form)).toEqual({
      ok: true,
    });
    const gone = await cli(owner, 'submissions', 'delete-note', submission, second.id, '--form', form);
    expect(gone.code).toBe(4);
    expect(
      (await json(owner, 'submissions', 'notes', submission, '--form', form)).map((n: { id: string }) => n.id),
    ).toEqual([first.id]);
    expect((await detail()).notes_count).toBe(1);
  });

  it('activity lists each change newest first, with who made it; the table reads field, from, to', async () => {
    const { owner, editor, form, submission } = await setup();
    await json(owner, 'submissions', 'stage', submission, '--form', form, 'in_progress');
    await json(owner, 'submissions', 'tag', submission, '--form', form, '--add', 'urgent');
    await json(owner, 'submissions', 'assign', submission, '--form', form, editor.userId);
    const note = await json(owner, 'submissions', 'note', submission, '--form', form, '--body', 'Called back');

    const activity = await json(owner, 'submissions', 'activity', submission, '--form', form);
    expect(activity).toEqual(await api(owner, `/v1/forms/${form}/submissions/${submission}/activity`));
    expect(activity.map((e: { change: unknown }) => e.change)).toEqual([
      { field: 'notes', from: null, to: note.id },
      { field: 'assignee', from: null, to: expect.objectContaining({ id: editor.userId }) },
      { field: 'tags', from: [], to: ['urgent'] },
      { field: 'stage', from: 'new', to: 'in_progress' },
    ]);
    expect(activity[0].actor).toMatchObject({ id: owner.userId, token: { id: owner.tokenId } });

    const table = await cli(owner, 'submissions', 'activity', submission, '--form', form);
    expect(table.code, table.stderr).toBe(0);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^AT\s+ACTOR\s+FIELD\s+FROM\s+TO$/);
    const email = activity[0].actor.email as string;
    expect(rows).toHaveLength(4);
    expect(rows[0]).toMatch(new RegExp(`${email}\\s+notes\\s+—\\s+${note.id}$`));
    expect(rows[1]).toMatch(new RegExp(`${email}\\s+assignee\\s+—\\s+.*<${activity[1].change.to.email}>$`));
    expect(rows[2]).toMatch(new RegExp(`${email}\\s+tags\\s+—\\s+urgent$`));
    expect(rows[3]).toMatch(new RegExp(`${email}\\s+stage\\s+new\\s+in_progress$`));
  });
});

describe('intake forms stages | tags, and submissions list filters', SLOW, () => {
  it("forms stages counts each stage's inbox submissions; forms tags counts tags, most used first", async () => {
    const { owner, form, submission } = await setup();
    const others = [await submit(form, 'bob@example.com'), await submit(form, 'cy@example.com')];
    await json(owner, 'submissions', 'stage', submission, '--form', form, 'in_progress');
    await json(owner, 'submissions', 'tag', submission, '--form', form, '--add', 'urgent,vip');
    await json(owner, 'submissions', 'tag', others[0]!, '--form', form, '--add', 'urgent');

    const stages = await json(owner, 'forms', 'stages', form);
    expect(stages).toEqual(await api(owner, `/v1/forms/${form}/stages`));
    expect(stages).toEqual([
      { key: 'new', label: 'New', done: false, count: 2 },
      { key: 'in_progress', label: 'In progress', done: false, count: 1 },
      { key: 'done', label: 'Done', done: true, count: 0 },
    ]);
    const table = await cli(owner, 'forms', 'stages', form);
    expect(table.code, table.stderr).toBe(0);
    expect(rowsOf(table.stdout)).toEqual([
      { KEY: 'new', LABEL: 'New', DONE: 'false', COUNT: '2' },
      { KEY: 'in_progress', LABEL: 'In progress', DONE: 'false', COUNT: '1' },
      { KEY: 'done', LABEL: 'Done', DONE: 'true', COUNT: '0' },
    ]);

    const tags = await json(owner, 'forms', 'tags', form);
    expect(tags).toEqual(await api(owner, `/v1/forms/${form}/tags`));
    expect(tags).toEqual([
      { tag: 'urgent', count: 2 },
      { tag: 'vip', count: 1 },
    ]);
  });

  it('submissions list --tag (repeated or comma-separated: all must hold), --stage and --assignee', async () => {
    const { owner, editor, form, submission } = await setup();
    const [both, urgentOnly, plain] = [
      submission,
      await submit(form, 'bob@example.com'),
      await submit(form, 'cy@example.com'),
    ];
    await json(owner, 'submissions', 'tag', both, '--form', form, '--add', 'urgent,vip');
    await json(owner, 'submissions', 'tag', urgentOnly, '--form', form, '--add', 'urgent');
    await json(owner, 'submissions', 'stage', urgentOnly, '--form', form, 'done');
    await json(owner, 'submissions', 'assign', both, '--form', form, 'me');
    await json(owner, 'submissions', 'assign', plain, '--form', form, editor.userId);
    const ids = (list: Array<{ id: string }>) => list.map((s) => s.id).sort();

    const urgent = await json(owner, 'submissions', 'list', '--form', form, '--tag', 'URGENT');
    expect(ids(urgent)).toEqual([both, urgentOnly].sort());
    expect(urgent).toEqual(await api(owner, `/v1/forms/${form}/submissions?tag=urgent`));
    const repeated = await json(owner, 'submissions', 'list', '--form', form, '--tag', 'urgent', '--tag', 'vip');
    expect(ids(repeated)).toEqual([both]);
    expect(repeated).toEqual(await api(owner, `/v1/forms/${form}/submissions?tag=urgent&tag=vip`));
    expect(ids(await json(owner, 'submissions', 'list', '--form', form, '--tag', 'urgent,vip'))).toEqual([both]);
    const table = await cli(owner, 'submissions', 'list', '--form', form, '--tag', 'urgent', '--tag', 'vip');
    expect(table.code, table.stderr).toBe(0);
    expect(rowsOf(table.stdout)).toEqual([
      expect.objectContaining({
        ID: both,
        STAGE: 'new',
        TAGS: 'urgent, vip',
        ASSIGNEE: (await api(owner, '/v1/me')).user.email,
      }),
    ]);
    expect(await json(owner, 'submissions', 'list', '--form', form, '--tag', 'vip', '--tag', 'nothing')).toEqual([]);

    expect(ids(await json(owner, 'submissions', 'list', '--form', form, '--stage', 'done'))).toEqual([urgentOnly]);
    expect(ids(await json(owner, 'submissions', 'list', '--form', form, '--assignee', 'me'))).toEqual([both]);
    expect(ids(await json(editor, 'submissions', 'list', '--form', form, '--assignee', 'me'))).toEqual([plain]);
    expect(ids(await json(owner, 'submissions', 'list', '--form', form, '--assignee', 'none'))).toEqual([urgentOnly]);
    expect(ids(await json(owner, 'submissions', 'list', '--form', form, '--assignee', editor.userId))).toEqual([plain]);
    expect(
      ids(await json(owner, 'submissions', 'list', '--form', form, '--tag', 'urgent', '--assignee', 'none')),
    ).toEqual([urgentOnly]);

    const badStage = await cli(owner, 'submissions', 'list', '--form', form, '--stage', 'archived');
    expect(badStage.code).toBe(2);
    expect(badStage.stderr).toMatch(/^ {2}stage: /m);
  });
});
