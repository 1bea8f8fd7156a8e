import type { z } from 'zod';
import { WEBHOOK_EVENT_BODIES } from '../../contract/events.ts';
import type { Json } from './schema-repairs.ts';

/** The headers every attempt carries (server/infra/outbound/signing.ts signs them; docs/webhooks.md). */
const SIGNATURE_HEADERS: [string, string, Json][] = [
  [
    'webhook-id',
    'Standard Webhooks: the delivery id (`whd_…`), the same on each attempt of a delivery; dedupe on it.',
    { type: 'string' },
  ],
  [
    'webhook-timestamp',
    'Standard Webhooks: unix seconds when the attempt was signed; refuse ones more than 5 minutes off.',
    { type: 'string', pattern: '^[0-9]+$' },
  ],
  [
    'webhook-signature',
    'Standard Webhooks: `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")>`, the key being the base64-decoded ' +
      'part of the secret after `whsec_`. During a secret rotation, one signature per secret, separated by a space.',
    { type: 'string' },
  ],
  ['X-Service-Timestamp', 'Unix seconds when the attempt was signed.', { type: 'string', pattern: '^[0-9]+$' }],
  [
    'X-Service-Signature',
    '`v1=<hex HMAC-SHA256(key, "<timestamp>.<body>")>`; during a secret rotation, one per secret, separated by a space.',
    { type: 'string' },
  ],
];

const pascal = (event: string) =>
  event
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

/** The component name a webhook body gets when its schema is no named export. */
export const eventComponentName = (event: string) => `${pascal(event)}Event`;

/**
 * The document's `webhooks` (OpenAPI 3.1): what Intake posts to a webhook of provider `webhook` (Zapier,
 * Make) for each event of contract/events.ts, so an event added there is published with no edit here.
 * `bodySchema` turns the event's zod schema into the document's schema (named components and all).
 */
export function webhooksSection(bodySchema: (event: string, type: z.ZodTypeAny) => Json): Json {
  const entries = Object.entries(WEBHOOK_EVENT_BODIES as Record<string, z.ZodTypeAny>).map(([event, type]) => {
    const post = {
      summary: `The \`${event}\` event`,
      description: [
        type.description ?? `The \`${event}\` event.`,
        "Posted as JSON to the webhook's URL (provider `webhook`, `zapier`, `make`; chat providers get a message rendered from it), " +
          "signed with the webhook's secret: verify the headers before trusting the body (the SDK's `verifyWebhook`).",
      ].join('\n\n'),
      operationId: `${pascal(event).charAt(0).toLowerCase()}${pascal(event).slice(1)}Webhook`,
      tags: ['Webhooks'],
      security: [],
      parameters: SIGNATURE_HEADERS.map(([name, description, schema]) => ({
        name,
        in: 'header',
        required: true,
        description,
        schema,
      })),
      requestBody: { required: true, content: { 'application/json': { schema: bodySchema(event, type) } } },
      responses: {
        '200': {
          description: 'Any 2xx: delivered (`succeeded`). Anything else, or no answer, is retried on the schedule.',
        },
        '410': { description: 'Gone: the delivery is `dead` at once and the webhook is deactivated.' },
      },
    };
    return [event, { post }] as const;
  });
  return Object.fromEntries(entries);
}
