import { describe, expect, it } from 'vitest';
import { ulid } from 'ulid';
import { sendDeactivationNotice } from '../../server/domain/delivery/maintenance.ts';
import { runReplayJob } from '../../server/domain/delivery/replay.ts';
import { runErasure } from '../../server/domain/lifecycle/erasure.ts';
import { sendAssignmentNotice } from '../../server/domain/notifications/assignment.ts';
import { newId } from '../../server/domain/shared/ids.ts';
import { makeTeam, startTestApp } from '../support/harness.ts';
import { insertForm, insertSubmission, insertWebhook } from '../support/team-records.ts';

/**
 * On Citus a job (a coordinator table) can commit before the shard rows its transaction wrote: a job that does
 * not find its record, or finds it not yet changed, within a minute of the change is retried rather than
 * dropped; later, it is done with (the record is gone or changed again). Plain Postgres answers the same.
 */
const t = await startTestApp();
const owner = await makeTeam(t);
const formId = await insertForm(t, owner.teamId);
const madeAgo = (prefix: 'job' | 'era', ms: number) => `${prefix}_${ulid(Date.now() - ms).toLowerCase()}`;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

describe('jobs whose rows may not be visible yet', () => {
  it('retries a replay job whose record is not found under a minute after its making, drops an older one', async () => {
    await expect(runReplayJob(t.ctx, newId('job'), owner.teamId)).rejects.toThrow(/not visible yet/);
    await expect(runReplayJob(t.ctx, madeAgo('job', 120_000), owner.teamId)).resolves.toBeUndefined();
  });

  it('retries an erasure job whose request is not found under a minute after its making, drops an older one', async () => {
    await expect(runErasure(t.ctx, newId('era'), owner.teamId)).rejects.toThrow(/not visible yet/);
    await expect(runErasure(t.ctx, madeAgo('era', 120_000), owner.teamId)).resolves.toBeUndefined();
  });

  it('retries an assignment notice that does not find its assignment within a minute of it, skips a later one', async () => {
    const submissionId = await insertSubmission(t, owner.teamId, formId);
    const job = { submissionId, assigneeId: owner.userId, byUserId: null, teamId: owner.teamId };
    await expect(sendAssignmentNotice(t.ctx, { ...job, at: ago(1_000) })).rejects.toThrow(/not visible yet/);
    expect(await sendAssignmentNotice(t.ctx, { ...job, at: ago(120_000) })).toBe('skipped');
    // Queued before jobs carried their time.
    expect(await sendAssignmentNotice(t.ctx, job)).toBe('skipped');
  });

  it('retries a deactivation notice that finds its webhook still active within a minute of it, skips a later one', async () => {
    const webhookId = await insertWebhook(t, owner.teamId, formId);
    await expect(sendDeactivationNotice(t.ctx, webhookId, owner.teamId, ago(1_000))).rejects.toThrow(/not visible yet/);
    expect(await sendDeactivationNotice(t.ctx, webhookId, owner.teamId, ago(120_000))).toBe('skipped');
    expect(await sendDeactivationNotice(t.ctx, webhookId, owner.teamId)).toBe('skipped');
  });
});
