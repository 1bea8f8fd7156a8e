import { describe, expect, it } from 'vitest';
import { bearer } from '../support/harness.ts';
import { hookedForms, type HookedForm } from '../support/hooked-forms.ts';
import { postForm, startProcessingApp } from '../support/processing.ts';
import { eventually as waitUntil, workerProcesses } from '../support/worker-process.ts';

// One worker with 6 delivery slots, at most 2 per webhook, attempts cut at 3 s, two attempts per delivery.
const CONCURRENCY = 6;
const PER_WEBHOOK = 2;
const TIMEOUT_MS = 3_000;
const SCHEDULE = [0, 0.5];

const t = await startProcessingApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' }, { worker: false });
const worker = workerProcesses({
  databaseUrl: t.databaseUrl,
  dataDir: t.dataDir,
  env: {
    INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true',
    INTAKE_DELIVERY_SCHEDULE: SCHEDULE.join(','),
    INTAKE_DELIVERY_TIMEOUT_MS: String(TIMEOUT_MS),
    INTAKE_DELIVERY_CONCURRENCY: String(CONCURRENCY),
    INTAKE_DELIVERY_CONCURRENCY_PER_WEBHOOK: String(PER_WEBHOOK),
  },
}).start();

/** Polls every 500 ms: the delivery log is an API route, rate-limited with the others (120 a minute). */
async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  return waitUntil(
    async () => {
      const v = await fn();
      if (!ok(v)) await new Promise((r) => setTimeout(r, 450));
      return v;
    },
    ok,
    timeoutMs,
    () => `worker output:\n${worker.output().slice(-4000)}`,
  );
}

type Hook = HookedForm;
const hookedForm = hookedForms(t);

async function deliveriesOf(h: Hook) {
  const res = await t.http
    .get(`/v1/forms/${h.formId}/webhooks/${h.webhookId}/deliveries?per_page=100`)
    .set(bearer(h.owner.token));
  expect(res.status, res.text).toBe(200);
  return res.body.data as Array<{
    id: string;
    status: string;
    attempts: number;
    http_status: number | null;
    error: string | null;
  }>;
}

const CONTACT = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  message: 'Could you send me a quote for twenty units?',
};

describe('a receiver that never answers takes at most its share of a worker', { timeout: 60_000 }, () => {
  it("another team's webhook is delivered at once while every attempt to the silent one waits out the timeout", async () => {
    const silent = await hookedForm(() => ({ hang: true }));
    const healthy = await hookedForm(() => ({ status: 204 }));

    // More attempts queued for the silent webhook than the worker has slots.
    const QUEUED = CONCURRENCY + 1;
    await Promise.all(Array.from({ length: QUEUED }, () => postForm(t, silent.endpoint, CONTACT)));
    await eventually(
      () => deliveriesOf(silent),
      (ds) => ds.length === QUEUED,
    );
    await silent.receiver.waitFor(PER_WEBHOOK);

    // The healthy webhook's deliveries, one after another while the silent receiver holds its attempts open.
    const latencies: number[] = [];
    for (let i = 0; i < 3; i++) {
      const postedAt = Date.now();
      await postForm(t, healthy.endpoint, CONTACT);
      const reqs = await healthy.receiver.waitFor(i + 1, 10_000);
      latencies.push(reqs[i]!.receivedAt - postedAt);
    }
    console.log(
      `fairness: healthy webhook's deliveries arrived ${latencies.join(', ')} ms after their posts (attempt timeout ${TIMEOUT_MS} ms)`,
    );
    for (const ms of latencies) expect(ms).toBeLessThan(TIMEOUT_MS / 2);

    // The silent webhook's attempts all end: each delivery timed out on both attempts and is dead, with
    // exactly one request per attempt (a postponement is neither a request nor an attempt).
    const dead = await eventually(
      () => deliveriesOf(silent),
      (ds) => ds.length === QUEUED && ds.every((d) => d.status === 'dead'),
      40_000,
    );
    for (const d of dead)
      expect(d).toMatchObject({ status: 'dead', attempts: SCHEDULE.length, http_status: null, error: 'timeout' });
    const perDelivery = new Map<string, number>();
    for (const r of silent.receiver.requests)
      perDelivery.set(r.headers['webhook-id']!, (perDelivery.get(r.headers['webhook-id']!) ?? 0) + 1);
    expect([...perDelivery.keys()].sort()).toEqual(dead.map((d) => d.id).sort());
    expect([...perDelivery.values()]).toEqual(Array(QUEUED).fill(SCHEDULE.length));
    // Never more than its share at once: when a request arrives, fewer than PER_WEBHOOK others are still open
    // (each stays open until the worker gives up on it, so it closes before its slot starts another).
    const requests = silent.receiver.requests;
    const openAtArrival = requests.map(
      (r) =>
        requests.filter((o) => o !== r && o.receivedAt <= r.receivedAt && (o.closedAt ?? Infinity) > r.receivedAt)
          .length + 1,
    );
    expect(Math.max(...openAtArrival)).toBe(PER_WEBHOOK);
    const arrivals = requests.map((r) => r.receivedAt).sort((a, b) => a - b);

    const {
      rows: [jobs],
    } = await t.ctx.db.query<{ n: number }>(
      `select count(*)::int as n from pgboss.job where name = 'deliver-webhook' and data->>'deliveryId' = any($1::text[])`,
      [dead.map((d) => d.id)],
    );
    console.log(
      `fairness: the silent webhook's ${arrivals.length} attempts took ${((arrivals.at(-1)! - arrivals[0]!) / 1000).toFixed(1)} s from first to last request, ` +
        `through ${jobs!.n} attempt jobs (${jobs!.n - arrivals.length} postponements)`,
    );

    // The healthy webhook: each delivery succeeded on its first attempt, received once.
    const ok = await deliveriesOf(healthy);
    expect(ok).toHaveLength(3);
    for (const d of ok) expect(d).toMatchObject({ status: 'succeeded', attempts: 1, http_status: 204 });
    expect(healthy.receiver.requests.map((r) => r.headers['webhook-id']).sort()).toEqual(ok.map((d) => d.id).sort());
    await new Promise((r) => setTimeout(r, 1000));
    expect(silent.receiver.requests).toHaveLength(QUEUED * SCHEDULE.length);
    expect(healthy.receiver.requests).toHaveLength(3);
  });
});
