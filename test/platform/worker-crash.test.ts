import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as jobs from '../../server/infra/queue/definitions.ts';
import { installationEnv, cliProcesses, type CliProcess } from '../support/cli.ts';
import { makePublishedForm } from '../support/forms.ts';
import { makeTeam } from '../support/harness.ts';
import { startOpenAiTestServer } from '../support/openai-server.ts';
import { jobsFor, postForm, startProcessingApp, submission, waitForProcessing } from '../support/processing.ts';

const openai = await startOpenAiTestServer();
afterAll(() => openai.close());
// Ingest only: in this file background jobs run in separate `intake worker` processes.
const t = await startProcessingApp({}, { worker: false });

type WorkerProcess = CliProcess;
const processes = cliProcesses();

/** `intake worker` as production runs it, on this file's database and data directory. */
function startWorker(): WorkerProcess {
  return processes.start(
    ['worker'],
    installationEnv(t, {
      // As the test app that made the form: its addresses were never asked to confirm.
      INTAKE_VERIFY_NOTIFICATION_EMAILS: 'false',
      OPENAI_API_KEY: 'test',
      OPENAI_BASE_URL: openai.baseUrl,
      LOG_LEVEL: 'warn',
    }),
  );
}

async function kill(w: WorkerProcess): Promise<void> {
  w.child.kill('SIGKILL');
  const [code, signal] = await w.exited;
  expect({ code, signal }).toEqual({ code: null, signal: 'SIGKILL' });
}

/** Waits until a worker has processed a canary post: only then is it known to be consuming jobs. */
async function workerReady(w: WorkerProcess, endpoint: string): Promise<void> {
  const canary = await postForm(t, endpoint, { name: 'canary', message: `canary ${randomBytes(3).toString('hex')}` });
  try {
    await waitForProcessing(t, canary, 30_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}\nworker output:\n${w.output()}`, { cause: err });
  }
}

const mailFiles = (submissionId: string) => {
  const dir = path.join(t.dataDir, 'mail');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => fs.readFileSync(path.join(dir, f), 'utf8').includes(submissionId));
};

async function eventually<T>(fn: () => Promise<T> | T, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** What "processed exactly once" leaves behind: one completed job, one notification, one e-mail. */
async function expectProcessedOnce(id: string, attempts: number) {
  const s = await waitForProcessing(t, id, 20_000);
  expect(s.status).toBe('processed');
  // The job is settled just after the handler's transaction commits the new status.
  const processing = await eventually(
    () => jobsFor(t, id, jobs.processSubmission.name),
    (j) => j[0]?.state === 'completed',
  );
  expect(processing).toEqual([expect.objectContaining({ state: 'completed', retry_count: attempts - 1 })]);
  const notifications = await eventually(
    () => jobsFor(t, id, jobs.notificationEmail.name),
    (j) => j[0]?.state === 'completed',
  );
  expect(notifications).toEqual([expect.objectContaining({ state: 'completed' })]);
  expect(mailFiles(id)).toHaveLength(1);
  return s;
}

// Each test boots `intake worker` twice; give a loaded machine room beyond the default 30 s.
describe('a worker crash loses nothing and processes nothing twice', { timeout: 90_000 }, () => {
  it('a submission taken while no worker runs waits in the queue and is processed once by the next worker', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const form = await makePublishedForm(t, owner, { notification_emails: ['inbox@example.com'] });
    openai.reply = () => ({ analysis: { score: 0.1, verdict: 'clean', reasons: [], category: 'support' } });

    const first = startWorker();
    await workerReady(first, form.endpoint);
    await kill(first);

    const id = await postForm(t, form.endpoint, {
      name: 'Ada',
      email: 'ada@example.com',
      message: 'I cannot log in to my account.',
    });
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await submission(t, id)).status).toBe('received');
    expect(await jobsFor(t, id)).toEqual([
      expect.objectContaining({ name: jobs.processSubmission.name, state: 'created' }),
    ]);

    const second = startWorker();
    const s = await expectProcessedOnce(id, 1);
    expect(s).toMatchObject({ category: 'support', ai_moderation: { provider: 'openai', score: 0.1 } });

    // A clean stop (SIGTERM) finishes and exits on its own.
    second.child.kill('SIGTERM');
    const [code] = await second.exited;
    expect(code).toBe(0);
  });

  it('a job held by a worker that is killed mid-processing is retried after it expires, and processed once', async () => {
    const owner = await makeTeam(t, { plan: 'team' });
    const form = await makePublishedForm(t, owner, { notification_emails: ['inbox@example.com'] });
    const marker = `slow-${randomBytes(4).toString('hex')}`;
    // The model answers this submission slowly the first time: the worker is killed while it waits.
    let calls = 0;
    openai.reply = (req) => {
      if (!req.body.messages.some((m) => m.content.includes(marker)))
        return { analysis: { score: 0, verdict: 'clean', reasons: [], category: 'other' } };
      calls += 1;
      return {
        analysis: { score: 0.2, verdict: 'clean', reasons: ['slow model'], category: 'feedback' },
        delayMs: calls === 1 ? 30_000 : 0,
      };
    };

    const first = startWorker();
    await workerReady(first, form.endpoint);
    // The queue's expiry is 5 minutes and pg-boss looks for expired jobs once a minute; this test
    // shortens the expiry of the job it creates (through pg-boss's own API, on this file's private
    // database) and runs that check itself instead of waiting for a worker's maintenance timer.
    await t.ctx.queue.boss.updateQueue(jobs.processSubmission.name, { expireInSeconds: 2, retryDelay: 1 });

    const held = openai.nextRequest();
    const id = await postForm(t, form.endpoint, {
      name: 'Bea',
      email: 'bea@example.com',
      message: `Loved the new release! (${marker})`,
    });
    expect((await held).body.messages.some((m) => m.content.includes(marker))).toBe(true);
    expect(await jobsFor(t, id)).toEqual([expect.objectContaining({ state: 'active', retry_count: 0 })]);
    await kill(first);
    expect((await submission(t, id)).status).toBe('received');

    // Once the claim has expired, the supervision pass puts the job back for a retry.
    await eventually(
      async () =>
        (
          await t.ctx.db.query(
            `select 1 from pgboss.job where data->>'submissionId' = $1 and started_on + expire_seconds * interval '1s' < now()`,
            [id],
          )
        ).rowCount,
      (n) => n === 1,
    );
    await t.ctx.queue.boss.supervise(jobs.processSubmission.name);
    expect(await jobsFor(t, id)).toEqual([expect.objectContaining({ state: 'retry' })]);
    expect((await submission(t, id)).status).toBe('received');
    // Start the next worker once the retry is due, so its first fetch finds it.
    await eventually(
      async () =>
        (
          await t.ctx.db.query(`select 1 from pgboss.job where data->>'submissionId' = $1 and start_after <= now()`, [
            id,
          ])
        ).rowCount,
      (n) => n === 1,
    );

    startWorker();
    const s = await expectProcessedOnce(id, 2);
    expect(s).toMatchObject({
      category: 'feedback',
      ai_moderation: { provider: 'openai', score: 0.2, reasons: ['slow model'] },
    });
    expect(calls).toBe(2);
  });
});
