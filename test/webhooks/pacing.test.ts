import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam } from '../support/harness.ts';
import { hookedForms, type HookedForm } from '../support/hooked-forms.ts';
import type { ReceivedRequest } from '../support/https-receiver.ts';
import { startLiveTestApp } from '../support/live-server.ts';
import { call, errorOf } from '../support/mcp-tools.ts';
import { postForm, startProcessingApp } from '../support/processing.ts';
import { eventually as waitUntil, workerProcesses } from '../support/worker-process.ts';

// The API and ingest run here; two real `intake worker` processes process the posts and send the deliveries,
// so a pace or a pause only holds if it is shared through Postgres.
const t = await startProcessingApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' }, { worker: false });
const SCHEDULE = [0, 0.5, 0.5];
const workers = workerProcesses({
  databaseUrl: t.databaseUrl,
  dataDir: t.dataDir,
  env: {
    INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true',
    INTAKE_DELIVERY_SCHEDULE: SCHEDULE.join(','),
    INTAKE_DELIVERY_TIMEOUT_MS: '3000',
  },
});
const both = [workers.start(), workers.start()];

function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  return waitUntil(fn, ok, timeoutMs, () =>
    both.map((w, i) => `worker ${i + 1}:\n${w.output().slice(-3000)}`).join('\n'),
  );
}

const hookedForm = hookedForms(t);
const CONTACT = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  message: 'Could you send me a quote for twenty units?',
};

type Delivery = { id: string; status: string; attempts: number; http_status: number | null };
async function deliveriesOf(h: HookedForm): Promise<Delivery[]> {
  const res = await t.http
    .get(`/v1/forms/${h.formId}/webhooks/${h.webhookId}/deliveries?per_page=100`)
    .set(bearer(h.owner.token));
  expect(res.status, res.text).toBe(200);
  return res.body.data as Delivery[];
}

/** The most requests that arrived within any one second ([t, t + 1000 ms) from each arrival). */
function busiestSecond(requests: ReceivedRequest[]): number {
  const at = requests.map((r) => r.receivedAt).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0; i < at.length; i++) most = Math.max(most, at.filter((x) => x >= at[i]! && x < at[i]! + 1000).length);
  return most;
}

describe('max_per_second is validated', () => {
  it('refuses 0, 101 and a string with 400 validation_failed naming the field, and changes nothing', async () => {
    const h = await hookedForm();
    const before = await t.http.get(`/v1/forms/${h.formId}/webhooks`).set(bearer(h.owner.token));
    for (const bad of [0, 101, 'fast', 0.4]) {
      const created = await t.http
        .post(`/v1/forms/${h.formId}/webhooks`)
        .set(bearer(h.owner.token))
        .send({ label: 'Paced', url: 'https://example.com/hook', max_per_second: bad });
      expect(created.status, created.text).toBe(400);
      expect(created.body.error).toBe('validation_failed');
      expect(JSON.stringify(created.body.details)).toContain('max_per_second');
      const updated = await t.http
        .put(`/v1/forms/${h.formId}/webhooks/${h.webhookId}`)
        .set(bearer(h.owner.token))
        .send({ max_per_second: bad });
      expect(updated.status, updated.text).toBe(400);
      expect(updated.body.error).toBe('validation_failed');
      expect(JSON.stringify(updated.body.details)).toContain('max_per_second');
    }
    const after = await t.http.get(`/v1/forms/${h.formId}/webhooks`).set(bearer(h.owner.token));
    expect(after.body).toEqual(before.body);
    expect(after.body.data[0].max_per_second).toBeNull();

    const set = await t.http
      .put(`/v1/forms/${h.formId}/webhooks/${h.webhookId}`)
      .set(bearer(h.owner.token))
      .send({ max_per_second: 2.5 });
    expect(set.status, set.text).toBe(200);
    expect(set.body.data.max_per_second).toBe(2.5);
    const kept = await t.http
      .put(`/v1/forms/${h.formId}/webhooks/${h.webhookId}`)
      .set(bearer(h.owner.token))
      .send({ label: 'Renamed' });
    expect(kept.body.data.max_per_second).toBe(2.5);
    const cleared = await t.http
      .put(`/v1/forms/${h.formId}/webhooks/${h.webhookId}`)
      .set(bearer(h.owner.token))
      .send({ max_per_second: null });
    expect(cleared.body.data.max_per_second).toBeNull();
  });
});

describe('max_per_second through MCP', () => {
  it('create_webhook and update_webhook take it, and refuse 0 as REST does', async () => {
    const live = await startLiveTestApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' });
    const owner = await makeTeam(live, { plan: 'scale' });
    const form = await makePublishedForm(live, owner);
    const client = new Client({ name: 'intake-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${live.baseUrl}/mcp`), {
        requestInit: { headers: bearer(owner.token) },
      }),
    );
    try {
      const refused = errorOf(
        await call(client, 'create_webhook', {
          form: form.id,
          label: 'Paced',
          url: 'https://127.0.0.1:9/hook',
          max_per_second: 0,
        }),
      );
      expect(refused).toMatchObject({ error: 'validation_failed' });
      expect(JSON.stringify(refused)).toContain('max_per_second');
      const created = await call(client, 'create_webhook', {
        form: form.id,
        label: 'Paced',
        url: 'https://127.0.0.1:9/hook',
        max_per_second: 4,
      });
      expect(errorOf(created)).toBeNull();
      const hook = (created.structuredContent as { data: { id: string; max_per_second: number } }).data;
      expect(hook.max_per_second).toBe(4);
      const updated = await call(client, 'update_webhook', { form: form.id, webhook: hook.id, max_per_second: 0.5 });
      expect((updated.structuredContent as { data: { max_per_second: number } }).data.max_per_second).toBe(0.5);
    } finally {
      await client.close();
    }
  });
});

describe('a paced webhook across two worker processes', { timeout: 90_000 }, () => {
  it('its receiver never gets more than max_per_second requests in any one-second window', async () => {
    const RATE = 3;
    const N = 12;
    const h = await hookedForm(undefined, { max_per_second: RATE });
    await Promise.all(Array.from({ length: N }, () => postForm(t, h.endpoint, CONTACT)));
    const requests = await h.receiver.waitFor(N, 40_000);
    const span = requests[N - 1]!.receivedAt - requests[0]!.receivedAt;
    const gaps = requests.slice(1).map((r, i) => r.receivedAt - requests[i]!.receivedAt);
    console.log(
      `pacing: ${N} deliveries at ${RATE}/s over ${span} ms (gaps ${gaps.join(', ')} ms), busiest second ${busiestSecond(requests)}`,
    );
    expect(busiestSecond(requests)).toBeLessThanOrEqual(RATE);
    // Every delivery went once, on its first attempt: waiting for a slot spends none.
    const done = await eventually(
      () => deliveriesOf(h),
      (ds) => ds.length === N && ds.every((d) => d.status === 'succeeded'),
    );
    for (const d of done) expect(d.attempts).toBe(1);
    expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(N);
  });

  it('a Slack webhook without max_per_second is paced at 1 a second', async () => {
    const h = await hookedForm(undefined, { provider: 'slack' });
    await Promise.all(Array.from({ length: 3 }, () => postForm(t, h.endpoint, CONTACT)));
    const requests = await h.receiver.waitFor(3, 20_000);
    expect(busiestSecond(requests)).toBe(1);
  });
});

describe("a receiver's 429 with Retry-After", { timeout: 90_000 }, () => {
  it('pauses only its webhook, for that long, without spending an attempt', async () => {
    const throttled = await hookedForm((req) =>
      req.n === 1 ? { status: 429, headers: { 'retry-after': '3' }, body: 'slow down' } : { status: 200 },
    );
    const other = await hookedForm();

    await postForm(t, throttled.endpoint, CONTACT);
    const [first] = await throttled.receiver.waitFor(1);
    // Its next delivery comes while the webhook is paused; another team's webhook is served meanwhile.
    await postForm(t, throttled.endpoint, CONTACT);
    const postedAt = Date.now();
    await postForm(t, other.endpoint, CONTACT);
    const [elsewhere] = await other.receiver.waitFor(1, 10_000);
    expect(elsewhere!.receivedAt - postedAt).toBeLessThan(1_500);
    expect(elsewhere!.receivedAt).toBeLessThan(first!.receivedAt + 3_000);

    // The throttled attempt is not counted while the pause lasts.
    const paused = await deliveriesOf(throttled);
    const throttledId = first!.headers['webhook-id'];
    expect(paused.find((d) => d.id === throttledId)).toMatchObject({ status: 'pending', attempts: 0 });

    const later = await throttled.receiver.waitFor(3, 20_000);
    for (const r of later.slice(1)) expect(r.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(3_000);
    const done = await eventually(
      () => deliveriesOf(throttled),
      (ds) => ds.length === 2 && ds.every((d) => d.status === 'succeeded'),
    );
    for (const d of done) expect(d).toMatchObject({ attempts: 1, http_status: 200 });
  });
});
