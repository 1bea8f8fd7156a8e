import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { authErrors, Timestamp } from './common.ts';
import { COSTS } from './costs.ts';
import { ErasureReceipt } from './erasure.ts';

const c = initContract();

export const JOB_TYPES = ['webhook_replay', 'erasure'] as const;

/** What an erasure job produced: its receipt's counts (GET /v1/erasures/{id}). */
export const ErasureJobResult = z
  .object({
    erasure_id: z.string().describe('The erasure request (`era_…`).'),
    dry_run: z.boolean().describe('A dry run: the counts are of what a real run would erase.'),
  })
  .extend(ErasureReceipt.shape.erased.shape);

export const Job = z.object({
  id: z.string().describe('Prefix `job_`.'),
  type: z.enum(JOB_TYPES),
  status: z.enum(['queued', 'running', 'succeeded', 'failed']),
  total: z.number().int().describe('Items the job takes on.'),
  done: z.number().int().describe('Items handled so far (for a replay: replays queued).'),
  failed: z.number().int().describe('Items that could not be handled; see `errors`.'),
  errors: z
    .array(z.object({ id: z.string().nullable(), error: z.string(), message: z.string() }))
    .describe('At most 100, oldest first.'),
  result: ErasureJobResult.nullable().describe(
    "What the job produced: an erasure's counts (its receipt's); null for a replay.",
  ),
  created_at: Timestamp,
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
});

export const jobsContract = c.router({
  getJob: {
    method: 'GET',
    path: '/v1/jobs/:job_id',
    summary: 'Progress of a background job (e.g. a bulk webhook replay)',
    description:
      'Needs the read ability of what the job works on: `webhooks:read` for a webhook replay, `submissions:read` for an erasure.',
    pathParams: z.object({ job_id: z.string().describe('Job id (`job_…`).') }),
    responses: { 200: z.object({ data: Job }), ...authErrors },
    metadata: { ability: null, cost: COSTS.row },
  },
});
