import { describe, expect, it } from 'vitest';
import { ulid } from 'ulid';
import type { AiProvider } from '../../server/infra/ai/provider.ts';
import type { AppContext } from '../../server/context.ts';
import { newId } from '../../server/domain/shared/ids.ts';
import { sendAutoresponse } from '../../server/domain/notifications/autoresponder.ts';
import { sendNotification } from '../../server/domain/notifications/notifications.ts';
import {
  processSubmission,
  processSubmissions,
  type ProcessingOutcome,
} from '../../server/domain/submissions/processing.ts';
import * as jobs from '../../server/infra/queue/definitions.ts';
import { workers } from '../../server/workers/handlers.ts';
import { makePublishedForm } from '../support/forms.ts';
import { makeTeam } from '../support/harness.ts';
import { onCitus } from '../support/citus-app.ts';
import { insertSubmission } from '../support/team-records.ts';
import { jobsFor, postForm, startProcessingApp, submission, waitForProcessing } from '../support/processing.ts';

// `t` runs a pg-boss worker like `intake serve`; `manual` has none, so a test can drive the job itself.
const t = await startProcessingApp();
const manual = await startProcessingApp({}, { worker: false });

const SALES = {
  name: 'Grace Hopper',
  email: 'grace@navy.example',
  message: 'Hello, could you send us a quote and your pricing for 40 seats? We would also like a demo next week.',
};
const BUG = {
  name: 'Linus',
  email: 'linus@example.org',
  message: 'The export crashes with an error every time: I found a bug, the page shows a stack trace.',
};
const SPAM = {
  name: 'Promo',
  email: 'deals@example.net',
  message: 'Casino bonus! Buy now and click here: http://win.example/a http://win.example/b http://win.example/c',
};
const DISPOSABLE = {
  name: 'Temp',
  email: 'temp123@mailinator.com',
  message: 'Visit https://a.example/1 https://b.example/2 https://c.example/3',
};
/** Two links and nothing else: the local provider scores it 0.5. */
const TWO_LINKS = {
  name: 'Ann',
  email: 'ann@example.com',
  message: 'Our docs are at https://docs.example.com/start and https://docs.example.com/api — could you have a look?',
};

describe('process-submission: moderation and categorisation', () => {
  it('moves a clean post to processed with its category and the local moderation', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, { notification_emails: ['team@example.com'] });
    const sales = await postForm(t, form.endpoint, SALES);
    const bug = await postForm(t, form.endpoint, BUG);

    const s = await waitForProcessing(t, sales);
    expect(s).toMatchObject({ status: 'processed', spam_reason: null, category: 'sales' });
    expect(s.ai_moderation).toEqual({ score: 0, verdict: 'clean', reasons: [], provider: 'local' });
    expect(s.payload).toEqual(SALES);
    const b = await waitForProcessing(t, bug);
    expect(b).toMatchObject({ status: 'processed', spam_reason: null, category: 'bug-report' });
    expect(b.ai_moderation).toMatchObject({ verdict: 'clean', provider: 'local' });

    // Clean and with notification addresses: one notification e-mail job each.
    expect((await jobsFor(t, sales, jobs.notificationEmail.name)).length).toBe(1);
    expect((await jobsFor(t, bug, jobs.notificationEmail.name)).length).toBe(1);
  });

  it('marks obvious spam as spam (ai_moderation) and notifies nobody', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, { notification_emails: ['team@example.com'] });
    const terms = await postForm(t, form.endpoint, SPAM);
    const disposable = await postForm(t, form.endpoint, DISPOSABLE);

    const a = await waitForProcessing(t, terms);
    expect(a).toMatchObject({ status: 'spam', spam_reason: 'ai_moderation', category: 'spam' });
    expect(a.ai_moderation).toEqual({
      score: 0.988,
      verdict: 'spam',
      reasons: ['links:3', 'spam_terms:casino,click here,buy now'],
      provider: 'local',
    });
    const d = await waitForProcessing(t, disposable);
    expect(d).toMatchObject({ status: 'spam', spam_reason: 'ai_moderation', category: 'spam' });
    expect(d.ai_moderation).toEqual({
      score: 0.875,
      verdict: 'spam',
      reasons: ['links:3', 'disposable_email'],
      provider: 'local',
    });

    expect(await jobsFor(t, terms, jobs.notificationEmail.name)).toEqual([]);
    expect(await jobsFor(t, disposable, jobs.notificationEmail.name)).toEqual([]);
  });

  it("honours the form's ai_threshold: the same post is spam at 0.2 and clean at 0.99", async () => {
    const owner = await makeTeam(t);
    const strict = await makePublishedForm(t, owner, { settings: { ai_threshold: 0.2 } });
    const lenient = await makePublishedForm(t, owner, { settings: { ai_threshold: 0.99 } });

    const caught = await waitForProcessing(t, await postForm(t, strict.endpoint, TWO_LINKS));
    const passed = await waitForProcessing(t, await postForm(t, lenient.endpoint, TWO_LINKS));
    expect(caught).toMatchObject({ status: 'spam', spam_reason: 'ai_moderation', category: 'spam' });
    expect(passed).toMatchObject({ status: 'processed', spam_reason: null });
    expect(passed.category).not.toBe('spam');
    for (const s of [caught, passed])
      expect(s.ai_moderation).toEqual({ score: 0.5, verdict: 'suspicious', reasons: ['links:2'], provider: 'local' });

    // Even a post the provider itself calls spam stays in the inbox under a 0.99 threshold, and a
    // processed submission is not filed under the spam category.
    const loud = await waitForProcessing(t, await postForm(t, lenient.endpoint, SPAM));
    expect(loud).toMatchObject({ status: 'processed', spam_reason: null });
    expect(loud.ai_moderation).toMatchObject({ score: 0.988, verdict: 'spam' });
    expect(loud.category).not.toBe('spam');
  });

  it('leaves spam caught by the ingest stack (honeypot) alone: no processing, no e-mail', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, { notification_emails: ['team@example.com'] });
    const bot = await postForm(t, form.endpoint, { ...SALES, _gotcha: 'http://bot.example' });
    const human = await postForm(t, form.endpoint, SALES);
    // The human's post went through the same worker after the bot's was stored.
    expect((await waitForProcessing(t, human)).status).toBe('processed');

    const s = await submission(t, bot);
    expect(s).toMatchObject({ status: 'spam', spam_reason: 'honeypot_filled', category: null, ai_moderation: null });
    expect(await jobsFor(t, bot)).toEqual([]);
    expect((await jobsFor(t, human)).map((j) => j.name).sort()).toEqual([
      jobs.notificationEmail.name,
      jobs.processSubmission.name,
    ]);
  });

  it('processes again what a person marks not spam (PUT or bulk), and moderation does not send it back', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, { notification_emails: ['team@example.com'] });
    // Obvious spam by the model's measure, so only the person's word keeps it in the inbox.
    const byModel = await postForm(t, form.endpoint, SPAM);
    expect((await waitForProcessing(t, byModel)).status).toBe('spam');
    const byHoneypot = await postForm(t, form.endpoint, { ...SALES, _gotcha: 'filled' });
    expect((await submission(t, byHoneypot)).status).toBe('spam');

    const put = await t.http
      .put(`/v1/forms/${form.id}/submissions/${byModel}`)
      .set('Authorization', `Bearer ${owner.token}`)
      .send({ status: 'received' });
    expect(put.status).toBe(200);
    const bulk = await t.http
      .post(`/v1/forms/${form.id}/submissions/bulk`)
      .set('Authorization', `Bearer ${owner.token}`)
      .send({ ids: [byHoneypot], action: 'mark_not_spam' });
    expect(bulk.body).toMatchObject({ affected: 1 });

    for (const id of [byModel, byHoneypot]) {
      const s = await waitForProcessing(t, id);
      expect(s).toMatchObject({ status: 'processed', spam_reason: null });
      expect(s.category).not.toBe('spam');
      expect((await jobsFor(t, id, jobs.notificationEmail.name)).length).toBe(1);
    }
  });

  it('retries a job whose submission is not visible yet (made under a minute ago: Citus commits its shard after the job), skips an older one', async () => {
    await expect(processSubmission(t.ctx, newId('subm'))).rejects.toThrow(/not visible yet/);
    expect(await processSubmission(t.ctx, `subm_${ulid(Date.now() - 120_000).toLowerCase()}`)).toBe('skipped');
  });

  it('retries a notification or autoresponse job whose submission’s verdict is not visible yet (still received)', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, { notification_emails: ['team@example.com'] });
    const id = await insertSubmission(t, owner.teamId, form.id, 'received');
    await expect(sendNotification(t.ctx, id, undefined, Date.now(), owner.teamId)).rejects.toThrow(/not settled yet/);
    await expect(sendAutoresponse(t.ctx, id, owner.teamId)).rejects.toThrow(/not settled yet/);
  });

  it('processes a submission once: a second run of the job is skipped and changes nothing', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner, { notification_emails: ['team@example.com'] });
    const id = await postForm(t, form.endpoint, BUG);
    const first = await waitForProcessing(t, id);
    expect(first.status).toBe('processed');

    expect(await processSubmission(t.ctx, id)).toBe('skipped');
    expect(await submission(t, id)).toEqual(first);
    expect((await jobsFor(t, id, jobs.notificationEmail.name)).length).toBe(1);
  });

  it('lets exactly one of several concurrent runs process a submission', async () => {
    const owner = await makeTeam(manual);
    const form = await makePublishedForm(manual, owner, { notification_emails: ['team@example.com'] });
    const id = await postForm(manual, form.endpoint, SALES);
    const [queued] = await jobsFor(manual, id, jobs.processSubmission.name);

    const outcomes = await Promise.all([1, 2, 3, 4].map(() => processSubmission(manual.ctx, id)));
    expect(outcomes.sort()).toEqual(['processed', 'skipped', 'skipped', 'skipped']);
    expect((await submission(manual, id)).status).toBe('processed');
    expect((await jobsFor(manual, id, jobs.notificationEmail.name)).length).toBe(1);
    await manual.ctx.queue.boss.cancel(jobs.processSubmission.name, queued!.id); // keep the queue for the next test
  });

  it('processes a huge post with many distinct words (no stack overflow in the scorer)', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    // ~150,000 distinct four-letter words in 12 fields of under 64 KB: about 750 KB of text.
    const words = Array.from({ length: 150_000 }, (_, i) => {
      let w = '';
      for (let n = i + 20_000, k = 0; k < 4; k++, n = Math.floor(n / 26)) w += String.fromCharCode(97 + (n % 26));
      return w;
    });
    const fields: Record<string, string> = {};
    for (let f = 0; f * 12_500 < words.length; f++)
      fields[`part${f}`] = words.slice(f * 12_500, (f + 1) * 12_500).join(' ');
    const id = await postForm(t, form.endpoint, fields);
    const s = await waitForProcessing(t, id, 5_000);
    expect(['processed', 'spam']).toContain(s.status);
    expect(s.ai_moderation).toMatchObject({ provider: 'local' });
  });
});

describe('process-submission: retries and failure', () => {
  const broken: AiProvider = {
    name: 'broken',
    analyze: () => Promise.reject(new Error('model exploded')),
    summarize: () => Promise.reject(new Error('model exploded')),
  };
  const boss = manual.ctx.queue.boss;

  /** One attempt the way a queue worker makes it: claim the job, run the real handler, settle it in pg-boss. */
  async function attempt(
    job: { name: string },
    ctx: AppContext,
    submissionId: string,
    teamId: string,
  ): Promise<'completed' | 'failed'> {
    // The retry delay (5 s, then backoff) is pg-boss's business; the test does not wait it out.
    const [claimed] = await boss.fetch<{ submissionId: string }>(job.name, { ignoreStartAfter: true });
    expect(claimed?.data).toEqual({ submissionId, teamId });
    const handler = workers(ctx).find((w) => w.job.name === job.name)!;
    try {
      await handler.handler(ctx, claimed!.data, claimed!);
      await boss.complete(job.name, claimed!.id);
      return 'completed';
    } catch (err) {
      await boss.fail(job.name, claimed!.id, { message: (err as Error).message });
      return 'failed';
    }
  }

  it('keeps a failing submission received through its retries, then marks it failed', async () => {
    const owner = await makeTeam(manual); // a plan with AI, so the (broken) configured provider is used
    const form = await makePublishedForm(manual, owner, { notification_emails: ['team@example.com'] });
    const id = await postForm(manual, form.endpoint, SALES);
    const ctx = { ...manual.ctx, ai: broken };

    const retryLimit = jobs.processSubmission.queue.retryLimit!;
    expect(retryLimit).toBeGreaterThan(0);
    for (let i = 0; i <= retryLimit; i++) {
      expect(await attempt(jobs.processSubmission, ctx, id, owner.teamId)).toBe('failed');
      const s = await submission(manual, id);
      expect(s.status).toBe('received');
      expect(s.metadata.processing_error).toBe('model exploded');
      const [job] = await jobsFor(manual, id, jobs.processSubmission.name);
      expect(job).toMatchObject({ state: i < retryLimit ? 'retry' : 'failed', retry_count: i });
    }

    // pg-boss has given up: the dead-lettered job marks the submission failed.
    expect(await jobsFor(manual, id, jobs.processSubmissionFailed.name)).toEqual([
      expect.objectContaining({ state: 'created' }),
    ]);
    expect(await attempt(jobs.processSubmissionFailed, manual.ctx, id, owner.teamId)).toBe('completed');
    const s = await submission(manual, id);
    expect(s).toMatchObject({ status: 'failed', ai_moderation: null, category: null, spam_reason: null });
    expect(s.metadata.processing_error).toBe('model exploded');
    expect(s.payload).toEqual(SALES); // nothing lost
    expect(await jobsFor(manual, id, jobs.notificationEmail.name)).toEqual([]);
  });

  it('processes a batch job submission by submission: one that fails is retried and marked failed alone', async () => {
    const owner = await makeTeam(manual);
    const form = await makePublishedForm(manual, owner);
    const [a, b, c] = [
      await postForm(manual, form.endpoint, SALES),
      await postForm(manual, form.endpoint, BUG),
      await postForm(manual, form.endpoint, TWO_LINKS),
    ];
    // The posts went one by one (each with its own job): stand in one job for the three, as a group commit's batch has.
    for (const id of [a, b, c]) {
      const [own] = await jobsFor(manual, id, jobs.processSubmission.name);
      await boss.cancel(jobs.processSubmission.name, own!.id);
    }
    await manual.ctx.queue.send(jobs.processSubmission, { submissionIds: [a, b, c] });
    // The model fails on the bug report only.
    const flaky: AiProvider = {
      ...manual.ctx.localAi,
      analyze: (input) =>
        input.fields.message === BUG.message
          ? Promise.reject(new Error('model exploded'))
          : manual.ctx.localAi.analyze(input),
    };
    const ctx = { ...manual.ctx, ai: flaky };
    const handler = workers(ctx).find((w) => w.job.name === jobs.processSubmission.name)!;

    const retryLimit = jobs.processSubmission.queue.retryLimit!;
    let settledAt: string | null = null;
    for (let i = 0; i <= retryLimit; i++) {
      const [claimed] = await boss.fetch<jobs.SubmissionsToProcess>(jobs.processSubmission.name, {
        ignoreStartAfter: true,
      });
      expect(claimed?.data).toEqual({ submissionIds: [a, b, c] });
      await expect(handler.handler(ctx, claimed!.data, claimed!)).rejects.toThrow('model exploded');
      await boss.fail(jobs.processSubmission.name, claimed!.id, { message: 'model exploded' });
      expect((await submission(manual, a)).status).toBe('processed');
      expect(await submission(manual, b)).toMatchObject({
        status: 'received',
        metadata: expect.objectContaining({ processing_error: 'model exploded' }),
      });
      expect((await submission(manual, c)).status).toBe('processed');
      // Settled once: the retries find `a` processed and leave it as it was.
      settledAt ??= (await submission(manual, a)).updated_at;
      expect((await submission(manual, a)).updated_at).toBe(settledAt);
    }

    const [dead] = await boss.fetch<jobs.SubmissionsToProcess>(jobs.processSubmissionFailed.name);
    expect(dead?.data).toEqual({ submissionIds: [a, b, c] });
    await workers(manual.ctx)
      .find((w) => w.job.name === jobs.processSubmissionFailed.name)!
      .handler(manual.ctx, dead!.data, dead!);
    await boss.complete(jobs.processSubmissionFailed.name, dead!.id);
    expect((await submission(manual, a)).status).toBe('processed');
    expect(await submission(manual, b)).toMatchObject({ status: 'failed', payload: BUG });
    expect((await submission(manual, c)).status).toBe('processed');
  });

  // The refusing trigger is plain-Postgres scaffolding (Citus wants triggers on distributed tables declared).
  it.skipIf(onCitus)(
    'settles a batch in one transaction under one stream number; a submission the database refuses is retried alone',
    async () => {
      const owner = await makeTeam(manual);
      const form = await makePublishedForm(manual, owner);
      const ids: string[] = [];
      for (const fields of [SALES, BUG, SALES, BUG, TWO_LINKS]) ids.push(await postForm(manual, form.endpoint, fields));
      // The test runs the processing itself: the posts' own jobs go.
      for (const id of ids) {
        const [own] = await jobsFor(manual, id, jobs.processSubmission.name);
        await boss.cancel(jobs.processSubmission.name, own!.id);
      }
      const settled = async () =>
        (
          await manual.ctx.db.query<{ status: string; updated_at: string; seq: string | null }>(
            `select s.status, s.updated_at::text, n.seq::text
               from unnest($1::text[]) with ordinality as i (id, at)
               join submissions s on s.id = i.id
               left join stream_numbers n on n.submission_id = s.id and n.team_id = s.team_id
              order by i.at`,
            [ids],
          )
        ).rows;
      const outcomes = (results: ProcessingOutcome[]) =>
        results.map((r) => ('outcome' in r ? r.outcome : (r.error as Error).message));

      expect(outcomes(await processSubmissions(manual.ctx, ids.slice(0, 2), { teamId: owner.teamId }))).toEqual([
        'processed',
        'processed',
      ]);
      const [a, b] = await settled();
      // One transaction (its start is the settle time) and one number for both.
      expect(a).toMatchObject({ status: 'processed', seq: '1' });
      expect(b).toMatchObject({ status: 'processed', seq: '1', updated_at: a!.updated_at });

      // The database refuses the last one's settle: the batch's transaction fails, and the others are settled each on its own.
      await manual.ctx.db.query(`create function refuse_settle() returns trigger language plpgsql as $$
        begin if new.id = '${ids[4]}' then raise exception 'refused by the test'; end if; return new; end $$`);
      await manual.ctx.db.query(`create trigger refuse_settle before update on submissions
        for each row when (new.status <> 'received') execute function refuse_settle()`);
      try {
        expect(outcomes(await processSubmissions(manual.ctx, ids.slice(2), { teamId: owner.teamId }))).toEqual([
          'processed',
          'processed',
          expect.stringContaining('refused by the test'),
        ]);
      } finally {
        await manual.ctx.db.query('drop trigger refuse_settle on submissions; drop function refuse_settle()');
      }
      const [, , c, d, refused] = await settled();
      expect(c).toMatchObject({ status: 'processed', seq: '2' });
      expect(d).toMatchObject({ status: 'processed', seq: '3' });
      expect(c!.updated_at).not.toBe(d!.updated_at);
      expect(refused).toMatchObject({ status: 'received', seq: null });
    },
  );

  it('marks a submission failed when its last attempt dies with the worker (the job expires)', async () => {
    const owner = await makeTeam(manual);
    const form = await makePublishedForm(manual, owner);
    // No retries and a 1 s expiry for the job this test creates (boot restores the queue's settings).
    await boss.updateQueue(jobs.processSubmission.name, { retryLimit: 0, expireInSeconds: 1 });
    const id = await postForm(manual, form.endpoint, SALES);
    try {
      // A worker claims the job and is never heard of again.
      const [claimed] = await boss.fetch<{ submissionId: string }>(jobs.processSubmission.name);
      expect(claimed?.data).toEqual({ submissionId: id, teamId: owner.teamId });
    } finally {
      await boss.updateQueue(jobs.processSubmission.name, jobs.processSubmission.queue);
    }
    await new Promise((r) => setTimeout(r, 1_100));
    // The expiry check a supervising worker runs every minute.
    await boss.supervise(jobs.processSubmission.name);
    expect(await jobsFor(manual, id, jobs.processSubmission.name)).toEqual([
      expect.objectContaining({ state: 'failed' }),
    ]);
    expect((await submission(manual, id)).status).toBe('received');

    expect(await attempt(jobs.processSubmissionFailed, manual.ctx, id, owner.teamId)).toBe('completed');
    const s = await submission(manual, id);
    expect(s).toMatchObject({ status: 'failed', ai_moderation: null });
    expect(s.metadata.processing_error).toBe('processing timed out');
  });
});
