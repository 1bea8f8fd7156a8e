import { afterAll, describe, expect, it } from 'vitest';
import { deadDeliverySeeder } from '../support/dead-deliveries.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, seed } from '../support/harness.ts';
import { hookedForms } from '../support/hooked-forms.ts';
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest, type Reply } from '../support/https-receiver.ts';
import { postForm, startProcessingApp } from '../support/processing.ts';
import { eventually, workerProcesses } from '../support/worker-process.ts';

// One real worker with the default delivery slots (50, at most 10 per webhook), of which at most BULK_CAP
// bulk attempts (unpaced here, so 12,000 replays take seconds, not minutes); every receiver is a real HTTPS
// endpoint that answers 200 after 20 ms, so the worker cannot empty a bulk backlog in an instant.
const BULK_CAP = 8;
const t = await startProcessingApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' }, { worker: false });
const worker = workerProcesses({
  databaseUrl: t.databaseUrl,
  dataDir: t.dataDir,
  env: {
    INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true',
    INTAKE_DELIVERY_SCHEDULE: '0,1',
    INTAKE_BULK_DELIVERY_CONCURRENCY: String(BULK_CAP),
    INTAKE_BULK_DELIVERY_RATE: '100000',
    INTAKE_REPLAY_TEAM_RATE: '100000',
    LOG_LEVEL: 'info',
  },
}).start();
const context = () => `worker output:\n${worker.output().slice(-4000)}`;

const FAST = () => ({ delayMs: 20, reply: { status: 200 } });
const hookedForm = hookedForms(t);
const receivers: HttpsReceiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
});

const CONTACT = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  message: 'Could you send me a quote for twenty units?',
};

const deadDeliveries = deadDeliverySeeder(t, 'jf');

/** A team with one form and `hooks` webhooks, each to a fast receiver of its own, with `n` dead deliveries each. */
async function teamWithBacklog(hooks: number, n: number, reply: (req: ReceivedRequest) => Reply = FAST) {
  const owner = await makeTeam(t, { plan: 'scale' });
  const form = await makePublishedForm(t, owner);
  const webhooks: Array<{ id: string; receiver: HttpsReceiver }> = [];
  for (let i = 0; i < hooks; i++) {
    const receiver = await startHttpsReceiver({ reply });
    receivers.push(receiver);
    const res = await t.http
      .post(`/v1/forms/${form.id}/webhooks`)
      .set(bearer(owner.token))
      .send({ label: `Bulk ${i}`, url: `${receiver.localhostUrl}/hook` });
    expect(res.status, res.text).toBe(201);
    webhooks.push({ id: res.body.data.id as string, receiver });
    await deadDeliveries(owner.teamId, res.body.data.id as string, n);
  }
  const received = () => webhooks.reduce((sum, w) => sum + w.receiver.requests.length, 0);
  /**
   * Replays every webhook's dead deliveries; resolves once every replay job is under way (it has queued its
   * first deliveries: a job queues more only as they are sent) or, with `finished`, has queued them all.
   */
  const replayAll = async (until: 'under way' | 'finished' = 'finished') => {
    const jobs: string[] = [];
    for (const w of webhooks) {
      const res = await t.http.post(`/v1/webhooks/${w.id}/replay`).set(bearer(owner.token)).send({ status: 'dead' });
      expect(res.status, res.text).toBe(202);
      jobs.push(res.body.job_id as string);
    }
    const ready =
      until === 'finished'
        ? `j.status = 'succeeded'`
        : `exists (select 1 from deliveries d where d.replay_job_id = j.id)`;
    await eventually(
      async () =>
        (
          await t.ctx.db.query<{ n: number }>(
            `select count(*)::int as n from jobs j where j.id = any($1::text[]) and ${ready}`,
            [jobs],
          )
        ).rows[0]!.n,
      (done) => done === jobs.length,
      30_000,
      context,
    );
    return jobs;
  };
  return { owner, webhooks, received, replayAll, total: hooks * n };
}

/** A replay job queues the next batch of deliveries only while fewer than this many of its own wait (server/domain/delivery/replay.ts). */
const REPLAY_WINDOW = 1_000;
const REPLAY_BATCH = 500;

describe("one team's bulk replays and another team's deliveries", { timeout: 200_000 }, () => {
  it("a fresh delivery of another team arrives at once, and another team's small replay takes its turn, while 12,000 replays run", async () => {
    const a = await teamWithBacklog(3, 4000);
    const b = await hookedForm(FAST);
    const c = await teamWithBacklog(1, 300);

    const aJobs = await a.replayAll('under way');
    const queuedAt = Date.now();
    const aAtQueued = a.received();
    // Each replay job keeps at most a window of its deliveries waiting, not its whole backlog.
    let mostWaiting = 0;
    const sampling = (async () => {
      for (;;) {
        const { rows } = await t.ctx.db.query<{ n: number }>(
          `select count(*)::int as n from deliveries where replay_job_id = any($1::text[]) and status = 'pending' and attempts = 0 group by replay_job_id`,
          [aJobs],
        );
        mostWaiting = Math.max(mostWaiting, ...rows.map((r) => r.n));
        const {
          rows: [left],
        } = await t.ctx.db.query<{ n: number }>(
          `select count(*)::int as n from jobs where id = any($1::text[]) and status <> 'succeeded'`,
          [aJobs],
        );
        if (left!.n === 0) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    // Team C replays its 300 dead deliveries, and team B's form gets a post, while A's replays run.
    const cDone = c.replayAll();
    const postedAt = Date.now();
    await postForm(t, b.endpoint, CONTACT);
    const [bDelivery] = await b.receiver.waitFor(1, 30_000);
    const bLatency = bDelivery!.receivedAt - postedAt;
    const aAtB = a.received();
    await cDone;
    await eventually(
      async () => c.received(),
      (n) => n >= c.total,
      60_000,
      context,
    );
    const cLast = Math.max(...c.webhooks[0]!.receiver.requests.map((r) => r.receivedAt));
    const aAtC = a.webhooks.flatMap((w) => w.receiver.requests).filter((r) => r.receivedAt <= cLast).length;
    console.log(
      `job-fairness: A had ${aAtQueued} of ${a.total} replays delivered when its jobs were under way; ` +
        `B's fresh delivery arrived ${bLatency} ms after its post (A at ${aAtB}); C's ${c.total} replays were all delivered ` +
        `${cLast - queuedAt} ms after A's jobs were under way (A at ${aAtC})`,
    );
    expect(bLatency, "team B's fresh delivery waited behind team A's replays").toBeLessThan(2_000);
    // C's replays were sent while A still had most of its backlog waiting: C took turns with A, not its place behind A.
    expect(aAtC, "team C's replay waited behind team A's").toBeLessThan(aAtQueued + (a.total - aAtQueued) / 2);

    // Everything A queued is still delivered, once each.
    const replays = async () =>
      (
        await t.ctx.db.query<{ n: number; ok: number }>(
          `select count(*)::int as n, count(*) filter (where status = 'succeeded')::int as ok from deliveries where team_id = $1 and replay_job_id is not null`,
          [a.owner.teamId],
        )
      ).rows[0]!;
    expect(await eventually(replays, (r) => r.ok === a.total, 150_000, context)).toEqual({ n: a.total, ok: a.total });
    await sampling;
    expect(mostWaiting).toBeGreaterThan(0);
    expect(mostWaiting, 'a replay job queued more than its window').toBeLessThanOrEqual(REPLAY_WINDOW + REPLAY_BATCH);
    await new Promise((r) => setTimeout(r, 300));
    const ids = a.webhooks.flatMap((w) => w.receiver.requests.map((r) => r.headers['webhook-id']));
    expect(ids).toHaveLength(a.total);
    expect(new Set(ids).size).toBe(a.total);
  });
});

describe("one team's erasure of a big form and another team's posts", { timeout: 120_000 }, () => {
  it("another team's posts are stored and delivered at once while the erasure runs, and the erasure finishes", async () => {
    const N = 30_000;
    const owner = await makeTeam(t, { plan: 'scale' });
    const form = await makePublishedForm(t, owner);
    await seed(
      t,
      `insert into submissions (id, team_id, form_id, status, payload)
       select 'subm_jfe' || lpad(g::text, 23, '0'), $1, $2, 'processed', jsonb_build_object('email', 'ada@example.com', 'message', repeat('z', 500), 'n', g)
         from generate_series(1, $3::int) g`,
      [owner.teamId, form.id, N],
    );
    const b = await hookedForm(FAST);

    const res = await t.http.post('/v1/erasure').set(bearer(owner.token)).send({ email: 'ada@example.com' });
    expect(res.status, res.text).toBe(202);
    // Read from the table: polling the API would spend the token's rate limit.
    const erasure = async () =>
      (
        await t.ctx.db.query<{ status: string; submissions: number }>(
          'select status, submissions from erasure_requests where id = $1',
          [res.body.erasure_id],
        )
      ).rows[0]!;
    await eventually(erasure, (e) => e.status === 'running' && e.submissions > 0, 60_000, context);

    const latencies: number[] = [];
    const lists: number[] = [];
    for (let i = 0; i < 3; i++) {
      const postedAt = Date.now();
      await postForm(t, b.endpoint, CONTACT);
      const reqs = await b.receiver.waitFor(i + 1, 30_000);
      latencies.push(reqs[i]!.receivedAt - postedAt);
      const listedAt = Date.now();
      const list = await t.http.get(`/v1/forms/${b.formId}/submissions`).set(bearer(b.owner.token));
      expect(list.status, list.text).toBe(200);
      lists.push(Date.now() - listedAt);
    }
    const during = await erasure();
    console.log(
      `job-fairness: during the erasure (${during.submissions} of ${N} erased, ${during.status}), B's deliveries arrived ` +
        `${latencies.join(', ')} ms after their posts, its list answered in ${lists.join(', ')} ms`,
    );
    for (const ms of latencies) expect(ms).toBeLessThan(2_000);
    for (const ms of lists) expect(ms).toBeLessThan(1_000);

    const done = await eventually(erasure, (e) => e.status === 'succeeded', 90_000, context);
    expect(done.submissions).toBe(N);
  });
});

describe("one team's bulk replay takes at most its share of a worker", { timeout: 120_000 }, () => {
  it("never has more than INTAKE_BULK_DELIVERY_CONCURRENCY attempts in flight, while another team's fresh delivery arrives at once", async () => {
    // Each receiver answers after 100 ms and counts the requests it has not answered yet, across both webhooks:
    // without the bound, the worker would hold 10 attempts per webhook (its per-webhook share) at once.
    let inFlight = 0;
    let most = 0;
    const counting = (): Reply => {
      inFlight++;
      most = Math.max(most, inFlight);
      setTimeout(() => inFlight--, 100).unref();
      return { delayMs: 100, reply: { status: 200 } };
    };
    const a = await teamWithBacklog(2, 400, counting);
    const b = await hookedForm(FAST);

    await a.replayAll();
    await eventually(
      async () => a.received(),
      (n) => n >= 40,
      30_000,
      context,
    );
    const postedAt = Date.now();
    await postForm(t, b.endpoint, CONTACT);
    const [bDelivery] = await b.receiver.waitFor(1, 30_000);
    const bLatency = bDelivery!.receivedAt - postedAt;
    const aAtB = a.received();
    await eventually(
      async () => a.received(),
      (n) => n >= a.total,
      90_000,
      context,
    );
    console.log(
      `job-fairness: bulk attempts in flight at most ${most} (cap ${BULK_CAP}); B's fresh delivery arrived ${bLatency} ms after its post (A at ${aAtB} of ${a.total})`,
    );
    expect(aAtB, 'the replay was still under way when B posted').toBeLessThan(a.total);
    expect(most, 'bulk attempts in flight at once').toBeLessThanOrEqual(BULK_CAP);
    expect(most, 'the replay used its share').toBeGreaterThan(1);
    expect(bLatency, "team B's fresh delivery waited behind team A's replay").toBeLessThan(2_000);
  });
});
