import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { FILTER_CONDITIONS, TEST_CALLS_PER_MINUTE } from '../../contract/webhooks.ts';
import { createClient, IntakeError } from '../../sdk/index.ts';
import { verifyWebhook } from '../../sdk/webhooks.ts';
import { cliProcesses, installationEnv } from '../support/cli.ts';
import { bearer, makeToken } from '../support/harness.ts';
import type { ReceivedRequest } from '../support/https-receiver.ts';
import { hookedForms, type HookedForm } from '../support/hooked-forms.ts';
import { call } from '../support/mcp-tools.ts';
import { postForm, startProcessingApp, waitForProcessing } from '../support/processing.ts';
import { serverProcessEnv } from '../support/tls.ts';
import { eventually as waitUntil, workerProcesses } from '../support/worker-process.ts';
import { withinOneMinuteWindow } from '../support/rate-window.ts';

// The API and ingest run here; deliveries go out from a real `intake worker`, and test calls from a real
// `intake serve`: those processes alone trust the receivers' self-signed certificate.
const t = await startProcessingApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' }, { worker: false });
const SCHEDULE = [0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5];
const ENV = {
  INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true',
  INTAKE_DELIVERY_SCHEDULE: SCHEDULE.join(','),
  INTAKE_DELIVERY_TIMEOUT_MS: '3000',
};
const workers = workerProcesses({ databaseUrl: t.databaseUrl, dataDir: t.dataDir, env: ENV });
const worker = workers.start();
const hookedForm = hookedForms(t);

const eventually = <T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000) =>
  waitUntil(fn, ok, timeoutMs, () => `worker output:\n${worker.output().slice(-4000)}`);

const SALES = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  topic: 'Sales',
  message: 'A quote for twenty units, please.',
};
const SUPPORT = {
  name: 'Grace Hopper',
  email: 'grace@example.com',
  topic: 'support',
  message: 'My login does not work.',
};

/** A second webhook on the form of `h`, to its own receiver. */
async function secondHook(h: HookedForm, webhook: Record<string, unknown>): Promise<HookedForm> {
  const other = await hookedForm(undefined, webhook);
  const res = await t.http
    .post(`/v1/forms/${h.formId}/webhooks`)
    .set(bearer(h.owner.token))
    .send({ label: 'Second', url: `${other.receiver.localhostUrl}/hooks/second`, ...webhook });
  expect(res.status, res.text).toBe(201);
  return { ...h, webhookId: res.body.data.id as string, secret: res.body.secret as string, receiver: other.receiver };
}

async function deliveryRows(webhookId: string) {
  const { rows } = await t.ctx.db.query<{
    id: string;
    event: string;
    submission_id: string | null;
    status: string;
    attempts: number;
    error: string | null;
  }>('select id, event, submission_id, status, attempts, error from deliveries where webhook_id = $1 order by id', [
    webhookId,
  ]);
  return rows;
}

const quiet = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('webhook events and filters', { timeout: 60_000 }, () => {
  it('a webhook made without events gets submission.created and no filter, as before', async () => {
    const h = await hookedForm();
    const res = await t.http.get(`/v1/forms/${h.formId}/webhooks/${h.webhookId}`).set(bearer(h.owner.token));
    expect(res.body.data).toMatchObject({ events: ['submission.created'], filter: [], deleted_at: null });
  });

  it('routes by filter: each submission reaches only the webhook whose conditions all hold; one that matches none creates no delivery', async () => {
    const sales = await hookedForm(undefined, {
      filter: [
        { field: 'topic', op: 'equals', value: 'SALES' },
        { field: 'email', op: 'exists' },
      ],
    });
    const support = await secondHook(sales, {
      filter: [
        { field: 'message', op: 'contains', value: 'LOGIN' },
        { field: 'topic', op: 'not_equals', value: 'sales' },
      ],
    });
    const salesId = await postForm(t, sales.endpoint, SALES);
    const supportId = await postForm(t, sales.endpoint, SUPPORT);
    const neitherId = await postForm(t, sales.endpoint, { ...SUPPORT, message: 'Just saying hello.' });
    const [toSales] = await sales.receiver.waitFor(1);
    const [toSupport] = await support.receiver.waitFor(1);
    expect(JSON.parse(toSales!.body)).toMatchObject({ type: 'submission.created', submission_id: salesId });
    expect(JSON.parse(toSupport!.body)).toMatchObject({ type: 'submission.created', submission_id: supportId });
    await waitForProcessing(t, neitherId);
    await quiet(1000);
    expect(sales.receiver.requests).toHaveLength(1);
    expect(support.receiver.requests).toHaveLength(1);
    expect((await deliveryRows(sales.webhookId)).map((d) => d.submission_id)).toEqual([salesId]);
    expect((await deliveryRows(support.webhookId)).map((d) => d.submission_id)).toEqual([supportId]);
  });

  it('filters on category and status as well as payload fields', async () => {
    const h = await hookedForm(undefined, {
      filter: [
        { field: 'status', op: 'equals', value: 'Processed' },
        { field: 'category', op: 'exists' },
      ],
    });
    const id = await postForm(t, h.endpoint, SALES);
    const [req] = await h.receiver.waitFor(1);
    expect(JSON.parse(req!.body)).toMatchObject({ submission_id: id });
    const none = await secondHook(h, { filter: [{ field: 'category', op: 'equals', value: 'no-such-category' }] });
    const second = await postForm(t, h.endpoint, SALES);
    await h.receiver.waitFor(2);
    await waitForProcessing(t, second);
    await quiet(800);
    expect(none.receiver.requests).toHaveLength(0);
    expect(await deliveryRows(none.webhookId)).toEqual([]);
  });

  it('a spam submission reaches only the webhooks subscribed to submission.spam, with its spam_reason; clean ones do not', async () => {
    const spamOnly = await hookedForm(undefined, { events: ['submission.spam'] });
    const cleanOnly = await secondHook(spamOnly, { events: ['submission.created'] });
    const both = await secondHook(spamOnly, { events: ['submission.created', 'submission.spam'] });
    const filtered = await secondHook(spamOnly, {
      events: ['submission.spam'],
      filter: [{ field: 'topic', op: 'equals', value: 'nothing' }],
    });
    const spamId = await postForm(t, spamOnly.endpoint, { ...SALES, _gotcha: 'I am a bot' });
    const cleanId = await postForm(t, spamOnly.endpoint, SUPPORT);

    const [spam] = await spamOnly.receiver.waitFor(1);
    const event = JSON.parse(spam!.body);
    expect(event).toMatchObject({
      type: 'submission.spam',
      submission_id: spamId,
      spam_reason: 'honeypot_filled',
      form_id: spamOnly.formId,
    });
    expect(Object.keys(event)).toEqual([
      'type',
      'submission_id',
      'form_id',
      'form_name',
      'received_at',
      'payload',
      'files',
      'meta',
      'tags',
      'stage',
      'assignee',
      'spam_reason',
    ]);
    expect(verifyWebhook(spamOnly.secret, spam!.headers, spam!.body)).toEqual(event);
    const [clean] = await cleanOnly.receiver.waitFor(1);
    expect(JSON.parse(clean!.body)).toMatchObject({ type: 'submission.created', submission_id: cleanId });
    const got = await both.receiver.waitFor(2);
    expect(got.map((r: ReceivedRequest) => JSON.parse(r.body).type).sort()).toEqual([
      'submission.created',
      'submission.spam',
    ]);
    await quiet(3000);
    // Once each: the spam job ran again meanwhile and sent nothing twice.
    expect(spamOnly.receiver.requests).toHaveLength(1);
    expect(cleanOnly.receiver.requests).toHaveLength(1);
    expect(both.receiver.requests).toHaveLength(2);
    expect(filtered.receiver.requests).toHaveLength(0);
    expect((await deliveryRows(spamOnly.webhookId)).map((d) => [d.event, d.submission_id])).toEqual([
      ['submission.spam', spamId],
    ]);
  });

  it('spam filed by moderation is sent too; a subscription made by PUT starts from then (earlier spam is not sent)', async () => {
    const h = await hookedForm();
    const before = await postForm(t, h.endpoint, { ...SALES, _gotcha: 'bot' });
    await waitForProcessing(t, before).catch(() => undefined);
    const put = await t.http
      .put(`/v1/forms/${h.formId}/webhooks/${h.webhookId}`)
      .set(bearer(h.owner.token))
      .send({ events: ['submission.spam'] });
    expect(put.status, put.text).toBe(200);
    // Every post is spam to moderation now (threshold 0).
    const form = await t.http
      .put(`/v1/forms/${h.formId}`)
      .set(bearer(h.owner.token))
      .send({ settings: { ai_threshold: 0 } });
    expect(form.status, form.text).toBe(200);
    const moderated = await postForm(t, h.endpoint, SUPPORT);
    const [req] = await h.receiver.waitFor(1);
    expect(JSON.parse(req!.body)).toMatchObject({
      type: 'submission.spam',
      submission_id: moderated,
      spam_reason: 'ai_moderation',
    });
    await quiet(2500);
    expect(h.receiver.requests).toHaveLength(1);
    expect((await deliveryRows(h.webhookId)).map((d) => d.submission_id)).not.toContain(before);
  });

  it('refuses an unknown op, too many conditions, a condition without its value and an unknown event (400 naming the field, nothing changed)', async () => {
    const h = await hookedForm();
    const base = `/v1/forms/${h.formId}/webhooks`;
    const eleven = Array.from({ length: FILTER_CONDITIONS + 1 }, (_, i) => ({ field: `f${i}`, op: 'exists' }));
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ filter: [{ field: 'topic', op: 'like', value: 'x' }] }, 'filter'],
      [{ filter: eleven }, 'filter'],
      [{ filter: [{ field: 'topic', op: 'equals' }] }, 'filter'],
      [{ events: ['submission.deleted'] }, 'events'],
      [{ filter: [{ field: 'topic', op: 'exists', extra: 1 }] }, 'filter'],
    ];
    const before = (await t.http.get(`${base}/${h.webhookId}`).set(bearer(h.owner.token))).body.data;
    for (const [body, field] of bad) {
      const created = await t.http
        .post(base)
        .set(bearer(h.owner.token))
        .send({ label: 'x', url: `${h.receiver.localhostUrl}/x`, ...body });
      expect(created.status, JSON.stringify(body)).toBe(400);
      expect(created.body.error).toBe('validation_failed');
      expect(JSON.stringify(created.body.details)).toContain(field);
      const updated = await t.http.put(`${base}/${h.webhookId}`).set(bearer(h.owner.token)).send(body);
      expect(updated.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(updated.body.details)).toContain(field);
    }
    expect((await t.http.get(base).set(bearer(h.owner.token))).body.data).toHaveLength(1);
    expect((await t.http.get(`${base}/${h.webhookId}`).set(bearer(h.owner.token))).body.data).toEqual(before);
    // Ten conditions are fine, and a PUT replaces the filter.
    const ten = eleven.slice(0, FILTER_CONDITIONS);
    const ok = await t.http.put(`${base}/${h.webhookId}`).set(bearer(h.owner.token)).send({ filter: ten });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.filter).toEqual(ten);
  });
});

describe('deleting a webhook and processing a submission again', { timeout: 60_000 }, () => {
  it('a delivery whose first attempt failed gets its remaining attempts after its webhook is deleted, and shows in its log', async () => {
    let failing = true;
    const h = await hookedForm(() => (failing ? { status: 503, body: 'down' } : { status: 200, body: 'back' }));
    const id = await postForm(t, h.endpoint, SALES);
    await h.receiver.waitFor(1);
    await eventually(
      () => deliveryRows(h.webhookId),
      (ds) => ds[0]?.status === 'failed',
    );
    const path = `/v1/forms/${h.formId}/webhooks/${h.webhookId}`;
    expect((await t.http.delete(path).set(bearer(h.owner.token))).status).toBe(200);
    failing = false;
    const reqs = await h.receiver.waitFor(2);
    expect(JSON.parse(reqs[1]!.body)).toMatchObject({ submission_id: id });
    const [d] = await eventually(
      () => deliveryRows(h.webhookId),
      (ds) => ds[0]?.status === 'succeeded',
    );
    expect(d).toMatchObject({ attempts: 2, error: null });

    // Readable by id (with deleted_at) and its log listed; gone from the list; no new deliveries.
    const shown = await t.http.get(path).set(bearer(h.owner.token));
    expect(shown.status).toBe(200);
    expect(shown.body.data.deleted_at).toEqual(expect.any(String));
    const log = await t.http.get(`${path}/deliveries`).set(bearer(h.owner.token));
    expect(log.status).toBe(200);
    expect(log.body.data).toMatchObject([{ id: d!.id, status: 'succeeded', attempts: 2 }]);
    expect((await t.http.get(`/v1/forms/${h.formId}/webhooks`).set(bearer(h.owner.token))).body.data).toEqual([]);
    expect((await t.http.put(path).set(bearer(h.owner.token)).send({ label: 'again' })).status).toBe(404);
    expect((await t.http.delete(path).set(bearer(h.owner.token))).status).toBe(404);
    const later = await postForm(t, h.endpoint, SUPPORT);
    await waitForProcessing(t, later);
    await quiet(1000);
    expect(h.receiver.requests).toHaveLength(2);
    expect(await deliveryRows(h.webhookId)).toHaveLength(1);
  });

  it('a processed submission set back to received is processed again but not delivered again; replay still sends it', async () => {
    const h = await hookedForm();
    const id = await postForm(t, h.endpoint, SALES);
    await h.receiver.waitFor(1);
    const path = `/v1/forms/${h.formId}/submissions/${id}`;
    const back = await t.http.put(path).set(bearer(h.owner.token)).send({ status: 'received' });
    expect(back.status, back.text).toBe(200);
    await eventually(
      async () => (await t.http.get(path).set(bearer(h.owner.token))).body.data.status as string,
      (s) => s === 'processed',
    );
    await quiet(1500);
    expect(h.receiver.requests).toHaveLength(1);
    const [d] = await deliveryRows(h.webhookId);
    expect(await deliveryRows(h.webhookId)).toHaveLength(1);
    const replay = await t.http.post(`/v1/deliveries/${d!.id}/replay`).set(bearer(h.owner.token));
    expect(replay.status, replay.text).toBe(202);
    await h.receiver.waitFor(2);
  });
});

// --- The test call, from a real `intake serve` ---------------------------------------------------------------

const serves = cliProcesses();

function serveUrl(): Promise<string> {
  const env = installationEnv(t, { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...serverProcessEnv(), ...ENV });
  return serves.start(['serve', '--no-worker'], env).url();
}

describe('the test call', { timeout: 60_000 }, () => {
  it("sends a signed sample from the form's fields, answers the receiver's status and body, logs it as webhook.test, and allows 6 a minute", async () => {
    const h = await hookedForm();
    const baseUrl = await serveUrl();
    const intakeApi = createClient({ baseUrl, token: h.owner.token });
    // The form learns its fields from a post, delivered to the first webhook; the second has delivered nothing.
    const salesId = await postForm(t, h.endpoint, SALES);
    await h.receiver.waitFor(1);
    await eventually(
      () => deliveryRows(h.webhookId),
      (ds) => ds[0]?.status === 'succeeded',
    );
    const teapot = await secondHook(h, {});
    teapot.receiver.setReply(() => ({ status: 418, headers: { 'content-type': 'text/plain' }, body: "I'm a teapot" }));
    const test = () => intakeApi.ok.testWebhook({ params: { form: h.formId, webhook: teapot.webhookId } });

    // The seven calls below spend the webhook's minute of test calls: none may straddle the window's boundary.
    await withinOneMinuteWindow();
    const { data } = await test();
    expect(data).toMatchObject({
      webhook_id: teapot.webhookId,
      event: 'webhook.test',
      status: 'failed',
      http_status: 418,
      response_body: "I'm a teapot",
      error: null,
      attempts: 1,
    });
    expect(data.duration_ms).toEqual(expect.any(Number));
    expect(teapot.receiver.requests).toHaveLength(1);
    const req = teapot.receiver.requests[0]!;
    const event = verifyWebhook(teapot.secret, req.headers, req.body) as Record<string, unknown>;
    expect(req.headers['webhook-id']).toBe(data.id);
    expect(event).toMatchObject({ type: 'submission.created', test: true, form_id: h.formId, form_name: 'Contact' });
    expect(Object.keys(event.payload as object).sort()).toEqual(Object.keys(SALES).sort());
    expect(data.request_body).toEqual(event);
    const log = await t.http
      .get(`/v1/forms/${h.formId}/webhooks/${teapot.webhookId}/deliveries`)
      .set(bearer(h.owner.token));
    expect(log.body.data).toMatchObject([{ id: data.id, event: 'webhook.test', status: 'failed', http_status: 418 }]);
    await quiet(1500);
    // Not retried.
    expect(teapot.receiver.requests).toHaveLength(1);

    // The webhook with a delivered submission is sent that submission again, marked as a test.
    const again = await intakeApi.ok.testWebhook({ params: { form: h.formId, webhook: h.webhookId } });
    expect(again.data).toMatchObject({
      status: 'succeeded',
      http_status: 200,
      response_body: '{"ok":true}',
      submission_id: salesId,
    });
    expect(again.data.request_body).toMatchObject({
      type: 'submission.created',
      test: true,
      submission_id: salesId,
      payload: SALES,
    });

    for (let i = 1; i < TEST_CALLS_PER_MINUTE; i += 1) await test();
    expect(teapot.receiver.requests).toHaveLength(TEST_CALLS_PER_MINUTE);
    const limited = await fetch(`${baseUrl}/v1/forms/${h.formId}/webhooks/${teapot.webhookId}/test`, {
      method: 'POST',
      headers: bearer(h.owner.token),
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ error: 'rate_limited' });
    await expect(test()).rejects.toBeInstanceOf(IntakeError);
    expect(teapot.receiver.requests).toHaveLength(TEST_CALLS_PER_MINUTE);
    // The limit is the webhook's: the other one still takes a test call, here as an MCP tool.
    const mcp = new Client({ name: 'webhook-events-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: bearer(h.owner.token) } }),
    );
    try {
      const result = await call(mcp, 'test_webhook', { form: h.formId, webhook: h.webhookId });
      expect(result.isError ?? false).toBe(false);
      expect(result.structuredContent).toMatchObject({
        data: { event: 'webhook.test', status: 'succeeded', http_status: 200, submission_id: salesId },
      });
      const refused = await call(mcp, 'test_webhook', { form: h.formId, webhook: teapot.webhookId });
      expect(refused.isError).toBe(true);
    } finally {
      await mcp.close();
    }
    expect(h.receiver.requests.filter((r) => JSON.parse(r.body).test === true)).toHaveLength(2);
  });

  it('needs webhooks:write, and answers 404 for a deleted webhook', async () => {
    const h = await hookedForm();
    const path = `/v1/forms/${h.formId}/webhooks/${h.webhookId}/test`;
    expect((await t.http.post(path)).status).toBe(401);
    const reader = await makeToken(t, h.owner, ['webhooks:read']);
    expect((await t.http.post(path).set(bearer(reader.token))).body).toMatchObject({ error: 'forbidden' });
    expect(
      (await t.http.delete(`/v1/forms/${h.formId}/webhooks/${h.webhookId}`).set(bearer(h.owner.token))).status,
    ).toBe(200);
    expect((await t.http.post(path).set(bearer(h.owner.token))).status).toBe(404);
    expect(h.receiver.requests).toHaveLength(0);
  });
});
