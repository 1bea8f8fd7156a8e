import { expect } from 'vitest';
import { deliverWebhook } from '../../server/infra/queue/definitions.ts';
import { bearer, type TestApp } from './harness.ts';
import { hookedForms, type HookedForm } from './hooked-forms.ts';
import { startProcessingApp } from './processing.ts';
import { eventually, workerProcesses, type WorkerProcess } from './worker-process.ts';

/**
 * Traffic for the tests that change a Citus cluster under load (test/citus/rebalance.test.ts, isolation.test.ts):
 * teams posting to their forms from several clients at once, each form with a webhook to a real HTTPS receiver
 * of its own, and a real `intake worker` processing the posts and delivering them while shards move.
 */

export type DeliveringApp = TestApp & {
  databaseUrl: string;
  /** Starts an `intake worker` on the app's database (killed after the file). */
  startWorker: () => WorkerProcess;
  /** A team of its own with a published form and a webhook to a receiver of its own. */
  hookedForm: () => Promise<HookedForm>;
};

/**
 * The app (no worker of its own) on a private database, and the means to start `intake worker` processes on it:
 * they alone trust the receivers' self-signed certificate (test/support/tls.ts).
 */
export async function startDeliveringApp(): Promise<DeliveringApp> {
  // Finished jobs are kept 10 minutes, so a delivery check that times out can show what became of each job.
  const env = { INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true', INTAKE_QUEUE_KEEP_FINISHED_SECONDS: '600' };
  const t = await startProcessingApp(
    {
      ...env,
      // Every post comes from 127.0.0.1: past these a post is stored as spam (no `submission.created`) or refused.
      INTAKE_INGEST_RATE_LIMIT: '1000000',
      INTAKE_INGEST_FLOOD_LIMIT: '1000000',
      // A reader asks as often as the clients post.
      INTAKE_API_RATE_LIMIT: '1000000',
      INTAKE_API_TEAM_RATE_LIMIT: '1000000',
    },
    { worker: false },
  );
  const workers = workerProcesses({ databaseUrl: t.databaseUrl, dataDir: t.dataDir, env });
  return { ...t, startWorker: () => workers.start(), hookedForm: hookedForms(t) };
}

/** One post: to which form, when it was sent and answered (Date.now()), and its answer's status. */
export type Post = { formId: string; sentAt: number; answeredAt: number; status: number };

export type Traffic = {
  /** Each post answered 201: its submission id → its form. */
  accepted: Map<string, string>;
  /** The same posts in the order they were answered. */
  answered: Post[];
  /** Each post answered otherwise. */
  refused: Post[];
  /** Stops the clients, once each has its post in flight answered. */
  stop(): Promise<void>;
};

/**
 * One client per form of `forms`, each posting to its form one post after another, so a team whose writes wait
 * holds back only its own clients; a form listed twice gets two clients.
 */
export function postContinuously(t: TestApp, forms: HookedForm[]): Traffic {
  const accepted = new Map<string, string>();
  const answered: Post[] = [];
  const refused: Post[] = [];
  let posting = true;
  const client = async (form: HookedForm, n: number) => {
    for (let i = 0; posting; i++) {
      const sentAt = Date.now();
      const res = await t.http
        .post(form.endpoint)
        .set('Accept', 'application/json')
        .send({ email: `p${n}-${i}@example.com` });
      const post = { formId: form.formId, sentAt, answeredAt: Date.now(), status: res.status };
      if (res.status === 201) {
        accepted.set(res.body.id as string, form.formId);
        answered.push(post);
      } else refused.push(post);
    }
  };
  const running = forms.map((form, n) => client(form, n));
  return {
    accepted,
    answered,
    refused,
    async stop() {
      posting = false;
      await Promise.all(running);
    },
  };
}

/** A client reading the form's latest submissions through the API, one request after another, until stopped. */
export function readContinuously(t: TestApp, h: HookedForm): { reads: Post[]; stop(): Promise<void> } {
  const reads: Post[] = [];
  let reading = true;
  const running = (async () => {
    while (reading) {
      const sentAt = Date.now();
      const res = await t.http.get(`/v1/forms/${h.formId}/submissions?per_page=5`).set(bearer(h.owner.token));
      reads.push({ formId: h.formId, sentAt, answeredAt: Date.now(), status: res.status });
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    reads,
    async stop() {
      reading = false;
      await running;
    },
  };
}

/** The requests the forms' receivers have had so far. */
export function deliveredCount(forms: HookedForm[]): number {
  return forms.reduce((n, h) => n + h.receiver.requests.length, 0);
}

type DeliveryRow = { id: string; webhook_id: string; submission_id: string; status: string; attempts: number };

/**
 * Every accepted post is stored once, and delivered once: each submission has one delivery, succeeded at its
 * first attempt, and its form's receiver got exactly one request for it, carrying that delivery's id as
 * `webhook-id`. Delivery is at least once only across a worker lost mid-attempt (its claim expires after
 * 3 minutes, docs/webhooks.md); nothing here loses one, so a second request would be a fault. Answers the
 * number of deliveries.
 */
export async function expectStoredAndDeliveredOnce(
  t: DeliveringApp,
  worker: WorkerProcess,
  forms: HookedForm[],
  accepted: Map<string, string>,
): Promise<number> {
  const teams = [...new Set(forms.map((h) => h.owner.teamId))];
  const { rows: stored } = await t.ctx.db.query<{ id: string; form_id: string }>(
    'select id, form_id from submissions where team_id = any($1::text[])',
    [teams],
  );
  expect(stored.length).toBe(accepted.size);
  expect(new Map(stored.map((r) => [r.id, r.form_id]))).toEqual(accepted);

  const deliveriesOf = async () =>
    (
      await t.ctx.db.query<DeliveryRow>(
        `select id, webhook_id, submission_id, status, attempts from deliveries where team_id = any($1::text[])`,
        [teams],
      )
    ).rows;
  let deliveries: DeliveryRow[] = [];
  try {
    await eventually(
      async () => (deliveries = await deliveriesOf()).length,
      (n) => n === accepted.size && deliveries.every((d) => d.status !== 'pending'),
      90_000,
    );
  } catch (err) {
    throw new Error(`${accepted.size} posts accepted; ${await undelivered(t, worker, forms, teams, deliveries)}`, {
      cause: err,
    });
  }
  // A second request for a delivery, were one made, has time to arrive.
  await new Promise((r) => setTimeout(r, 1000));
  expect(deliveries.filter((d) => d.status !== 'succeeded' || d.attempts !== 1)).toEqual([]);
  expect(deliveries.map((d) => d.submission_id).sort()).toEqual([...accepted.keys()].sort());
  const made = (h: HookedForm) =>
    deliveries
      .filter((d) => d.webhook_id === h.webhookId)
      .map((d) => `${d.submission_id} ${d.id}`)
      .sort();
  const received = (h: HookedForm) =>
    h.receiver.requests
      .map((r) => `${(JSON.parse(r.body) as { submission_id: string }).submission_id} ${r.headers['webhook-id']}`)
      .sort();
  for (const h of forms) expect(received(h)).toEqual(made(h));
  return deliveries.length;
}

/**
 * What a delivery check that timed out saw: the deliveries by status, the submissions without one, the jobs not
 * finished, and each pending delivery's requests received and jobs.
 */
async function undelivered(
  t: DeliveringApp,
  worker: WorkerProcess,
  forms: HookedForm[],
  teams: string[],
  deliveries: DeliveryRow[],
): Promise<string> {
  const byStatus = Object.groupBy(deliveries, (d) => d.status);
  const { rows: without } = await t.ctx.db.query<{ status: string; n: number }>(
    `select status, count(*)::int as n from submissions
      where team_id = any($1::text[]) and id <> all($2::text[]) group by 1`,
    [teams, deliveries.map((d) => d.submission_id)],
  );
  const { rows: unfinished } = await t.ctx.db.query<{ name: string; state: string; n: number }>(
    `select name, state::text, count(*)::int as n from pgboss.job where state < 'completed' group by 1, 2`,
  );
  const pending = (byStatus.pending ?? []).map((d) => d.id);
  const { rows: jobs } = await t.ctx.db.query<{ delivery: string }>(
    `select data->>'deliveryId' as delivery, state::text, created_on::text, started_on::text, completed_on::text
       from pgboss.job where name = $1 and data->>'deliveryId' = any($2::text[]) order by created_on`,
    [deliverWebhook.name, pending],
  );
  const requests = forms.flatMap((h) => h.receiver.requests);
  const stuck = pending.map((id) => ({
    id,
    requests: requests.filter((r) => r.headers['webhook-id'] === id).length,
    jobs: jobs.filter((j) => j.delivery === id),
  }));
  const count = Object.fromEntries(Object.entries(byStatus).map(([k, v]) => [k, v!.length]));
  return (
    `deliveries ${JSON.stringify(count)}; submissions without one, by status: ${JSON.stringify(without)}; ` +
    `unfinished jobs: ${JSON.stringify(unfinished)}; pending deliveries: ${JSON.stringify(stuck)}\n` +
    `worker output (end):\n${worker.output().slice(-4000)}`
  );
}
