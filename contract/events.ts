import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { authErrors, rateLimitErrors, text } from './common.ts';
import { COSTS, STREAM_BATCH, STREAM_LIMITS } from './costs.ts';
import { Actor, TriageChanges, TriageFields } from './triage.ts';

export { STREAM_BATCH, STREAM_LIMITS };

const c = initContract();

/** A comment line is sent this often so proxies and clients see the stream is alive. */
export const STREAM_HEARTBEAT_SECONDS = 15;

const JsonValue: z.ZodType<unknown> = z.unknown().describe('Any JSON value.');

/**
 * What a webhook of provider `webhook` (and Zapier, Make) is sent for `submission.created`, byte for byte:
 * the stream carries the same body, so a receiver built against one works with the other.
 */
export const SubmissionCreatedEvent = z
  .object({
    type: z.literal('submission.created'),
    submission_id: z.string().describe('Prefix `subm_`.'),
    form_id: z.string(),
    form_name: z.string(),
    received_at: z.string().describe('ISO 8601, UTC, milliseconds.'),
    payload: z.record(JsonValue).describe('The submitted fields.'),
    files: z.array(
      z.object({
        id: z.string(),
        filename: z.string(),
        content_type: z.string(),
        size: z.number().int().describe('Bytes.'),
        url: z.string().describe('A link valid for 7 days; each visit redirects to a fresh 60-second storage URL.'),
      }),
    ),
    meta: z.object({
      category: z.string().nullable(),
      score: z
        .number()
        .nullable()
        .describe('Spam likelihood from moderation, 0 to 1; null for spam caught before moderation.'),
      referrer: z.string().nullable(),
      user_agent: z.string().nullable(),
      source: z
        .enum(['form', 'api'])
        .describe(
          '`form`: posted to the public endpoint; `api`: a server-side submit (`POST /v1/forms/{form}/submissions`).',
        ),
    }),
    ...TriageFields.shape,
  })
  .describe('The `submission.created` webhook body.');

/** A webhook's test call (`POST …/webhooks/{webhook}/test`) sends a `submission.created` body marked so. */
export const TestSubmissionCreatedEvent = SubmissionCreatedEvent.extend({
  test: z
    .literal(true)
    .describe('Only on a test event: the body is a sample (or a past submission sent again), not a new submission.'),
}).describe('The body of a test event: a `submission.created` body with `test: true` after `meta`.');

export const SubmissionSpamEvent = SubmissionCreatedEvent.extend({
  type: z.literal('submission.spam'),
  spam_reason: z
    .string()
    .describe(
      'Why it was filed as spam: at the door `honeypot_filled`, `rate_limited`, `rule:blocked_email`, `rule:keyword`, `rule:regex`, ' +
        '`captcha_unverified`; by moderation `ai_moderation`.',
    ),
}).describe(
  'The `submission.spam` webhook body: a submission stored as spam (at the door or by moderation), `spam_reason` after `meta`.',
);

export const SubmissionUpdatedEvent = SubmissionCreatedEvent.extend({
  type: z.literal('submission.updated'),
  changes: TriageChanges,
  actor: Actor,
}).describe(
  "The `submission.updated` webhook body: a person changed a submission's stage, tags or assignee; the submission as it is now, " +
    '`changes` and `actor` after the triage fields. Notes are never sent.',
);

export const InsightsRegeneratedEvent = z
  .object({
    type: z.literal('ai-insights.regenerated'),
    team_id: z.string(),
    generated_at: z.string().describe('ISO 8601, UTC.'),
    period_start: z.string(),
    period_end: z.string(),
    submissions_total: z.number().int(),
    delta_vs_prior_week: z.number().describe('Relative change as a fraction: 0.18 is a rise of 18 %.'),
    summary_md: z.string(),
    themes: z.array(z.object({ label: z.string(), count: z.number().int() })),
    categories: z.array(z.object({ name: z.string(), count: z.number().int() })),
  })
  .describe('The `ai-insights.regenerated` webhook body.');

export const FormClosedEvent = z
  .object({
    type: z.literal('form.closed'),
    form_id: z.string(),
    form_name: z.string(),
    reason: z
      .literal('limit_reached')
      .describe('Why it closed: `limit_reached`, it keeps `max_submissions` clean submissions.'),
    closed_at: z.string().describe('When the post that took the last place was accepted: ISO 8601, UTC, milliseconds.'),
    max_submissions: z.number().int().describe("The form's limit when the event was sent."),
    submissions: z
      .number()
      .int()
      .describe('The clean submissions the form keeps (spam and deleted ones do not count).'),
  })
  .describe(
    'The `form.closed` webhook body: the form took its last place and refuses posts (403 `form_closed`) until the limit is ' +
      'raised or a place freed (a submission deleted or marked spam).',
  );

/**
 * Every outgoing event, with the body a provider `webhook` (Zapier, Make) receives: the four a webhook
 * subscribes to, and `webhook.test`, what its test call sends. Chat providers (slack, discord, teams) get a
 * message rendered from the same event instead.
 */
export const WEBHOOK_EVENT_BODIES = {
  'submission.created': SubmissionCreatedEvent,
  'submission.spam': SubmissionSpamEvent,
  'submission.updated': SubmissionUpdatedEvent,
  'ai-insights.regenerated': InsightsRegeneratedEvent,
  'form.closed': FormClosedEvent,
  'webhook.test': TestSubmissionCreatedEvent,
} as const;

export const STREAM_EVENTS = ['submission', 'spam'] as const;

export const StreamedSubmission = z.object({
  id: z
    .string()
    .describe('The event id: send it back (`Last-Event-ID` or `last_event_id`) to resume right after this event.'),
  event: z
    .enum(STREAM_EVENTS)
    .describe(
      '`submission`: a clean submission, once processed. `spam`: one filed as spam (only with `include=spam`).',
    ),
  submission: SubmissionCreatedEvent,
});

export const SubmissionEventBatch = z.object({
  data: z
    .array(StreamedSubmission)
    .describe(`The events after \`last_event_id\`, oldest first; at most ${STREAM_BATCH}.`),
  meta: z.object({
    last_event_id: z
      .string()
      .describe('Where this answer ends: pass it as `last_event_id` next time (also when `data` is empty).'),
    has_more: z.boolean().describe('More events are waiting: ask again at once.'),
  }),
});

const EventId = text(z.string().max(16_384));

export const SubmissionStreamQuery = z.object({
  include: z
    .enum(['spam'])
    .optional()
    .describe(
      '`spam`: also the submissions filed as spam (at the door or by moderation), as `spam` events. Resume a stream with the same value.',
    ),
  last_event_id: EventId.optional().describe(
    'Resume after this event id, for clients that cannot send the `Last-Event-ID` header (the header wins when both are sent). ' +
      'Without either: from now on.',
  ),
});

const FormParams = z.object({ form: z.string().describe('Form id (`frm_…`).') });

const STREAM_FORMAT =
  'Server-sent events (`text/event-stream`), one per new submission: `id:` the event id, `event: submission` ' +
  '(or `spam`), `data:` the `submission.created` webhook body as one line of JSON. A comment line every ' +
  `${STREAM_HEARTBEAT_SECONDS} seconds keeps it open. When the token is revoked or the form deleted the stream ends with ` +
  '`event: error` (data: an error body with its `status`); on server shutdown it just ends (reconnect with `Last-Event-ID`).';

export const eventsContract = c.router({
  streamSubmissions: {
    method: 'GET',
    path: '/v1/forms/:form/submissions/stream',
    summary: "Stream a form's new submissions as they are processed (server-sent events)",
    description:
      'With `Accept: text/event-stream`: an open stream of server-sent events, each clean submission once processed ' +
      '(what webhooks are sent), in the order they were processed. Reconnect with `Last-Event-ID` (or `last_event_id`): the ' +
      'events after it are sent first, then new ones, none lost and none twice. Without that Accept header: one JSON ' +
      `answer with the events after \`last_event_id\` (a poll). At most ${STREAM_LIMITS.token} open streams per token and ` +
      `${STREAM_LIMITS.team} per team (429 beyond). See docs/listen.md.`,
    pathParams: FormParams,
    headers: z.object({
      'last-event-id': EventId.optional().describe(
        'The id of the last event received: the stream resumes right after it.',
      ),
    }),
    query: SubmissionStreamQuery,
    responses: { 200: SubmissionEventBatch, ...authErrors, ...rateLimitErrors },
    metadata: {
      ability: 'submissions:read',
      cost: COSTS.stream,
      alsoAnswers: { 'text/event-stream': z.string().describe(STREAM_FORMAT) },
    },
  },
});
