import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  authErrors,
  ErrorBody,
  HttpUrl,
  Instant,
  isHttpUrl,
  OkBody,
  rateLimitErrors,
  text,
  Timestamp,
} from './common.ts';
import { CONDITION_FIELDS_DESCRIPTION, CONDITION_OPS, CONDITION_SEMANTICS, conditionSchema } from './conditions.ts';
import { COSTS } from './costs.ts';

const c = initContract();

export const PROVIDERS = ['slack', 'discord', 'teams', 'zapier', 'make', 'webhook'] as const;
export const Provider = z
  .enum(PROVIDERS)
  .describe('How the body is formatted: a chat message (slack, discord, teams) or the event JSON.');

export const EVENTS = [
  'submission.created',
  'submission.spam',
  'submission.updated',
  'ai-insights.regenerated',
  'form.closed',
] as const;
export const WebhookEvent = z
  .enum(EVENTS)
  .describe(
    '`submission.created`: a clean submission, once processed. `submission.spam`: a submission stored as spam (at the door or by ' +
      "moderation; not one a person marked spam). `submission.updated`: a person changed a submission's stage, tags or assignee. `ai-insights.regenerated`: the team's weekly insights were (re)computed. " +
      '`form.closed`: the form reached its `max_submissions` and takes no more posts.',
  );
/** What a delivery carries: an event a webhook subscribes to, or `webhook.test` (the test call). */
export const DELIVERY_EVENTS = [...EVENTS, 'webhook.test'] as const;

/** A filter's ops: the whole condition grammar (contract/conditions.ts), as per-form rules have it. */
export const FILTER_OPS = CONDITION_OPS;
/** A webhook takes at most this many test calls a minute (counted in Postgres, across every API process). */
export const TEST_CALLS_PER_MINUTE = 6;

/** A paced webhook is sent at most this many deliveries a second (`max_per_second`), and at least this few. */
export const PACE_LIMITS = { min: 0.5, max: 100 } as const;
/** The pace of a chat provider's webhook without `max_per_second`: the provider's documented limit. */
export const PROVIDER_PACE: Partial<Record<(typeof PROVIDERS)[number], number>> = { slack: 1, discord: 0.5, teams: 4 };

const MaxPerSecond = z
  .number()
  .min(PACE_LIMITS.min)
  .max(PACE_LIMITS.max)
  .describe(
    `At most this many deliveries a second to this webhook, across every worker (${PACE_LIMITS.min}–${PACE_LIMITS.max}). ` +
      "Unset (null): slack 1, discord 0.5, teams 4 (their documented limits), other providers unpaced. A receiver's 429 " +
      'with `Retry-After` pauses the whole webhook until then, without spending an attempt.',
  );

/** A webhook's filter holds at most this many conditions. */
export const FILTER_CONDITIONS = 10;

/** The condition grammar of rules; `category` and `status` keep naming the submission's own, as they always did. */
export const WebhookFilterCondition = conditionSchema(
  `A payload field name, or one of ${CONDITION_FIELDS_DESCRIPTION}; \`category\` (the same as \`@category\`) and ` +
    "`status` (`processed` or `spam`) also name the submission's own.",
).describe(`One condition of a webhook filter. ${CONDITION_SEMANTICS}`);

export const WebhookFilter = z
  .array(WebhookFilterCondition)
  .max(FILTER_CONDITIONS)
  .describe(
    `Conditions that must all hold for a submission event to be delivered (at most ${FILTER_CONDITIONS}); empty: every submission. ` +
      'The condition grammar of per-form rules: text ops compare case-insensitively (a list field: any of its items; ' +
      '`not_equals`, `not_contains`, `not_in`: none of them), `gt` / `gte` / `lt` / `lte` compare numbers, `in` / `not_in` ' +
      'take a list, `matches` an RE2 pattern, `exists` / `not_exists` no value. A submission that does not match creates ' +
      'no delivery. Not applied to `ai-insights.regenerated` nor `form.closed`.',
  );

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'dead'] as const;
export const DeliveryStatus = z
  .enum(DELIVERY_STATUSES)
  .describe(
    '`pending` before the first answer, `failed` while retrying, then `succeeded` or `dead` (no attempt left).',
  );

const Https = text(z.string().max(2048)).refine((v) => isHttpUrl(v) && /^https:/i.test(v), 'Must be an https:// URL.');

/** Each provider's `config`: unknown keys are refused. */
export const PROVIDER_CONFIG = {
  slack: z
    .object({
      channel: text(z.string().max(80))
        .refine((v) => /^[#@]?[\w.-]+$/.test(v), 'A channel name (#general, @user) or id.')
        .optional()
        .describe('Channel the message goes to (incoming webhooks bound to one channel ignore it).'),
      username: text(z.string().min(1).max(80)).optional(),
      icon_emoji: text(z.string().max(64))
        .refine((v) => /^:[\w+-]+:$/.test(v), 'An emoji code such as :inbox_tray:.')
        .optional(),
    })
    .strict(),
  discord: z.object({ username: text(z.string().min(1).max(80)).optional(), avatar_url: Https.optional() }).strict(),
  teams: z.object({}).strict(),
  zapier: z.object({}).strict(),
  make: z.object({}).strict(),
  webhook: z.object({}).strict(),
} satisfies Record<(typeof PROVIDERS)[number], z.ZodTypeAny>;

const Config = z
  .record(z.string())
  .describe(
    'Provider settings, each a string. slack: `channel`, `username`, `icon_emoji`; discord: `username`, `avatar_url`; ' +
      'teams, zapier, make, webhook: none. Unknown keys are refused.',
  );

/** How a webhook's `body_template` is read and what its deliveries are sent as. */
export const CONTENT_TYPES = ['json', 'form', 'text'] as const;
/** A body template holds at most this many characters. */
export const BODY_TEMPLATE_MAX_CHARS = 10_000;
/** A webhook has at most this many extra headers, each value at most HEADER_VALUE_MAX_CHARS characters. */
export const EXTRA_HEADERS_MAX = 10;
export const HEADER_VALUE_MAX_CHARS = 1000;
/** Header names a webhook's extra headers may not use (case-insensitive): the service sets them, or HTTP does. */
export const REFUSED_HEADERS = [
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'user-agent',
] as const;
/** …nor names starting with these (the signature headers, Standard Webhooks' reserved names, proxies'). */
export const REFUSED_HEADER_PREFIXES = ['webhook-', 'x-service-', 'proxy-'] as const;

const BodyTemplate = text(z.string().min(1).max(BODY_TEMPLATE_MAX_CHARS)).describe(
  `A Liquid template of the body of submission events (\`submission.created\`, \`submission.spam\`, \`submission.updated\`), ` +
    `at most ${BODY_TEMPLATE_MAX_CHARS.toLocaleString('en')} characters; provider \`webhook\` only. Only \`{{ … }}\` placeholders ` +
    '(no `{% … %}` tag) with the filters `default`, `lower`, `upper`, `truncate`, `json` and `join`. They read each payload ' +
    'field (`{{ email }}`, `{{ ["first name"] }}`, also `{{ fields.email }}`), `form.id`, `form.name`, `submission.id`, ' +
    '`submission.received_at`, `submission.category`, `submission.source`, `submission.event`, `submission.tags`, ' +
    '`submission.stage`, `submission.referrer`, `submission.spam_reason`. With `content_type` `json` it is a JSON object whose ' +
    "string values are templates (a string that is exactly one placeholder keeps the value's JSON type); `form`: a JSON " +
    'object of field → template, sent urlencoded; `text`: a text template. Null: the default event JSON. Test calls, ' +
    '`form.closed` and `ai-insights.regenerated` always send the default body.',
);
const ContentType = z
  .enum(CONTENT_TYPES)
  .describe(
    'How `body_template` is read and sent: `json` (application/json, the default), `form` ' +
      '(application/x-www-form-urlencoded) or `text` (text/plain; charset=utf-8). Without a template the default JSON is sent.',
  );
const ExtraHeaders = z
  .record(text(z.string().max(HEADER_VALUE_MAX_CHARS)))
  .describe(
    `Extra request headers sent with every delivery and test call (at most ${EXTRA_HEADERS_MAX}; provider \`webhook\` only), ` +
      `e.g. \`{"Authorization": "Bearer …"}\`. Names are HTTP tokens; values at most ${HEADER_VALUE_MAX_CHARS.toLocaleString('en')} ` +
      `visible ASCII characters, no line breaks. Refused names (any case): ${REFUSED_HEADERS.join(', ')}, and names starting ` +
      `with ${REFUSED_HEADER_PREFIXES.join(', ')}. Values are stored as given and shown to whoever can read the webhook.`,
  );

export const Webhook = z.object({
  id: z.string().describe('Prefix `wh_`.'),
  form_id: z.string(),
  label: z.string(),
  provider: Provider,
  url: z.string().describe('HTTPS endpoint the deliveries are posted to.'),
  active: z.boolean().describe('Inactive webhooks get no new deliveries and their pending retries stop.'),
  deactivated_reason: z
    .string()
    .nullable()
    .describe(
      'Why the service deactivated it: `gone` (the receiver answered 410) or `failing` (every attempt failed for 5 days).',
    ),
  config: Config,
  events: z.array(WebhookEvent),
  filter: WebhookFilter,
  max_per_second: MaxPerSecond.nullable(),
  body_template: BodyTemplate.nullable(),
  content_type: ContentType,
  headers: ExtraHeaders,
  secret_last4: z.string().describe('Last four characters of the signing secret.'),
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: Timestamp.nullable().describe(
    'When it was deleted: a deleted webhook gets no new deliveries, but stays readable by id (with its delivery log) while its ' +
      'retries already scheduled run out.',
  ),
});

const Events = z
  .array(WebhookEvent)
  .max(EVENTS.length)
  .describe(
    'Events delivered; default `["submission.created"]`. `[]`: only the submissions a rule sends to it (a `webhook` action).',
  );

export const CreateWebhookBody = z
  .object({
    label: text(z.string().trim().min(1).max(200)),
    url: HttpUrl.describe('HTTPS only; hosts that resolve to private or reserved addresses are refused.'),
    provider: Provider.default('webhook'),
    config: Config.default({}),
    events: Events.default(['submission.created']),
    filter: WebhookFilter.optional().describe('Default: none (every submission).'),
    max_per_second: MaxPerSecond.nullable().optional(),
    body_template: BodyTemplate.nullable().optional().describe('Default: none (the default event JSON).'),
    content_type: ContentType.optional().describe('Default: `json`.'),
    headers: ExtraHeaders.optional().describe('Default: none.'),
    active: z.boolean().default(true),
  })
  .strict();

export const UpdateWebhookBody = z
  .object({
    label: text(z.string().trim().min(1).max(200)).optional(),
    url: HttpUrl.optional().describe('HTTPS only; hosts that resolve to private or reserved addresses are refused.'),
    provider: Provider.optional(),
    config: Config.optional(),
    events: Events.optional(),
    filter: WebhookFilter.optional().describe('Replaces the filter; `[]` removes it.'),
    max_per_second: MaxPerSecond.nullable().optional().describe("Replaces the pace; null: the provider's default."),
    body_template: BodyTemplate.nullable()
      .optional()
      .describe('Replaces the template; null: the default event JSON again.'),
    content_type: ContentType.optional(),
    headers: ExtraHeaders.optional().describe('Replaces the extra headers; `{}` removes them.'),
    active: z.boolean().optional().describe('`true` reactivates a webhook the service deactivated.'),
    rotate_secret: z
      .boolean()
      .optional()
      .describe('Issue a new secret (returned once); the old one keeps signing for 24 hours.'),
  })
  .strict();

export const Delivery = z.object({
  id: z.string().describe('Prefix `whd_`.'),
  webhook_id: z.string(),
  event: z
    .enum(DELIVERY_EVENTS)
    .describe('The event sent; `webhook.test` for a test call (a sample `submission.created` body with `test: true`).'),
  status: DeliveryStatus,
  http_status: z
    .number()
    .int()
    .nullable()
    .describe('Status the receiver answered on the last attempt; null without an answer.'),
  attempts: z.number().int().describe('Attempts made so far (at most 7).'),
  duration_ms: z.number().int().nullable().describe('Duration of the last attempt.'),
  submission_id: z.string().nullable(),
  request_body: z
    .union([z.record(z.unknown()), z.string()])
    .nullable()
    .describe(
      'The body sent (the same bytes on every attempt and replay): the JSON, parsed; a templated `form` or `text` body as ' +
        'the text sent. Null once its submission was deleted, or when its body template could not be rendered.',
    ),
  content_type: z
    .string()
    .describe(
      "The media type the body was sent as: application/json, or a templated body's application/x-www-form-urlencoded " +
        'or text/plain; charset=utf-8.',
    ),
  response_body: z.string().nullable().describe('First 4 KB of the last answer.'),
  error: z
    .string()
    .nullable()
    .describe(
      'Why the last attempt failed without a usable answer: timeout, dns_error, tls_error, connection_refused, connection_reset, ' +
        "blocked_address, network_error; or webhook_inactive when its retries were stopped (a deleted webhook's continue); " +
        'or `template_error: <why>` when the body template could not be rendered (nothing was sent; the delivery is dead).',
    ),
  delivered_at: Timestamp.nullable(),
  next_attempt_at: Timestamp.nullable().describe('When the next attempt is due; null when none is.'),
  replay_of: z.string().nullable().describe('The delivery this one replays.'),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const DeliveryListQuery = z.object({
  per_page: z.coerce.number().int().min(1).max(100).default(25),
  cursor: text(z.string().max(200)).optional().describe('`meta.next_cursor` of the previous page.'),
  status: DeliveryStatus.optional(),
  submission_id: text(z.string().max(64)).optional(),
});

export const DeliveryPage = z.object({
  data: z.array(Delivery),
  meta: z.object({
    per_page: z.number().int(),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for older deliveries; null on the last page.'),
  }),
});

export const ReplayWebhookBody = z
  .object({
    status: DeliveryStatus.optional().describe('Only deliveries in this state (e.g. `failed` or `dead`).'),
    since: Instant.optional().describe('Only deliveries created at or after this time.'),
    until: Instant.optional().describe('Only deliveries created before this time.'),
  })
  .strict();

export const PreviewWebhookBody = z
  .object({
    submission_id: text(z.string().max(64))
      .optional()
      .describe(
        'A submission of the form: the body its `submission.created` (or, if it is spam, `submission.spam`) would send.',
      ),
    payload: z
      .record(z.unknown())
      .optional()
      .describe('Fields of a made-up submission (nothing is stored), as a website would post them.'),
    body_template: BodyTemplate.nullable()
      .optional()
      .describe("Preview this template instead of the webhook's (null: the default body)."),
    content_type: ContentType.optional().describe("Preview with this content type instead of the webhook's."),
    headers: ExtraHeaders.optional().describe("Preview these extra headers instead of the webhook's."),
  })
  .strict()
  .superRefine((b, ctx) => {
    if ((b.submission_id === undefined) === (b.payload === undefined))
      ctx.addIssue({
        code: 'custom',
        message: 'Send exactly one of `submission_id` and `payload`.',
        path: [b.payload ? 'payload' : 'submission_id'],
      });
  })
  .describe('Exactly one of `submission_id` and `payload`; the other fields preview changes not saved yet.');

export const WebhookPreview = z.object({
  content_type: z.string().describe('The media type of the body.'),
  headers: z
    .record(z.string())
    .describe(
      'The headers of the request besides those made when it is sent (the signature headers, User-Agent): ' +
        '`content-type` and the extra headers.',
    ),
  body: z.string().describe('The body, exactly as it would be sent.'),
});

const FormParams = z.object({ form: z.string().describe('Form id (`frm_…`).') });
const WebhookParams = FormParams.extend({ webhook: z.string().describe('Webhook id (`wh_…`).') });
const DeliveryParams = WebhookParams.extend({ delivery: z.string().describe('Delivery id (`whd_…`).') });
const WebhookData = z.object({ data: Webhook });

export const webhooksContract = c.router({
  listWebhooks: {
    method: 'GET',
    path: '/v1/forms/:form/webhooks',
    summary: "List a form's webhooks",
    pathParams: FormParams,
    responses: { 200: z.object({ data: z.array(Webhook) }), ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'webhooks:read', cost: COSTS.meteredRecords },
  },
  createWebhook: {
    method: 'POST',
    path: '/v1/forms/:form/webhooks',
    summary: 'Create a webhook; its signing secret is returned this once',
    pathParams: FormParams,
    body: CreateWebhookBody,
    responses: {
      201: WebhookData.extend({ secret: z.string().describe('Signing secret, `whsec_…`: shown only now.') }),
      ...authErrors,
      ...rateLimitErrors,
    },
    metadata: { ability: 'webhooks:write', cost: COSTS.meteredRow },
  },
  getWebhook: {
    method: 'GET',
    path: '/v1/forms/:form/webhooks/:webhook',
    summary: 'Show a webhook',
    pathParams: WebhookParams,
    responses: { 200: WebhookData, ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'webhooks:read', cost: COSTS.meteredRow },
  },
  updateWebhook: {
    method: 'PUT',
    path: '/v1/forms/:form/webhooks/:webhook',
    summary: 'Change a webhook, reactivate it, or rotate its secret',
    pathParams: WebhookParams,
    body: UpdateWebhookBody,
    responses: {
      200: WebhookData.extend({
        secret: z.string().optional().describe('The new signing secret, only with `rotate_secret: true`.'),
      }),
      ...authErrors,
      ...rateLimitErrors,
    },
    metadata: { ability: 'webhooks:write', cost: COSTS.meteredRow },
  },
  deleteWebhook: {
    method: 'DELETE',
    path: '/v1/forms/:form/webhooks/:webhook',
    summary: 'Delete a webhook: no new deliveries; retries already scheduled still run',
    description:
      'A deleted webhook stays readable by id (`GET` answers it with `deleted_at`) and its delivery log stays listed, so the ' +
      'retries of deliveries made before the delete can be followed; it is gone from the list and counts no more toward the limit.',
    pathParams: WebhookParams,
    body: c.noBody(),
    responses: { 200: OkBody, ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'webhooks:write', cost: COSTS.meteredRow },
  },
  testWebhook: {
    method: 'POST',
    path: '/v1/forms/:form/webhooks/:webhook/test',
    summary: 'Send a signed test event now and answer what the receiver said',
    description:
      'Sends a `submission.created` body marked `"test": true` — the last submission delivered to this webhook, or a sample built ' +
      "from the form's fields — through the same sender as deliveries (HTTPS, address guard, 15 s timeout, no redirects), waits " +
      `for the answer and records it as a delivery with event \`webhook.test\` (not retried). At most ${TEST_CALLS_PER_MINUTE} test calls a minute per webhook.`,
    pathParams: WebhookParams,
    body: c.noBody(),
    responses: { 200: z.object({ data: Delivery }), ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'webhooks:write', cost: COSTS.meteredRow },
  },
  previewWebhook: {
    method: 'POST',
    path: '/v1/forms/:form/webhooks/:webhook/preview',
    summary: 'Render the request a submission event would send to a webhook, without sending or storing anything',
    description:
      'Renders the `submission.created` request of one submission of the form (`submission_id`) or of a made-up one ' +
      "(`payload`) with the webhook's body template, content type and extra headers — or with the `body_template`, " +
      '`content_type` and `headers` given here, to try changes before saving them (checked as a save would: a template that ' +
      'does not parse or a refused header is a 400 naming the field). Nothing is sent, stored or changed.',
    pathParams: WebhookParams,
    body: PreviewWebhookBody,
    responses: { 200: WebhookPreview, ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'webhooks:write', cost: COSTS.submission },
  },
  listDeliveries: {
    method: 'GET',
    path: '/v1/forms/:form/webhooks/:webhook/deliveries',
    summary: "A webhook's delivery log, newest first",
    pathParams: WebhookParams,
    query: DeliveryListQuery,
    responses: { 200: DeliveryPage, ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'webhooks:read', cost: COSTS.deliveries },
  },
  replayDelivery: {
    method: 'POST',
    path: '/v1/forms/:form/webhooks/:webhook/deliveries/:delivery/replay',
    summary: 'Send a delivery again: a new delivery with the same body, signed now',
    pathParams: DeliveryParams,
    body: c.noBody(),
    responses: {
      200: z.object({ ok: z.literal(true), delivery_id: z.string() }),
      ...authErrors,
      ...rateLimitErrors,
      409: ErrorBody,
    },
    metadata: { ability: 'webhooks:write', cost: COSTS.meteredRow },
  },
  replayDeliveryById: {
    method: 'POST',
    path: '/v1/deliveries/:delivery_id/replay',
    summary: 'Send a delivery again, by its id alone',
    pathParams: z.object({ delivery_id: z.string().describe('Delivery id (`whd_…`).') }),
    body: c.noBody(),
    responses: {
      202: z.object({ delivery_id: z.string(), status: z.literal('queued') }),
      ...authErrors,
      ...rateLimitErrors,
      409: ErrorBody,
    },
    metadata: { ability: 'webhooks:write', cost: COSTS.meteredRow },
  },
  replayWebhook: {
    method: 'POST',
    path: '/v1/webhooks/:webhook_id/replay',
    summary: "Replay a webhook's deliveries in the background (at most 10,000 per job)",
    description:
      'Takes the latest delivery of each submission (or event) the webhook has, keeps those matching the filters, and queues a ' +
      'replay of each. Progress: `GET /v1/jobs/{job_id}`.',
    pathParams: z.object({ webhook_id: z.string().describe('Webhook id (`wh_…`).') }),
    body: ReplayWebhookBody,
    responses: {
      202: z.object({ job_id: z.string(), status: z.literal('queued') }),
      ...authErrors,
      ...rateLimitErrors,
      409: ErrorBody,
    },
    metadata: { ability: 'webhooks:write', cost: COSTS.replayWebhook },
  },
});
