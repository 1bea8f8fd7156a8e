import { initServer } from '@ts-rest/express';
import { jobsContract } from '../../../contract/jobs.ts';
import type { AppContext } from '../../context.ts';
import { getJob } from '../../domain/jobs.ts';
import { callerOf } from '../request-context.ts';

export function jobsRouter(ctx: AppContext) {
  return initServer().router(jobsContract, {
    getJob: async ({ res, params }) => ({ status: 200, body: { data: await getJob(ctx, callerOf(res), params.job_id) } }),
  });
}
