import { describe, expect, it } from 'vitest';
import { runErasure } from '../../server/domain/lifecycle/erasure.ts';
import { nextSweepAt, sweepRetention } from '../../server/domain/lifecycle/retention.ts';
import { makePublishedForm, readObject, submissionsOf } from '../support/forms.ts';
import { bearer, makeMember, makeTeam, type TestMember } from '../support/harness.ts';
import { startProcessingApp, waitForProcessing } from '../support/processing.ts';
import { eventually } from '../support/worker-process.ts';

const t = await startProcessingApp({
  INTAKE_INGEST_RATE_LIMIT: '10000',
  INTAKE_INGEST_FLOOD_LIMIT: '10000',
  INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true',
});

const DAY = 24 * 3600 * 1000;

async function post(endpoint: string, body: Record<string, unknown>): Promise<string> {
  const res = await t.http.post(endpoint).set('Content-Type', 'application/json').send(JSON.stringify(body));
  if (res.status !== 201) throw new Error(`post failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

async function postWithFile(endpoint: string, fields: Record<string, string>): Promise<string> {
  let req = t.http.post(endpoint).set('Accept', 'application/json');
  for (const [k, v] of Object.entries(fields)) req = req.field(k, v);
  const res = await req.attach('cv', Buffer.from('%PDF-1.7 old'), {
    filename: 'cv.pdf',
    contentType: 'application/pdf',
  });
  if (res.status !== 201) throw new Error(`post failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** Moves a submission's receipt time into the past. */
async function age(id: string, at: Date): Promise<void> {
  await t.ctx.db.query('update submissions set received_at = $2 where id = $1', [id, at]);
}

const ids = async (formId: string) => (await submissionsOf(t, formId)).map((s) => s.id).sort();

describe('retention', () => {
  it('deletes what has aged out — rows, files, events, delivery bodies — and nothing inside the window', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, { settings: { retention: { submissions_days: 30, spam_days: 7 } } });
    const hook = await t.http
      .post(`/v1/forms/${form.id}/webhooks`)
      .set(bearer(owner.token))
      .send({ label: 'down', url: 'https://127.0.0.1:9/hook' });
    expect(hook.status).toBe(201);
    const now = new Date('2030-06-15T03:15:00Z');

    const oldWithFile = await postWithFile(form.endpoint, { message: 'old, with a file' });
    const justOutside = await post(form.endpoint, { message: 'just outside' });
    const justInside = await post(form.endpoint, { message: 'just inside' });
    const oldSpam = await post(form.endpoint, { message: 'old spam', _gotcha: 'bot' });
    const newSpam = await post(form.endpoint, { message: 'new spam', _gotcha: 'bot' });
    for (const id of [oldWithFile, justOutside, justInside]) await waitForProcessing(t, id);
    // A person edited one (an audit event), and processing gave each clean one a delivery (its body: the data).
    expect(
      (
        await t.http
          .put(`/v1/forms/${form.id}/submissions/${justOutside}`)
          .set(bearer(owner.token))
          .send({ payload: { message: 'edited' } })
      ).status,
    ).toBe(200);
    await eventually(
      async () =>
        (
          await t.ctx.db.query(
            'select count(*)::int as n from deliveries where submission_id = any($1::text[]) and request_body is not null',
            [[oldWithFile, justOutside]],
          )
        ).rows[0],
      (r) => (r as { n: number }).n === 2,
    );
    const [file] = (
      await t.ctx.db.query<{ storage_key: string }>(
        'select storage_key from submission_files where submission_id = $1',
        [oldWithFile],
      )
    ).rows;
    expect((await readObject(t, file!.storage_key)).toString()).toBe('%PDF-1.7 old');

    await age(oldWithFile, new Date(now.getTime() - 90 * DAY));
    await age(justOutside, new Date(now.getTime() - 30 * DAY - 1000));
    await age(justInside, new Date(now.getTime() - 30 * DAY + 60_000));
    await age(oldSpam, new Date(now.getTime() - 7 * DAY - 1000));
    await age(newSpam, new Date(now.getTime() - 7 * DAY + 60_000));

    const swept = await sweepRetention(t.ctx, now);
    expect(swept).toMatchObject({ submissions: 3, files: 1 });
    expect(swept.deliveriesRedacted).toBeGreaterThanOrEqual(2);
    expect(await ids(form.id)).toEqual([justInside, newSpam].sort());
    const events = await t.ctx.db.query('select 1 from submission_events where submission_id = $1', [justOutside]);
    expect(events.rowCount).toBe(0);
    const deliveries = await t.ctx.db.query<{ request_body: string | null }>(
      'select request_body from deliveries where submission_id = any($1::text[])',
      [[oldWithFile, justOutside]],
    );
    expect(deliveries.rows.length).toBeGreaterThanOrEqual(2); // the log stays
    expect(deliveries.rows.every((d) => d.request_body === null)).toBe(true);
    // The file goes through its job: gone from storage.
    await eventually(
      () =>
        readObject(t, file!.storage_key).then(
          () => 'present',
          () => 'gone',
        ),
      (s) => s === 'gone',
    );
    // A second sweep finds nothing more.
    expect((await sweepRetention(t.ctx, now)).submissions).toBe(0);
  });

  it('shows the retention in force and when the next deletion will happen; plans cap it', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, { settings: { retention: { submissions_days: 10 } } });
    const fresh = await t.http.get(`/v1/forms/${form.id}`).set(bearer(owner.token));
    expect(fresh.body.data.settings.retention).toEqual({ submissions_days: 10, spam_days: 30 });
    expect(fresh.body.data.retention).toEqual({ submissions_days: 10, spam_days: 30, next_deletion_at: null });
    const id = await post(form.endpoint, { message: 'hello' });
    const received = new Date('2025-01-01T12:00:00Z');
    await age(id, received);
    const shown = await t.http.get(`/v1/forms/${form.id}`).set(bearer(owner.token));
    // Ten days after it arrived is in the past: the next daily sweep deletes it.
    expect(shown.body.data.retention.next_deletion_at).toBe(nextSweepAt(new Date()).toISOString());

    const free = await makeTeam(t, { plan: 'free' });
    const freeForm = await makePublishedForm(t, free, {
      settings: { retention: { submissions_days: null, spam_days: 1000 } },
    });
    const capped = await t.http.get(`/v1/forms/${freeForm.id}`).set(bearer(free.token));
    expect(capped.body.data.settings.retention).toEqual({ submissions_days: null, spam_days: 1000 });
    expect(capped.body.data.retention).toMatchObject({ submissions_days: 365, spam_days: 365 });
    const bad = await t.http
      .put(`/v1/forms/${freeForm.id}`)
      .set(bearer(free.token))
      .send({ settings: { retention: { submissions_days: 0 } } });
    expect(bad.status).toBe(400);
  });

  it('is safe to run on several workers at once', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, { settings: { retention: { submissions_days: 1 } } });
    const now = new Date('2030-06-15T03:15:00Z');
    // Many old rows, inserted directly (the sweep's batches are 500).
    await t.ctx.db.query(
      `insert into submissions (id, team_id, form_id, status, payload, received_at)
       select 'subm_dl' || lpad(g::text, 24, '0'), $1, $2, 'processed', '{"m":"x"}', $3::timestamptz - (g || ' seconds')::interval
         from generate_series(1, 1200) g`,
      [owner.teamId, form.id, new Date(now.getTime() - 5 * DAY)],
    );
    const total = async () =>
      (await t.ctx.db.query<{ n: number }>('select count(*)::int as n from submissions')).rows[0]!.n;
    const before = await total();
    const results = await Promise.all([
      sweepRetention(t.ctx, now),
      sweepRetention(t.ctx, now),
      sweepRetention(t.ctx, now),
    ]);
    // Each row deleted once, whichever sweeper took it (other tests' aged rows go too: the sweep is global).
    const deleted = results.reduce((n, r) => n + r.submissions, 0);
    expect(deleted).toBe(before - (await total()));
    expect(deleted).toBeGreaterThanOrEqual(1200);
    expect(results.filter((r) => r.submissions > 0).length).toBeGreaterThan(1);
    expect(await ids(form.id)).toEqual([]);
  });
});

async function erase(member: TestMember, body: Record<string, unknown>) {
  const res = await t.http.post('/v1/erasure').set(bearer(member.token)).send(body);
  expect(res.status).toBe(202);
  // The worker runs it; running it again here too (as a retried job would) changes nothing.
  await runErasure(t.ctx, res.body.erasure_id);
  await eventually(
    async () => (await t.http.get(`/v1/jobs/${res.body.job_id}`).set(bearer(member.token))).body.data,
    (job) => job.status === 'succeeded',
  );
  return res.body as { job_id: string; erasure_id: string };
}

describe('erasure requests', () => {
  it("erase one person across the team's forms, with a dry run first and a receipt, touching nothing else", async () => {
    const owner = await makeTeam(t);
    const other = await makeTeam(t);
    const contact = await makePublishedForm(t, owner);
    const jobs = await makePublishedForm(t, owner);
    const theirs = await makePublishedForm(t, other);
    const a1 = await post(contact.endpoint, { email: 'Ada@Example.com', message: 'hi' });
    const a2 = await post(jobs.endpoint, { name: 'Ada', note: 'reach me at ada@example.com, thanks' });
    const a3 = await postWithFile(jobs.endpoint, { contact: 'ada@example.com' });
    const keep1 = await post(contact.endpoint, { email: 'bada@example.com' });
    const keep2 = await post(contact.endpoint, { email: 'ada@example.com.au' });
    const keep3 = await post(contact.endpoint, { email: 'grace@example.com', message: 'ada' });
    const otherTeam = await post(theirs.endpoint, { email: 'ada@example.com' });

    // A dry run answers at once (test/lifecycle/erasure-dry-run.test.ts has the rest of it).
    const dry = await t.http
      .post('/v1/erasure')
      .set(bearer(owner.token))
      .send({ email: 'ada@example.com', dry_run: true });
    expect(dry.status).toBe(200);
    expect(dry.body.data).toMatchObject({
      dry_run: true,
      submissions: 3,
      files: 1,
      forms: [contact.id, jobs.id].sort(),
    });
    expect([...dry.body.data.submission_ids].sort()).toEqual([a1, a2, a3].sort());
    expect((await ids(contact.id)).length).toBe(4); // nothing erased

    const real = await erase(owner, { email: 'ada@example.com' });
    const receipt = await t.http.get(`/v1/erasure/${real.erasure_id}`).set(bearer(owner.token));
    expect(receipt.body.data).toMatchObject({
      job_id: real.job_id,
      dry_run: false,
      status: 'succeeded',
      requested_by: { token_id: owner.tokenId, user_id: owner.userId },
      erased: { submissions: 3, files: 1, forms: { [contact.id]: 1, [jobs.id]: 2 } },
    });
    expect(JSON.stringify(receipt.body)).not.toContain('ada@');
    const job = await t.http.get(`/v1/jobs/${real.job_id}`).set(bearer(owner.token));
    expect(job.body.data).toMatchObject({
      type: 'erasure',
      status: 'succeeded',
      done: 3,
      result: { erasure_id: real.erasure_id, submissions: 3, files: 1 },
    });
    expect(await ids(contact.id)).toEqual([keep1, keep2, keep3].sort());
    expect(await ids(jobs.id)).toEqual([]);
    expect(await ids(theirs.id)).toEqual([otherTeam]);
    for (const gone of [a1, a2, a3])
      expect((await t.ctx.db.query('select 1 from submissions where id = $1', [gone])).rowCount).toBe(0);
    // The value searched for is not kept once the request has run.
    const stored = await t.ctx.db.query<{ value_encrypted: string | null }>(
      'select value_encrypted from erasure_requests where id = $1',
      [real.erasure_id],
    );
    expect(stored.rows[0]!.value_encrypted).toBeNull();
    // Another team cannot read the receipt.
    expect((await t.http.get(`/v1/erasure/${real.erasure_id}`).set(bearer(other.token))).status).toBe(404);
  });

  it('erases by any exact value, and only owners and admins may ask', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const hit = await post(form.endpoint, { order: 'ORD-7731', items: ['a', 'ORD-7731'] });
    const miss = await post(form.endpoint, { order: 'ORD-77310' });
    await erase(owner, { value: 'ORD-7731' });
    expect(await ids(form.id)).toEqual([miss]);
    expect(hit).toBeTruthy();
    const editor = await makeMember(t, owner.teamId, 'editor');
    expect((await t.http.post('/v1/erasure').set(bearer(editor.token)).send({ value: 'x-1' })).status).toBe(403);
    expect(
      (await t.http.post('/v1/erasure').set(bearer(owner.token)).send({ email: 'a@b.co', value: 'x' })).status,
    ).toBe(400);
    expect((await t.http.post('/v1/erasure').set(bearer(owner.token)).send({})).status).toBe(400);
  });
});

describe('full-text search', () => {
  it('finds by words and prefixes, ignoring case and accents, with the filters and the cursor, within the team', async () => {
    const owner = await makeTeam(t);
    const other = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const theirs = await makePublishedForm(t, other);
    const zoe = await post(form.endpoint, {
      name: 'Zoë Ångström',
      email: 'zoe@example.org',
      message: 'Über die Preise',
      greeting: 'Hello',
    });
    const ada = await post(form.endpoint, {
      name: 'Ada Lovelace',
      email: 'ada@analytical.engine',
      message: 'Pricing for 40 seats',
      greeting: 'hello!',
    });
    const nested = await post(form.endpoint, {
      name: 'Grace',
      details: { company: 'Navy', tags: ['COBOL', 'compilers'] },
      seats: 12345,
      greeting: 'HELLO',
    });
    const spam = await post(form.endpoint, { name: 'Zoe spam', _gotcha: 'x' });
    await post(theirs.endpoint, { name: 'Zoe elsewhere' });
    for (const id of [zoe, ada, nested]) await waitForProcessing(t, id);

    const search = async (q: string, extra = '') => {
      const res = await t.http
        .get(`/v1/forms/${form.id}/submissions?q=${encodeURIComponent(q)}${extra}`)
        .set(bearer(owner.token));
      expect(res.status).toBe(200);
      return (res.body.data as Array<{ id: string }>).map((s) => s.id);
    };
    expect(await search('zoe')).toEqual([zoe]);
    expect(await search('ZOË angle')).toEqual([]);
    expect(await search('ZOË ångs')).toEqual([zoe]);
    expect(await search('uber preis')).toEqual([zoe]);
    expect(await search('lovel')).toEqual([ada]);
    expect(await search('ada@analytical.eng')).toEqual([ada]);
    expect(await search('ada')).toEqual([ada]);
    expect(await search('ada@analytical.engine')).toEqual([ada]);
    expect(await search('cobol navy')).toEqual([nested]);
    expect(await search('12345')).toEqual([nested]);
    expect(await search('zoe', '&folder=spam')).toEqual([spam]);
    expect(await search('zoe', '&folder=all')).toEqual([spam, zoe]);
    expect(await search('pricing', '&until=2000-01-01T00:00:00Z')).toEqual([]);
    const page = await t.http.get(`/v1/forms/${form.id}/submissions?q=hel&per_page=1`).set(bearer(owner.token));
    expect(page.body.meta).toMatchObject({ total: 3, total_capped: false });
    const next = await t.http
      .get(`/v1/forms/${form.id}/submissions?q=hel&per_page=1&cursor=${page.body.meta.next_cursor}`)
      .set(bearer(owner.token));
    expect(next.body.data.map((s: { id: string }) => s.id)).not.toContain(page.body.data[0].id);
    expect(
      (await t.http.get(`/v1/forms/${form.id}/submissions?q=${encodeURIComponent('!!')}`).set(bearer(owner.token)))
        .status,
    ).toBe(400);
    const csv = await t.http
      .get(`/v1/forms/${form.id}/submissions/export?format=json&q=lovelace`)
      .set(bearer(owner.token))
      .buffer(true);
    expect(JSON.parse(csv.text).map((s: { id: string }) => s.id)).toEqual([ada]);
    // An edit is searchable at once: the index follows the payload.
    const edited = await t.http
      .put(`/v1/forms/${form.id}/submissions/${ada}`)
      .set(bearer(owner.token))
      .send({ payload: { name: 'Ada Byron' } });
    expect(edited.status).toBe(200);
    expect(await search('byron')).toEqual([ada]);
    expect(await search('lovelace')).toEqual([]);
  });
});
