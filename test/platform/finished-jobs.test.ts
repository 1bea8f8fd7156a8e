import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as jobs from '../../server/infra/queue/definitions.ts';
import { makePublishedForm } from '../support/forms.ts';
import { makeTeam } from '../support/harness.ts';
import { postForm, startProcessingApp, waitForProcessing } from '../support/processing.ts';
import { eventually } from '../support/worker-process.ts';

// Finished jobs kept 2 s, so the deletion pass runs every 2 s.
const t = await startProcessingApp({ INTAKE_QUEUE_KEEP_FINISHED_SECONDS: '2' });

const finished = async (queue: string) =>
  (
    await t.ctx.db.query<{ n: number }>(
      `select count(*)::int as n from pgboss.job where name = $1 and state >= 'completed'`,
      [queue],
    )
  ).rows[0]!.n;

describe('finished jobs', () => {
  it('are deleted from the job table soon after they finish, so it holds only work in flight', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const id = await postForm(t, form.endpoint, { message: 'hello' });
    expect((await waitForProcessing(t, id)).status).toBe('processed');
    // The job that processed it finished, and was there to see...
    await eventually(
      () => finished(jobs.processSubmission.name),
      (n) => n >= 1,
      10_000,
    );
    // ...then gone within the retention and one deletion pass, while the submission keeps its outcome.
    await eventually(
      () => finished(jobs.processSubmission.name),
      (n) => n === 0,
      15_000,
    );
    expect((await waitForProcessing(t, id)).status).toBe('processed');
  });

  it('logs a failed job with its error, since the job and its output are deleted too', async () => {
    // A payload the worker refuses (sent past Intake's own send, which would refuse it first), not retried.
    const jobId = await t.ctx.queue.boss.send(jobs.notificationEmail.name, { submissionId: 42 }, { retryLimit: 0 });
    const state = async () =>
      (await t.ctx.db.query<{ state: string }>('select state::text from pgboss.job where id = $1', [jobId])).rows[0]
        ?.state ?? 'deleted';
    await eventually(state, (s) => s === 'failed', 10_000);
    await eventually(state, (s) => s === 'deleted', 15_000);
    const logged = fs
      .readFileSync(t.logFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes(`"jobId":"${jobId}"`))
      .map((line) => JSON.parse(line) as { msg: string; queue: string; attempt: number; err: { message: string } });
    expect(logged).toEqual([
      expect.objectContaining({
        msg: expect.stringMatching(/^job failed/),
        queue: jobs.notificationEmail.name,
        attempt: 1,
      }),
    ]);
    expect(logged[0]!.err.message).toMatch(/submissionId/);
  });

  it("keeps the weekly insights' jobs 8 days, since a finished one holds its team's week against a retried schedule", async () => {
    const { rows } = await t.ctx.db.query<{ name: string; deletion_seconds: number }>(
      'select name, deletion_seconds from pgboss.queue where name = any($1::text[]) order by name',
      [[jobs.generateInsights.name, jobs.processSubmission.name, jobs.deliverWebhook.name]],
    );
    expect(rows).toEqual([
      { name: jobs.deliverWebhook.name, deletion_seconds: 2 },
      { name: jobs.generateInsights.name, deletion_seconds: 8 * 86_400 },
      { name: jobs.processSubmission.name, deletion_seconds: 2 },
    ]);
  });
});
