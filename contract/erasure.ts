import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { authErrors, text, Timestamp } from './common.ts';
import { COSTS } from './costs.ts';

const c = initContract();

export const ErasureBody = z
  .object({
    email: z
      .string()
      .trim()
      .email()
      .max(320)
      .optional()
      .describe('Erase every submission in which this address appears (case ignored).'),
    value: text(z.string().trim().min(3).max(500))
      .optional()
      .describe('Erase every submission in which this exact value appears, as a whole field or inside text.'),
    dry_run: z
      .boolean()
      .default(false)
      .describe(
        'Answer at once (200) with what a real run would erase now, and erase nothing: no job, no receipt, the value is not kept.',
      ),
  })
  .strict()
  .refine((b) => (b.email === undefined) !== (b.value === undefined), {
    message: 'Give exactly one of `email` and `value`.',
  });

export const ErasureReceipt = z.object({
  id: z.string().describe('Prefix `era_`.'),
  job_id: z.string(),
  kind: z.enum(['email', 'value']).describe('What was searched for (the value itself is not kept).'),
  dry_run: z.boolean(),
  status: z.enum(['queued', 'running', 'succeeded', 'failed']),
  requested_by: z.object({ token_id: z.string().nullable(), user_id: z.string().nullable() }),
  erased: z.object({
    submissions: z.number().int().describe('Submissions erased (or, in a dry run, that would be).'),
    files: z.number().int().describe('Their files, removed from storage.'),
    deliveries_redacted: z
      .number()
      .int()
      .describe('Webhook deliveries whose bodies were removed (the log entries stay).'),
    forms: z.record(z.number().int()).describe('Submissions per form id.'),
  }),
  created_at: Timestamp,
  finished_at: Timestamp.nullable(),
});

export const ErasureDryRun = z.object({
  dry_run: z.literal(true),
  submissions: z.number().int().describe('Submissions a real run would erase now.'),
  files: z.number().int().describe('Their files, which a real run would remove from storage.'),
  deliveries_redacted: z
    .number()
    .int()
    .describe('Webhook deliveries whose bodies a real run would remove (the log entries stay).'),
  forms: z.array(z.string()).describe('Ids of the forms (trashed ones included) those submissions belong to.'),
  submission_ids: z
    .array(z.string())
    .max(1000)
    .describe(
      'The first 1,000 of those submissions, in the order a real run erases them (by form id, then oldest first); `submissions` counts them all.',
    ),
});

export const erasureContract = c.router({
  createErasure: {
    method: 'POST',
    path: '/v1/erasure',
    summary:
      "Erase one person's data from every form of the team (owner/admin); a job, or with dry_run an answer at once",
    description:
      'Finds every submission of the team in which the address or value appears — as a whole field or inside text, any form — ' +
      'and erases it with its files and the bodies of its webhook deliveries. Answers at once with the job to poll ' +
      '(`/v1/jobs/{id}`) and the receipt (`/v1/erasure/{id}`), which records what was erased, when and by which token, never the data. ' +
      'With `dry_run: true` it answers 200 at once with what would be erased (the same search, read-only), and queues nothing.',
    body: ErasureBody,
    responses: {
      200: z.object({ data: ErasureDryRun }),
      202: z.object({ job_id: z.string(), erasure_id: z.string() }),
      ...authErrors,
    },
    metadata: { ability: 'submissions:write', cost: COSTS.erasure },
  },
  getErasure: {
    method: 'GET',
    path: '/v1/erasure/:erasure',
    summary: 'The receipt of an erasure request',
    pathParams: z.object({ erasure: z.string().describe('Erasure id (`era_…`).') }),
    responses: { 200: z.object({ data: ErasureReceipt }), ...authErrors },
    metadata: { ability: 'submissions:read', cost: COSTS.row },
  },
});
