import type { Ability } from '../../../contract/abilities.ts';
import type { z } from 'zod';
import type { ErasureJobResult, JOB_TYPES } from '../../../contract/jobs.ts';
import { erasureJobResult } from './erasure.ts';
import type { AppContext } from '../../context.ts';
import { findJob, type JobRow } from '../../infra/db/queries/jobs.ts';
import type { Caller } from '../accounts/caller.ts';
import { AppError, notFound } from '../shared/errors.ts';
import { iso } from '../shared/timestamps.ts';

/** Reading a job needs the read ability of what it works on. */
const READ_ABILITY: Record<string, Ability> = { webhook_replay: 'webhooks:read', erasure: 'submissions:read' };

export function jobView(j: JobRow, result: z.infer<typeof ErasureJobResult> | null = null) {
  return {
    id: j.id,
    type: j.type as (typeof JOB_TYPES)[number],
    status: j.status,
    total: j.total,
    done: j.done,
    failed: j.failed,
    errors: j.errors,
    created_at: iso(j.created_at),
    started_at: iso(j.started_at),
    finished_at: iso(j.finished_at),
    result,
  };
}

/** A job of the caller's team (another team's is not found); 403 without the ability its type needs. */
export async function getJob(ctx: AppContext, caller: Caller, id: string) {
  const job = await findJob(ctx.db, id, caller.teamId);
  if (!job) throw notFound('Job');
  const ability = READ_ABILITY[job.type];
  if (!ability || !caller.abilities.includes(ability)) {
    throw new AppError('forbidden', `This token lacks the "${ability}" ability.`, { required: ability });
  }
  const erasureId = job.type === 'erasure' ? (job.params as { erasure_id?: string }).erasure_id : undefined;
  return jobView(job, erasureId ? await erasureJobResult(ctx, caller.teamId, erasureId) : null);
}
