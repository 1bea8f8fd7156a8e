import { afterAll, describe, expect, it } from 'vitest';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam } from '../support/harness.ts';
import { startHttpsReceiver } from '../support/https-receiver.ts';
import { startProcessingApp } from '../support/processing.ts';
import { eventually, workerProcesses } from '../support/worker-process.ts';

// Ingest only here; the backlog is worked off by a real `intake worker` that starts after it is queued.
const t = await startProcessingApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' }, { worker: false });
// A long poll: a worker that waits for it between jobs would take minutes over this backlog.
const workers = workerProcesses({
  databaseUrl: t.databaseUrl,
  dataDir: t.dataDir,
  env: { INTAKE_QUEUE_POLL_SECONDS: '5', INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' },
});
const receiver = await startHttpsReceiver();
afterAll(() => receiver.close());

const BACKLOG = 40;

/**
 * BACKLOG posts spread over the forms (two forms of 20: one address's 21st post to a form in a minute
 * would be kept as spam), all accepted; returns how many of them still wait to be processed.
 */
async function queueBacklog(forms: Array<{ id: string; endpoint: string }>): Promise<() => Promise<number>> {
  for (let i = 0; i < BACKLOG; i++) {
    const res = await t.http
      .post(forms[i % forms.length]!.endpoint)
      .set('Accept', 'application/json')
      .type('form')
      .send(`message=backlog+${i}`);
    expect(res.status).toBe(201);
  }
  return async () =>
    Number(
      (
        await t.ctx.db.query<{ n: string }>(
          `select count(*) as n from submissions where form_id = any($1::text[]) and status = 'received'`,
          [forms.map((f) => f.id)],
        )
      ).rows[0]!.n,
    );
}

describe('a backlog of jobs', { timeout: 60_000 }, () => {
  it('is worked off job after job, not one job per worker slot per poll interval', async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const forms = [await makePublishedForm(t, owner), await makePublishedForm(t, owner)];
    const left = await queueBacklog(forms);
    expect(await left()).toBe(BACKLOG);

    // No post arrives while it works, so no NOTIFY wakes it: only its own loop can keep it going.
    const worker = workers.start();
    await eventually(
      left,
      (n) => n < BACKLOG,
      60_000,
      () => worker.output(),
    );
    const started = Date.now();
    await eventually(
      left,
      (n) => n === 0,
      20_000,
      () => worker.output(),
    );
    // 4 slots (INTAKE_WORKER_CONCURRENCY) taking one job each per 5 s poll would need 45 s.
    expect(Date.now() - started).toBeLessThan(5_000);
    await worker.kill();
  });
});

describe('a worker started on a backlog with as many job slots as pooled connections', { timeout: 60_000 }, () => {
  it('does not deadlock its pool: a transaction that queues a job never waits for a second connection', async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const forms = [await makePublishedForm(t, owner), await makePublishedForm(t, owner)];
    // A webhook: processing queues each submission's delivery job inside its transaction.
    for (const form of forms) {
      const res = await t.http
        .post(`/v1/forms/${form.id}/webhooks`)
        .set(bearer(owner.token))
        .send({ label: 'Receiver', url: `${receiver.localhostUrl}/hooks` });
      expect(res.status, res.text).toBe(201);
    }
    const left = await queueBacklog(forms);
    // Two pooled connections (the third of DATABASE_POOL_SIZE is the LISTEN session) and four processing
    // slots: two transactions can hold both connections while they queue their jobs.
    const worker = workers.start({ DATABASE_POOL_SIZE: '3', INTAKE_WORKER_CONCURRENCY: '4' });
    await eventually(
      left,
      (n) => n === 0,
      30_000,
      () => worker.output(),
    );
    expect(worker.output()).not.toContain('timeout exceeded when trying to connect');
    expect(worker.child.exitCode).toBeNull();
    await receiver.waitFor(BACKLOG, 30_000);
  });
});
