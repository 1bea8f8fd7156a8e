import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { authErrors, ErrorBody, text, Timestamp } from './common.ts';
import { COSTS } from './costs.ts';

const c = initContract();

/** The score buckets, lower bound included, upper excluded; a score of exactly 1.0 counts in the last. */
export const SCORE_BUCKETS = ['0.0-0.3', '0.3-0.6', '0.6-0.85', '0.85-1.0'] as const;

const count = z.number().int().min(0);

export const Insights = z
  .object({
    generated_at: Timestamp.describe('Time of the last generation.'),
    period_start: Timestamp.describe('Monday 00:00 UTC that starts the week summarised (included).'),
    period_end: Timestamp.describe(
      'The following Monday 00:00 UTC (excluded): the week is [period_start, period_end).',
    ),
    submissions_total: count.describe('Submissions received in the week, spam included.'),
    delta_vs_prior_week: z
      .number()
      .describe(
        'Relative change of `submissions_total` against the week before, as a fraction (0.18 is a rise of 18 %). When the week before had none: 1 if this week has any, else 0.',
      ),
    themes: z
      .array(z.object({ label: z.string(), count }))
      .describe('What clean submissions wrote about, most frequent first; `count` is submissions.'),
    categories: z
      .array(z.object({ name: z.string(), count }))
      .describe('Clean submissions by category, most frequent first.'),
    score_distribution: z
      .object({ '0.0-0.3': count, '0.3-0.6': count, '0.6-0.85': count, '0.85-1.0': count })
      .strict()
      .describe(
        'Submissions of the week by spam score; each bucket includes its lower bound and excludes its upper one (1.0 falls in `0.85-1.0`). Unscored submissions are not counted.',
      ),
    summary_md: z.string().describe('Markdown summary of the week.'),
    spam_reasons: z
      .array(z.object({ reason: z.string(), count }))
      .describe(
        'Spam of the week by reason (`honeypot_filled`, `rate_limited`, `rule:<kind>`, `ai_moderation`), most frequent first.',
      ),
  })
  .describe("A week of a team's (or one form's) submissions, summarised.");

export const InsightsQuery = z.object({
  form: text(z.string().max(64))
    .optional()
    .describe("A form id (`frm_…`): that form's insights instead of the whole team's."),
});

export const AlreadyRunningBody = z.object({
  error: z.literal('already_running'),
  message: z.string(),
  retry_after: z.number().int().min(1).describe('Seconds until the lock ends.'),
});

export const insightsContract = c.router({
  getAiInsights: {
    method: 'GET',
    path: '/v1/ai-insights',
    summary:
      'The latest weekly AI insights of the team (or of one form): `data` is null until they are first generated',
    query: InsightsQuery,
    responses: { 200: z.object({ data: Insights.nullable() }), ...authErrors, 423: ErrorBody },
    metadata: { ability: 'insights:read', cost: COSTS.row },
  },
  regenerateAiInsights: {
    method: 'POST',
    path: '/v1/ai-insights/regenerate',
    summary: "Regenerate the team's insights and send the weekly digest, in the background",
    description:
      'Answers at once. Completion shows as a new `generated_at` on `GET /v1/ai-insights` and as the `ai-insights.regenerated` ' +
      'webhook event. One call per team per 5 minutes: another within them answers 409 `already_running` with `retry_after`.',
    body: c.noBody(),
    responses: {
      202: z.object({ ok: z.literal(true), queued_at: Timestamp }),
      ...authErrors,
      409: AlreadyRunningBody,
      423: ErrorBody,
    },
    metadata: { ability: 'insights:write', cost: COSTS.regeneration },
  },
});
