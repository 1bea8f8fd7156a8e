import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient } from '../../sdk/index.ts';
import { verifyWebhook } from '../../sdk/webhooks.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeMember, makeTeam, type TestMember } from '../support/harness.ts';
import { hookedForms, type HookedForm } from '../support/hooked-forms.ts';
import { startHttpsReceiver } from '../support/https-receiver.ts';
import { listenLocally } from '../support/live-server.ts';
import { call, errorOf } from '../support/mcp-tools.ts';
import { postForm, startProcessingApp, waitForProcessing } from '../support/processing.ts';
import { startSmtpTestServer } from '../support/smtp.ts';
import { eventually as waitUntil, workerProcesses } from '../support/worker-process.ts';

// Triage as others see it: `submission.updated` webhooks and the triage fields of every event body (sent by a
// real `intake worker`, the one process that trusts the receivers' certificate), the assignee's e-mail (real
// SMTP), exports, the MCP tools (a real MCP client) and the SDK.
const smtp = await startSmtpTestServer();
afterAll(() => smtp.close());
const ENV = {
  INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true',
  INTAKE_INGEST_RATE_LIMIT: '100000',
  INTAKE_INGEST_FLOOD_LIMIT: '100000',
  INTAKE_VERIFY_NOTIFICATION_EMAILS: 'false',
  SMTP_URL: smtp.url,
};
const t = await startProcessingApp(ENV, { worker: false });
const { baseUrl } = await listenLocally(t.app);
const worker = workerProcesses({
  databaseUrl: t.databaseUrl,
  dataDir: t.dataDir,
  env: { ...ENV, INTAKE_DELIVERY_SCHEDULE: '0,0.5,0.5,0.5,0.5,0.5,0.5' },
}).start();
const hookedForm = hookedForms(t);

const eventually = <T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000) =>
  waitUntil(fn, ok, timeoutMs, () => `worker output:\n${worker.output().slice(-4000)}`);
const quiet = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Member = { id: string; email: string; name: string };
const CREATED_KEYS = ['type', 'submission_id', 'form_id', 'form_name', 'received_at', 'payload', 'files', 'meta'];
const TRIAGE_KEYS = ['tags', 'stage', 'assignee'];

async function memberView(m: TestMember): Promise<Member> {
  const { rows } = await t.ctx.db.query<Member>('select id, email, name from users where id = $1', [m.userId]);
  return rows[0]!;
}
const actorOf = async (m: TestMember) => ({ ...(await memberView(m)), token: { id: m.tokenId, name: 'test' } });

const sub = (formId: string, id: string) => `/v1/forms/${formId}/submissions/${id}`;
async function put(m: TestMember, formId: string, id: string, body: Record<string, unknown>) {
  const res = await t.http.put(sub(formId, id)).set(bearer(m.token)).send(body);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** A webhook on the form of `h` to a receiver of its own. */
async function anotherHook(h: HookedForm, webhook: Record<string, unknown>) {
  const receiver = await startHttpsReceiver();
  afterAll(() => receiver.close());
  const res = await t.http
    .post(`/v1/forms/${h.formId}/webhooks`)
    .set(bearer(h.owner.token))
    .send({ label: 'Other', url: `${receiver.localhostUrl}/hooks/other`, ...webhook });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.data.id as string, receiver };
}

async function deliveries(webhookId: string) {
  const { rows } = await t.ctx.db.query<{ event: string; submission_id: string | null }>(
    'select event, submission_id from deliveries where webhook_id = $1 order by id',
    [webhookId],
  );
  return rows;
}

/** RFC 4180 rows: quoted cells may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [[]];
  let cell = '';
  let quoted = false;
  const endCell = () => {
    rows[rows.length - 1]!.push(cell);
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted && ch === '"' && text[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === ',') endCell();
    else if (!quoted && ch === '\n') {
      if (cell.endsWith('\r')) cell = cell.slice(0, -1);
      endCell();
      rows.push([]);
    } else cell += ch;
  }
  endCell();
  return rows;
}

describe('submission.updated', { timeout: 60_000 }, () => {
  it('a subscribed webhook gets the submission as it is now with changes and actor; a filter that does not match gets none; no change sends nothing', async () => {
    const h = await hookedForm(undefined, {
      events: ['submission.updated'],
      filter: [{ field: 'topic', op: 'equals', value: 'SALES' }],
    });
    const other = await anotherHook(h, {
      events: ['submission.updated'],
      filter: [{ field: 'topic', op: 'equals', value: 'support' }],
    });
    const createdOnly = await anotherHook(h, { events: ['submission.created'] });
    const editor = await makeMember(t, h.owner.teamId, 'editor');
    const id = await postForm(t, h.endpoint, { name: 'Ada', topic: 'sales' });
    // The first test of the file: the worker process may still be starting.
    await waitForProcessing(t, id, 30_000);
    await createdOnly.receiver.waitFor(1, 30_000);

    await put(h.owner, h.formId, id, { stage: 'in_progress', add_tags: ['Lead', 'vip'], assignee_id: editor.userId });
    const [req] = await h.receiver.waitFor(1);
    const event = verifyWebhook(h.secret, req!.headers, req!.body) as Record<string, unknown>;
    expect(event).toEqual({
      type: 'submission.updated',
      submission_id: id,
      form_id: h.formId,
      form_name: 'Contact',
      received_at: expect.any(String),
      payload: { name: 'Ada', topic: 'sales' },
      files: [],
      meta: expect.any(Object),
      tags: ['lead', 'vip'],
      stage: 'in_progress',
      assignee: await memberView(editor),
      changes: {
        stage: { from: 'new', to: 'in_progress' },
        tags: { added: ['lead', 'vip'], removed: [] },
        assignee: { from: null, to: await memberView(editor) },
      },
      actor: await actorOf(h.owner),
    });
    expect(Object.keys(JSON.parse(req!.body))).toEqual([...CREATED_KEYS, ...TRIAGE_KEYS, 'changes', 'actor']);

    // Nothing new: the same stage and tags, a payload edit, a note. None of them is a triage change.
    await put(h.owner, h.formId, id, { stage: 'in_progress', tags: ['LEAD', 'vip'], assignee_id: editor.userId });
    await put(h.owner, h.formId, id, { payload: { extra: 'x' } });
    const note = await t.http
      .post(`${sub(h.formId, id)}/notes`)
      .set(bearer(h.owner.token))
      .send({ body: 'secret' });
    expect(note.status, note.text).toBe(201);

    // A bulk change is sent too, with only what changed; the note never is.
    const bulk = await t.http
      .post(`/v1/forms/${h.formId}/submissions/bulk`)
      .set(bearer(editor.token))
      .send({ ids: [id], action: 'remove_tags', tags: ['VIP'] });
    expect(bulk.body, bulk.text).toEqual({ ok: true, affected: 1, skipped: [] });
    const [, second] = await h.receiver.waitFor(2);
    const body = JSON.parse(second!.body);
    expect(body).toMatchObject({
      type: 'submission.updated',
      tags: ['lead'],
      stage: 'in_progress',
      changes: { tags: { added: [], removed: ['vip'] } },
      actor: await actorOf(editor),
    });
    expect(Object.keys(body.changes)).toEqual(['tags']);
    expect(second!.body).not.toContain('secret');

    await quiet(2500);
    expect(h.receiver.requests).toHaveLength(2);
    expect(other.receiver.requests).toHaveLength(0);
    expect(await deliveries(other.id)).toEqual([]);
    // The submission.created-only webhook got its one delivery and no update.
    expect((await deliveries(createdOnly.id)).map((d) => d.event)).toEqual(['submission.created']);
  });

  it('submission.created and submission.spam bodies carry tags, stage and assignee after meta', async () => {
    const h = await hookedForm(undefined, { events: ['submission.created', 'submission.spam'] });
    const clean = await postForm(t, h.endpoint, { name: 'Grace', message: 'Hello' });
    const spam = await postForm(t, h.endpoint, { name: 'bot', _gotcha: 'filled' });
    const got = await h.receiver.waitFor(2);
    const bodies = got.map((r) => JSON.parse(r.body) as Record<string, unknown>);
    const created = bodies.find((b) => b.type === 'submission.created')!;
    const spammed = bodies.find((b) => b.type === 'submission.spam')!;
    expect(created).toMatchObject({ submission_id: clean, tags: [], stage: 'new', assignee: null });
    expect(Object.keys(created)).toEqual([...CREATED_KEYS, ...TRIAGE_KEYS]);
    expect(spammed).toMatchObject({ submission_id: spam, tags: [], stage: 'new', assignee: null });
    const keys = Object.keys(spammed);
    expect(keys.slice(0, CREATED_KEYS.length + 3)).toEqual([...CREATED_KEYS, ...TRIAGE_KEYS]);
  });
});

describe('the assignee is e-mailed', { timeout: 60_000 }, () => {
  it('naming the form and the submission; assigning oneself sends nothing', async () => {
    const owner = await makeTeam(t);
    const editor = await makeMember(t, owner.teamId, 'editor');
    const form = await makePublishedForm(t, owner, { name: 'Partnerships' });
    const id = await postForm(t, form.endpoint, { name: 'Linus', message: 'Shall we work together?' });
    const [mine, theirs] = [(await memberView(owner)).email, (await memberView(editor)).email];
    const to = (address: string) => smtp.messages.filter((m) => m.envelope.to.includes(address));

    await put(owner, form.id, id, { assignee_id: owner.userId });
    await put(owner, form.id, id, { assignee_id: editor.userId });
    const [mail] = await eventually(
      async () => to(theirs),
      (m) => m.length > 0,
    );
    expect(`${mail!.subject}\n${mail!.text}`).toContain('Partnerships');
    expect(mail!.text).toContain(id);
    await quiet(1500);
    expect(to(theirs)).toHaveLength(1);
    expect(to(mine)).toEqual([]);
  });
});

describe('exports', () => {
  it('CSV has _tags (joined with ", "), _stage and _assignee (the e-mail); JSON items carry tags, stage, assignee', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const editor = await makeMember(t, owner.teamId, 'editor');
    const form = await makePublishedForm(t, owner);
    const a = await postForm(t, form.endpoint, { name: 'Ada' });
    const b = await postForm(t, form.endpoint, { name: 'Bob' });
    await put(owner, form.id, a, { tags: ['Lead', 'vip'], stage: 'done', assignee_id: editor.userId });
    await t.http
      .post(`${sub(form.id, a)}/notes`)
      .set(bearer(owner.token))
      .send({ body: 'private remark' });

    const csv = await t.http.get(`/v1/forms/${form.id}/submissions/export?format=csv`).set(bearer(owner.token));
    expect(csv.status, csv.text).toBe(200);
    expect(csv.text).not.toContain('private remark');
    const [header, ...rows] = parseCsv(csv.text.trimEnd());
    for (const column of ['_tags', '_stage', '_assignee', '_rules']) expect(header).toContain(column);
    const row = (id: string) => {
      const r = rows.find((cells) => cells[0] === id)!;
      return Object.fromEntries(header!.map((h, i) => [h, r[i]]));
    };
    const editorEmail = (await memberView(editor)).email;
    expect(row(a)).toMatchObject({ name: 'Ada', _tags: 'lead, vip', _stage: 'done', _assignee: editorEmail });
    expect(row(b)).toMatchObject({ name: 'Bob', _tags: '', _stage: 'new', _assignee: '' });

    const json = await t.http.get(`/v1/forms/${form.id}/submissions/export?format=json`).set(bearer(owner.token));
    expect(json.status, json.text).toBe(200);
    expect(json.text).not.toContain('private remark');
    const items = JSON.parse(json.text) as Array<Record<string, unknown>>;
    expect(items.find((i) => i.id === a)).toMatchObject({
      tags: ['lead', 'vip'],
      stage: 'done',
      assignee: await memberView(editor),
    });
    expect(items.find((i) => i.id === b)).toMatchObject({ tags: [], stage: 'new', assignee: null });
  });
});

describe('MCP tools and the SDK', () => {
  const clients: Client[] = [];
  afterAll(async () => {
    for (const c of clients) await c.close();
  });
  async function mcp(token: string): Promise<Client> {
    const client = new Client({ name: 'triage-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: bearer(token) } }),
    );
    clients.push(client);
    return client;
  }

  it('update_submission with add_tags, create_submission_note and list_submission_activity', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const id = await postForm(t, form.endpoint, { name: 'Ada' });
    const client = await mcp(owner.token);

    const updated = await call(client, 'update_submission', {
      form: form.id,
      submission: id,
      add_tags: ['From MCP'],
      stage: 'in_progress',
    });
    expect(errorOf(updated)).toBeNull();
    expect(updated.structuredContent).toMatchObject({ data: { id, tags: ['from mcp'], stage: 'in_progress' } });

    const created = await call(client, 'create_submission_note', { form: form.id, submission: id, body: ' Noted. ' });
    expect(errorOf(created)).toBeNull();
    const note = (created.structuredContent as { data: { id: string; body: string } }).data;
    expect(note).toMatchObject({ id: expect.stringMatching(/^note_/), body: 'Noted.', author: await actorOf(owner) });
    const listed = await t.http.get(`${sub(form.id, id)}/notes`).set(bearer(owner.token));
    expect(listed.body.data).toEqual([note]);

    const activity = await call(client, 'list_submission_activity', { form: form.id, submission: id });
    expect(errorOf(activity)).toBeNull();
    const changes = (activity.structuredContent as { data: Array<{ change: { field: string } }> }).data.map(
      (e) => e.change,
    );
    expect(changes[0]).toEqual({ field: 'notes', from: null, to: note.id });
    expect(changes.slice(1)).toEqual(
      expect.arrayContaining([
        { field: 'tags', from: [], to: ['from mcp'] },
        { field: 'stage', from: 'new', to: 'in_progress' },
      ]),
    );
    expect(changes).toHaveLength(3);
    expect(activity.structuredContent).toEqual(
      (await t.http.get(`${sub(form.id, id)}/activity`).set(bearer(owner.token))).body,
    );

    const refused = await call(client, 'create_submission_note', { form: form.id, submission: id, body: '' });
    expect(errorOf(refused)).toMatchObject({ error: 'validation_failed' });
  });

  it('the SDK calls createSubmissionNote and listFormStages', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, {
      settings: {
        stages: [
          { key: 'open', label: 'Open' },
          { key: 'won', label: 'Won', done: true },
        ],
      },
    });
    const id = await postForm(t, form.endpoint, { name: 'Ada' });
    const client = createClient({ baseUrl, token: owner.token });

    const created = await client.createSubmissionNote({
      params: { form: form.id, submission: id },
      body: { body: 'Via the SDK' },
    });
    expect(created.status).toBe(201);
    if (created.status !== 201) return;
    expect(created.body.data).toMatchObject({ body: 'Via the SDK', author: await actorOf(owner) });

    const stages = await client.ok.listFormStages({ params: { form: form.id } });
    expect(stages).toEqual({
      data: [
        { key: 'open', label: 'Open', done: false, count: 1 },
        { key: 'won', label: 'Won', done: true, count: 0 },
      ],
    });
    await expect(
      client.ok.createSubmissionNote({ params: { form: form.id, submission: id }, body: { body: 'x'.repeat(10_001) } }),
    ).rejects.toMatchObject({ status: 400, code: 'validation_failed' });
  });
});
