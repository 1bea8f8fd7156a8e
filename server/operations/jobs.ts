import type { jobsContract } from '../../contract/jobs.ts';
import { getJob } from '../domain/lifecycle/jobs.ts';
import type { OperationsOf } from './types.ts';

export const jobsOperations = {
  getJob: async (ctx, caller, { params }) => ({
    status: 200,
    body: { data: await getJob(ctx, caller, params.job_id) },
  }),
} satisfies OperationsOf<typeof jobsContract>;
