import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../sdk/webhooks.ts';
import { formClosed } from '../../server/infra/queue/definitions.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, type TestMember } from '../support/harness.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../support/https-receiver.ts';
import { startProcessingApp } from '../support/processing.ts';
import { startSmtpTestServer } from '../support/smtp.ts';
import { eventually as waitUntil, workerProcesses } from '../support/worker-process.ts';

// The API and the public endpoint run here; jobs (processing, form-closed, e-mail) and deliveries run in a real
// `intake worker`, the one process that trusts the receivers' self-signed certificate.
const smtp = await startSmtpTestServer();
afterAll(() => smtp.close());
const t = await startProcessingApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' }, { worker: false });
const workers = workerProcesses({
  databaseUrl: t.databaseUrl,
  dataDir: t.dataDir,
  env: {
    INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true',
    INTAKE_DELIVERY_SCHEDULE: '0,0.5,0.5,0.5,0.5,0.5,0.5',
    INTAKE_VERIFY_NOTIFICATION_EMAILS: 'false',
    SMTP_URL: smtp.url,
  },
});
const worker = workers.start();

const receivers: HttpsReceiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
});
async function receiver(): Promise<HttpsReceiver> {
  const r = await startHttpsReceiver();
  receivers.push(r);
  return r;
}

const eventually = <T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000) =>
  waitUntil(fn, ok, timeoutMs, () => `worker output:\n${worker.output().slice(-4000)}`);
const quiet = (ms: number) => new Promise((r) => setTimeout(r, ms));
const inbox = (label: string) => `${label}-${randomBytes(4).toString('hex')}@example.com`;
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function hook(owner: TestMember, formId: string, to: HttpsReceiver, body: Record<string, unknown>) {
  const res = await t.http
    .post(`/v1/forms/${formId}/webhooks`)
    .set(bearer(owner.token))
    .send({ label: 'Hook', url: `${to.localhostUrl}/hooks/intake`, ...body });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.data.id as string, secret: res.body.secret as string };
}

async function post(endpoint: string, body: Record<string, unknown>) {
  return t.http.post(endpoint).set('Accept', 'application/json').send(body);
}

async function deliveries(webhookId: string) {
  const { rows } = await t.ctx.db.query<{ event: string; submission_id: string | null }>(
    'select event, submission_id from deliveries where webhook_id = $1 order by id',
    [webhookId],
  );
  return rows;
}

const closedMail = (address: string) =>
  smtp.messages.filter((m) => m.envelope.to.includes(address) && /is closed/.test(m.subject ?? ''));

/** Queues a form-closed job as the post that fills a form does, and waits until the worker has finished it. */
async function runClosedJob(formId: string, at = new Date().toISOString()): Promise<void> {
  const id = await t.ctx.queue.send(formClosed, { formId, reason: 'limit_reached', at });
  expect(id).toBeTruthy();
  await eventually(
    async () =>
      (await t.ctx.db.query<{ state: string }>('select state::text from pgboss.job where id = $1', [id])).rows[0]
        ?.state,
    (state) => state === 'completed' || state === 'failed',
  );
  const { rows } = await t.ctx.db.query<{ state: string }>('select state::text from pgboss.job where id = $1', [id]);
  expect(rows[0]?.state).toBe('completed');
}

describe('form.closed', { timeout: 60_000 }, () => {
  it('the post taking the last place sends one form.closed to the webhooks subscribed to it and one e-mail to each address', async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const address = inbox('owner');
    const form = await makePublishedForm(t, owner, {
      name: 'Workshop sign-up',
      notification_emails: [address],
      settings: { max_submissions: 2 },
    });
    const subscribed = await receiver();
    const submissionsOnly = await receiver();
    const chat = await receiver();
    const closedHook = await hook(owner, form.id, subscribed, { events: ['form.closed'] });
    const otherHook = await hook(owner, form.id, submissionsOnly, { events: ['submission.created'] });
    await hook(owner, form.id, chat, { provider: 'slack', events: ['form.closed', 'submission.created'] });

    const before = Date.now();
    const first = await post(form.endpoint, { name: 'Ada', email: 'ada@example.com' });
    const second = await post(form.endpoint, { name: 'Grace', email: 'grace@example.com' });
    const after = Date.now();
    expect([first.status, second.status]).toEqual([201, 201]);
    const third = await post(form.endpoint, { name: 'Linus', email: 'linus@example.com' });
    expect(third.status).toBe(403);
    expect(third.body).toMatchObject({ error: 'form_closed', reason: 'limit_reached' });

    const [req] = await subscribed.waitFor(1, 20_000);
    const event = verifyWebhook(closedHook.secret, req!.headers, req!.body) as Record<string, unknown>;
    expect(event).toEqual({
      type: 'form.closed',
      form_id: form.id,
      form_name: 'Workshop sign-up',
      reason: 'limit_reached',
      closed_at: expect.stringMatching(ISO_MS),
      max_submissions: 2,
      submissions: 2,
    });
    expect(Object.keys(JSON.parse(req!.body))).toEqual([
      'type',
      'form_id',
      'form_name',
      'reason',
      'closed_at',
      'max_submissions',
      'submissions',
    ]);
    const closedAt = Date.parse(event.closed_at as string);
    expect(closedAt).toBeGreaterThanOrEqual(before);
    expect(closedAt).toBeLessThanOrEqual(after);

    // A chat provider gets a readable message, not the JSON.
    const messages = await chat.waitFor(3, 20_000);
    const slack = messages.map((m) => JSON.parse(m.body) as { text: string }).find((m) => /closed/.test(m.text));
    expect(slack?.text).toBe('Workshop sign-up is closed: it reached its limit of 2 submissions');

    const [mail] = await eventually(
      async () => closedMail(address),
      (m) => m.length > 0,
    );
    expect(mail!.envelope.to).toEqual([address]);
    expect(mail!.subject).toBe('Your form Workshop sign-up is closed: it reached its limit of 2 submissions');
    expect(mail!.text).toContain(`PUT http://intake.test/v1/forms/${form.id}`);
    expect(mail!.text).toContain('"max_submissions"');
    expect(mail!.header('list-unsubscribe')).toMatch(/^<http:\/\/intake\.test\/u\/\S+>$/);

    // The webhook not subscribed to form.closed still gets its submissions, and nothing else.
    await submissionsOnly.waitFor(2, 20_000);
    await quiet(2000);
    expect(subscribed.requests).toHaveLength(1);
    expect(await deliveries(closedHook.id)).toEqual([{ event: 'form.closed', submission_id: null }]);
    expect(submissionsOnly.requests.map((r) => JSON.parse(r.body).type)).toEqual([
      'submission.created',
      'submission.created',
    ]);
    expect((await deliveries(otherHook.id)).map((d) => d.event)).toEqual(['submission.created', 'submission.created']);
    expect(closedMail(address)).toHaveLength(1);
  });

  it('a job run again for the same closing makes no second delivery; a form reopened, unpublished or deleted since gets nothing', async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const address = inbox('ops');
    const form = await makePublishedForm(t, owner, {
      name: 'Raffle',
      notification_emails: [address],
      settings: { max_submissions: 1 },
    });
    const to = await receiver();
    const h = await hook(owner, form.id, to, { events: ['form.closed'] });
    expect((await post(form.endpoint, { name: 'Ada' })).status).toBe(201);
    const [req] = await to.waitFor(1, 20_000);
    const { closed_at } = JSON.parse(req!.body) as { closed_at: string };
    await eventually(
      async () => closedMail(address),
      (m) => m.length === 1,
    );

    // The same job again (a retry after its deliveries committed): no second delivery.
    await runClosedJob(form.id, closed_at);
    expect(await deliveries(h.id)).toHaveLength(1);

    const settings = (s: Record<string, unknown>) =>
      t.http.put(`/v1/forms/${form.id}`).set(bearer(owner.token)).send({ settings: s });
    // Open again (the limit raised): nothing.
    expect((await settings({ max_submissions: 5 })).status).toBe(200);
    await runClosedJob(form.id);
    // Full again, but unpublished: nothing.
    expect((await settings({ max_submissions: 1 })).status).toBe(200);
    expect((await t.http.post(`/v1/forms/${form.id}/unpublish`).set(bearer(owner.token))).status).toBe(200);
    await runClosedJob(form.id);
    // Published and full, but in the trash: nothing.
    expect((await t.http.post(`/v1/forms/${form.id}/publish`).set(bearer(owner.token))).status).toBe(200);
    expect((await t.http.delete(`/v1/forms/${form.id}`).set(bearer(owner.token))).status).toBe(200);
    await runClosedJob(form.id);

    await quiet(1000);
    expect(to.requests).toHaveLength(1);
    expect(await deliveries(h.id)).toHaveLength(1);
    // The retried job sent its e-mail again (at least once, as notification e-mails are); the others sent none.
    expect(closedMail(address)).toHaveLength(2);
  });
});

describe('subscribing to form.closed', () => {
  it('create and update take form.closed; an unknown event is still refused (400, nothing changed)', async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const form = await makePublishedForm(t, owner);
    const base = `/v1/forms/${form.id}/webhooks`;
    const url = 'https://127.0.0.1:9/hooks';
    const created = await t.http
      .post(base)
      .set(bearer(owner.token))
      .send({ label: 'Closed', url, events: ['form.closed'] });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.events).toEqual(['form.closed']);

    const id = created.body.data.id as string;
    const all = ['submission.created', 'submission.spam', 'ai-insights.regenerated', 'form.closed'];
    const updated = await t.http.put(`${base}/${id}`).set(bearer(owner.token)).send({ events: all });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.data.events).toEqual(all);

    const refused = await t.http
      .post(base)
      .set(bearer(owner.token))
      .send({ label: 'Bad', url, events: ['form.opened'] });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('validation_failed');
    expect(JSON.stringify(refused.body.details)).toContain('events');
    const badUpdate = await t.http
      .put(`${base}/${id}`)
      .set(bearer(owner.token))
      .send({ events: ['form.closed', 'form.opened'] });
    expect(badUpdate.status).toBe(400);
    const shown = await t.http.get(`${base}/${id}`).set(bearer(owner.token));
    expect(shown.body.data.events).toEqual(all);
    expect((await t.http.get(base).set(bearer(owner.token))).body.data).toHaveLength(1);
  });
});
