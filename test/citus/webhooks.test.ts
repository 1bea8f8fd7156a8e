import { afterAll, describe, expect, it } from 'vitest';
import { deliverySender, loadAttempts, makeAttempt } from '../../server/domain/delivery/attempt.ts';
import { createSubmissionDeliveries } from '../../server/domain/delivery/fan-out.ts';
import { Pacing } from '../../server/domain/delivery/pacing.ts';
import { recordAttempts } from '../../server/domain/delivery/record.ts';
import { runReplayJob } from '../../server/domain/delivery/replay.ts';
import { sendAssignmentNotice } from '../../server/domain/notifications/assignment.ts';
import { sendAutoresponse } from '../../server/domain/notifications/autoresponder.ts';
import { sendNotification } from '../../server/domain/notifications/notifications.ts';
import { processSubmission } from '../../server/domain/submissions/processing.ts';
import { ATTEMPT_LANES, deliverWebhook, type AttemptJob } from '../../server/infra/queue/definitions.ts';
import { appRefusingMultiShard } from '../support/citus-app.ts';
import { bearer, makeTeam, type TestMember } from '../support/harness.ts';
import { startHttpsReceiver } from '../support/https-receiver.ts';

/**
 * On a Citus cluster, the webhook, delivery and rule paths run on one team's shard each: the app's database
 * refuses every statement that would run on more than one, so a statement that is not routed fails the
 * request (or the worker step driven here). Skipped on plain Postgres.
 */
const app = await appRefusingMultiShard({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true', INTAKE_DELIVERY_SCHEDULE: '0,60' });
const t = app!;
const citus = app !== null;

const receiver = citus ? await startHttpsReceiver() : null!;
afterAll(() => receiver?.close());

/** A team of its own with a published form, made through the API. */
async function publishedForm(): Promise<{ owner: TestMember; form: string }> {
  const owner = await makeTeam(t);
  const created = await t.http.post('/v1/forms').set(bearer(owner.token)).send({ name: 'Contact' });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const form = created.body.data.id as string;
  expect((await t.http.post(`/v1/forms/${form}/publish`).set(bearer(owner.token))).status).toBe(200);
  return { owner, form };
}

/** A webhook of `form` to the receiver (`fields` over the defaults), as its owner creates it: the created body. */
async function createWebhook(
  owner: TestMember,
  form: string,
  fields: Record<string, unknown> = {},
): Promise<{ data: { id: string }; secret: string }> {
  const created = await t.http
    .post(`/v1/forms/${form}/webhooks`)
    .set(bearer(owner.token))
    .send({ label: 'Receiver', url: `${receiver.url}/hooks`, events: ['submission.created'], ...fields });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

async function post(form: string, fields: Record<string, string>): Promise<string> {
  const res = await t.http.post(`/f/${form}`).set('Accept', 'application/json').send(fields);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

describe.runIf(citus)('on Citus, webhooks, deliveries and rules read and write one team’s shard', () => {
  it('webhooks: create, list, get, update, preview, delete', async () => {
    const { owner, form } = await publishedForm();
    const auth = bearer(owner.token);
    const base = `/v1/forms/${form}/webhooks`;
    const created = await createWebhook(owner, form);
    const hook = created.data.id;
    expect(created.secret).toMatch(/^whsec_/);

    const list = await t.http.get(base).set(auth);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.data.map((w: { id: string }) => w.id)).toEqual([hook]);

    const got = await t.http.get(`${base}/${hook}`).set(auth);
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body.data).toMatchObject({ id: hook, label: 'Receiver', active: true, deleted_at: null });

    const updated = await t.http
      .put(`${base}/${hook}`)
      .set(auth)
      .send({ label: 'Renamed', events: ['submission.created', 'submission.spam'], rotate_secret: true });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.data).toMatchObject({ label: 'Renamed', events: ['submission.created', 'submission.spam'] });
    expect(updated.body.secret).toMatch(/^whsec_/);

    const preview = await t.http
      .post(`${base}/${hook}/preview`)
      .set(auth)
      .send({ payload: { email: 'a@example.com' } });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(JSON.parse(preview.body.body as string)).toMatchObject({ payload: { email: 'a@example.com' } });

    expect((await t.http.delete(`${base}/${hook}`).set(auth)).status).toBe(200);
    expect((await t.http.get(base).set(auth)).body.data).toEqual([]);
    const deleted = await t.http.get(`${base}/${hook}`).set(auth);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data.deleted_at).not.toBeNull();
    const other = await makeTeam(t);
    expect((await t.http.get(`${base}/${hook}`).set(bearer(other.token))).status).toBe(404);
  });

  it('a test call with nothing delivered yet: a sample of the form, made and logged', async () => {
    const { owner, form } = await publishedForm();
    const auth = bearer(owner.token);
    const base = `/v1/forms/${form}/webhooks`;
    const hook = (await createWebhook(owner, form)).data.id;
    // The app does not trust the receiver's self-signed certificate: the call is made and fails, and is logged.
    const tested = await t.http.post(`${base}/${hook}/test`).set(auth);
    expect(tested.status, JSON.stringify(tested.body)).toBe(200);
    expect(tested.body.data).toMatchObject({ webhook_id: hook, event: 'webhook.test', status: 'failed', attempts: 1 });
    expect(tested.body.data).toMatchObject({ submission_id: null, http_status: null });
    expect(tested.body.data.error).toBeTruthy();
    const log = await t.http.get(`${base}/${hook}/deliveries`).set(auth);
    expect(log.status, JSON.stringify(log.body)).toBe(200);
    expect(log.body.data.map((d: { id: string }) => d.id)).toEqual([tested.body.data.id]);
  });

  it('rules: create, list, get, update, order, test, delete', async () => {
    const { owner, form } = await publishedForm();
    const auth = bearer(owner.token);
    const base = `/v1/forms/${form}/rules`;
    const hook = await createWebhook(owner, form, {
      label: 'Sales',
      url: `${receiver.url}/sales`,
      events: ['submission.updated'],
    });
    const rule = (name: string, contains: string, actions: unknown[]) => ({
      name,
      when: { all: [{ field: 'message', op: 'contains', value: contains }] },
      actions,
    });
    const a = await t.http
      .post(base)
      .set(auth)
      .send(
        rule('Pricing', 'price', [
          { type: 'tag', add: ['sales'] },
          { type: 'webhook', webhook_id: hook.data.id },
        ]),
      );
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    const b = await t.http
      .post(base)
      .set(auth)
      .send(rule('Bugs', 'crash', [{ type: 'tag', add: ['bug'] }]));
    expect(b.status, JSON.stringify(b.body)).toBe(201);
    expect([a.body.data.position, b.body.data.position]).toEqual([1, 2]);

    const list = await t.http.get(base).set(auth);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.data.map((r: { name: string }) => r.name)).toEqual(['Pricing', 'Bugs']);
    const got = await t.http.get(`${base}/${b.body.data.id}`).set(auth);
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body.data.name).toBe('Bugs');

    const renamed = await t.http.put(`${base}/${b.body.data.id}`).set(auth).send({ name: 'Crashes' });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.data.name).toBe('Crashes');

    const ordered = await t.http
      .put(`${base}/order`)
      .set(auth)
      .send({ ids: [b.body.data.id, a.body.data.id] });
    expect(ordered.status, JSON.stringify(ordered.body)).toBe(200);
    expect(ordered.body.data.map((r: { name: string; position: number }) => [r.name, r.position])).toEqual([
      ['Crashes', 1],
      ['Pricing', 2],
    ]);

    const tested = await t.http
      .post(`${base}/test`)
      .set(auth)
      .send({ payload: { message: 'What is the price?' } });
    expect(tested.status, JSON.stringify(tested.body)).toBe(200);
    expect(tested.body.data.fired).toEqual([a.body.data.id]);
    const id = await post(form, { message: 'It crashed again' });
    const onStored = await t.http.post(`${base}/test`).set(auth).send({ submission_id: id });
    expect(onStored.status, JSON.stringify(onStored.body)).toBe(200);
    expect(onStored.body.data.fired).toEqual([b.body.data.id]);

    expect((await t.http.delete(`${base}/${b.body.data.id}`).set(auth)).status).toBe(200);
    const left = await t.http.get(base).set(auth);
    expect(left.body.data.map((r: { name: string; position: number }) => [r.name, r.position])).toEqual([
      ['Pricing', 1],
    ]);
  });

  /** A published form with a webhook (paced, so its attempt takes a send slot) to the receiver. */
  async function hookedForm() {
    const { owner, form } = await publishedForm();
    return { owner, form, hook: (await createWebhook(owner, form, { max_per_second: 50 })).data.id };
  }

  it('processing a submission: the rules, the verdict, its delivery', async () => {
    const { owner, form, hook } = await hookedForm();
    const auth = bearer(owner.token);
    // The rule is stored directly: this test is about processing, the rules' API has its own above.
    await t.ctx.db.query(
      `insert into form_rules (id, team_id, form_id, position, name, enabled, on_event, "when", actions, stop, fallback)
       values ($1, $2, $3, 1, 'Quotes', true, 'submission.created', $4, $5, false, false)`,
      [
        `rule_${hook.slice(3)}`,
        owner.teamId,
        form,
        JSON.stringify({ all: [{ field: 'message', op: 'contains', value: 'quote' }] }),
        JSON.stringify([{ type: 'tag', add: ['sales'] }]),
      ],
    );

    const id = await post(form, { email: 'grace@example.com', message: 'Could you send us a quote?' });
    // As the worker runs the job, with the team its data carries.
    expect(await processSubmission(t.ctx, id, { teamId: owner.teamId })).toBe('processed');
    expect(await processSubmission(t.ctx, id, { teamId: owner.teamId })).toBe('skipped');
    const stored = await t.http.get(`/v1/forms/${form}/submissions/${id}`).set(auth);
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    expect(stored.body.data).toMatchObject({ status: 'processed', tags: ['sales'] });
    const log = await t.http.get(`/v1/forms/${form}/webhooks/${hook}/deliveries`).set(auth);
    expect(log.status, JSON.stringify(log.body)).toBe(200);
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0]).toMatchObject({ status: 'pending', submission_id: id, event: 'submission.created' });
  });

  it('a delivery: made as processing makes it, its attempt, the log, replays', async () => {
    const { owner, form, hook } = await hookedForm();
    const auth = bearer(owner.token);
    const base = `/v1/forms/${form}/webhooks`;
    const id = await post(form, { email: 'grace@example.com', message: 'Could you send us a quote?' });
    const submission = { teamId: owner.teamId, id, formId: form };
    expect(await t.ctx.db.transaction((tx) => createSubmissionDeliveries(t.ctx, tx, submission))).toBe(1);
    // A submission has one delivery per webhook from processing.
    expect(await t.ctx.db.transaction((tx) => createSubmissionDeliveries(t.ctx, tx, submission))).toBe(0);

    const log = await t.http.get(`${base}/${hook}/deliveries`).set(auth);
    expect(log.status, JSON.stringify(log.body)).toBe(200);
    expect(log.body.data).toHaveLength(1);
    const delivery = log.body.data[0] as { id: string; status: string; submission_id: string };
    expect(delivery).toMatchObject({ status: 'pending', submission_id: id, event: 'submission.created' });

    // The worker's attempt: fetched as the delivery loop fetches it, made (the certificate is refused), recorded.
    const fetched = (await t.ctx.queue.fetch(deliverWebhook, 10, ATTEMPT_LANES.fresh)) as AttemptJob[];
    const job = fetched.find((j) => j.data.deliveryId === delivery.id);
    expect(job).toBeDefined();
    const rows = await loadAttempts(t.ctx, [job!]);
    expect(rows.get(delivery.id)).toMatchObject({ webhook_id: hook, status: 'pending', attempts: 0 });
    const sender = deliverySender(t.ctx, { version: 'test', connections: 1 });
    const outcome = await makeAttempt({ ctx: t.ctx, sender, pacing: new Pacing(t.ctx) }, job!, rows.get(delivery.id));
    await sender.close();
    expect(outcome.kind).toBe('sent');
    await recordAttempts(t.ctx, [outcome]);

    const filtered = await t.http.get(`${base}/${hook}/deliveries?submission_id=${id}&status=failed`).set(auth);
    expect(filtered.status, JSON.stringify(filtered.body)).toBe(200);
    expect(filtered.body.data).toHaveLength(1);
    expect(filtered.body.data[0]).toMatchObject({ id: delivery.id, attempts: 1, status: 'failed' });

    const byPath = await t.http.post(`${base}/${hook}/deliveries/${delivery.id}/replay`).set(auth);
    expect(byPath.status, JSON.stringify(byPath.body)).toBe(200);
    const byId = await t.http.post(`/v1/deliveries/${delivery.id}/replay`).set(auth);
    expect(byId.status, JSON.stringify(byId.body)).toBe(202);
    const after = await t.http.get(`${base}/${hook}/deliveries`).set(auth);
    const replays = after.body.data.filter((d: { replay_of: string | null }) => d.replay_of === delivery.id);
    expect(replays.map((d: { id: string }) => d.id).sort()).toEqual(
      [byPath.body.delivery_id, byId.body.delivery_id].sort(),
    );

    // A bulk replay: its job runs here as its worker runs it, with the team its data carries.
    const bulk = await t.http.post(`/v1/webhooks/${hook}/replay`).set(auth).send({ status: 'pending' });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(202);
    await runReplayJob(t.ctx, bulk.body.job_id as string, owner.teamId);
    const job2 = await t.http.get(`/v1/jobs/${bulk.body.job_id}`).set(auth);
    expect(job2.status, JSON.stringify(job2.body)).toBe(200);
    expect(job2.body.data).toMatchObject({ status: 'succeeded', total: 1, done: 1 });

    // Once a delivery of the submission has succeeded (set here: the app does not trust the receiver), a test
    // call sends that submission again.
    await t.ctx.db.query(`update deliveries set status = 'succeeded' where id = $1 and team_id = $2`, [
      delivery.id,
      owner.teamId,
    ]);
    const tested = await t.http.post(`${base}/${hook}/test`).set(auth);
    expect(tested.status, JSON.stringify(tested.body)).toBe(200);
    expect(tested.body.data).toMatchObject({ event: 'webhook.test', submission_id: id, status: 'failed' });
    expect(tested.body.data.request_body).toMatchObject({ submission_id: id, test: true });
  });

  it('the e-mail jobs of a submission read its team’s rows', async () => {
    const { owner, form } = await publishedForm();
    const id = await post(form, { email: 'grace@example.com', message: 'Hello' });
    const other = await makeTeam(t);
    // Still `received`: its verdict is not visible yet, so each job is retried; named with another team, it is
    // not found at all.
    await expect(sendNotification(t.ctx, id, undefined, Date.now(), owner.teamId)).rejects.toThrow(/not settled yet/);
    await expect(sendAutoresponse(t.ctx, id, owner.teamId)).rejects.toThrow(/not settled yet/);
    expect(await sendNotification(t.ctx, id, undefined, Date.now(), other.teamId)).toBe('skipped');
    expect(
      await sendAssignmentNotice(t.ctx, {
        submissionId: id,
        assigneeId: owner.userId,
        byUserId: null,
        teamId: other.teamId,
      }),
    ).toBe('skipped');
  });
});
