import { z } from 'zod';
import { text, Timestamp } from './common.ts';

/** The per-form features past the basics: a field schema, a CAPTCHA, an autoresponder. Part of `settings`. */

export const FIELD_TYPES = [
  'text',
  'email',
  'url',
  'number',
  'integer',
  'tel',
  'date',
  'datetime',
  'boolean',
  'select',
  'multiselect',
  'file',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const SchemaField = z
  .object({
    name: text(z.string().min(1).max(64)).describe(
      'The posted field name (not starting with `_`, which marks control fields).',
    ),
    label: text(z.string().min(1).max(200))
      .optional()
      .describe('How people see the field: the CSV header and the error messages (default: the name).'),
    type: z.enum(FIELD_TYPES),
    required: z
      .boolean()
      .optional()
      .describe('Must be present and not empty (a `boolean` must be checked); default false.'),
    min: z
      .number()
      .finite()
      .optional()
      .describe('Least length (text, email, url, tel), value (number, integer) or choices (multiselect).'),
    max: z
      .number()
      .finite()
      .optional()
      .describe('Greatest length (text, email, url, tel), value (number, integer) or choices (multiselect).'),
    pattern: text(z.string().min(1).max(500))
      .optional()
      .describe(
        'RE2 regular expression the whole value must match, as the HTML `pattern` attribute (text, email, url, tel).',
      ),
    options: z
      .array(text(z.string().min(1).max(200)))
      .min(1)
      .max(200)
      .optional()
      .describe('The allowed values (select, multiselect).'),
    max_files: z.number().int().min(1).max(10).optional().describe('Most files in the field (file); default 1.'),
    accept: z
      .array(
        text(
          z
            .string()
            .regex(
              /^[a-z0-9!#$&^_.+-]+\/([a-z0-9!#$&^_.+-]+|\*)$/i,
              'A MIME type such as `application/pdf` or `image/*`.',
            ),
        ),
      )
      .min(1)
      .max(50)
      .optional()
      .describe('Allowed MIME types, `image/*` style wildcards allowed (file); default any.'),
  })
  .strict();
export type SchemaField = z.infer<typeof SchemaField>;

/** A schema field as stored and shown: `required` filled in. */
export const SchemaFieldView = SchemaField.extend({ required: z.boolean() });
export type SchemaFieldView = z.infer<typeof SchemaFieldView>;

export const UNKNOWN_FIELDS = ['keep', 'drop', 'reject'] as const;

const SCHEMA_DESCRIPTION = "The form's field schema, in column order; empty = no schema (any field is kept as posted).";
export const SchemaFields = z.array(SchemaField).max(200).describe(SCHEMA_DESCRIPTION);
export const SchemaFieldViews = z.array(SchemaFieldView).describe(SCHEMA_DESCRIPTION);

export const UnknownFields = z
  .enum(UNKNOWN_FIELDS)
  .describe('Fields the schema does not name: `keep` them (default), `drop` them, or `reject` the post (422).');

export const CAPTCHA_PROVIDERS = ['turnstile', 'hcaptcha', 'recaptcha_v2', 'recaptcha_v3'] as const;
export type CaptchaProvider = (typeof CAPTCHA_PROVIDERS)[number];

export const Captcha = z
  .object({
    provider: z.enum(CAPTCHA_PROVIDERS),
    secret_last4: z
      .string()
      .describe('The last 4 characters of the provider secret (the secret itself is never returned).'),
    min_score: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .describe('reCAPTCHA v3: the least score accepted (default 0.5); null for other providers.'),
  })
  .nullable()
  .describe('The CAPTCHA posts must pass (verified server-side with the provider); null = none.');

export const CaptchaInput = z
  .object({
    provider: z.enum(CAPTCHA_PROVIDERS),
    secret_key: text(z.string().min(1).max(500))
      .optional()
      .describe("The provider's secret key; may be left out to keep the stored one when the provider is unchanged."),
    min_score: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe('reCAPTCHA v3 only: the least score accepted; default 0.5.'),
  })
  .strict()
  .nullable();

export const Autoresponder = z.object({
  enabled: z.boolean(),
  subject: z.string().describe('With `{{field}}` placeholders.'),
  body_markdown: z.string().describe('Markdown with `{{field}}` placeholders (values are inserted as plain text).'),
  from_name: z.string().nullable().describe("The sender's display name (the address is the service's)."),
  reply_to: z.string().nullable().describe("Where the submitter's replies go."),
});

export const AutoresponderInput = z
  .object({
    enabled: z.boolean(),
    subject: text(z.string().trim().min(1).max(200)),
    body_markdown: text(z.string().min(1).max(10_000)),
    from_name: text(z.string().trim().min(1).max(100)).nullable(),
    reply_to: z.string().email().max(320).nullable(),
  })
  .partial()
  .strict();

/** What happened to a submission's autoresponse: sent, or skipped and why; null when none was due. */
export const Autoresponse = z
  .object({
    sent_at: Timestamp.optional().describe('When it was sent (with `to`).'),
    to: z.string().optional().describe('The address it was sent to.'),
    skipped: z
      .enum(['spam', 'no_address', 'invalid_address', 'rate_limited', 'plan'])
      .optional()
      .describe(
        'Why none was sent: spam, no submitter address, an address that is not one, one already sent to it this hour, or a plan without the autoresponder.',
      ),
  })
  .nullable()
  .describe(
    "The autoresponder's outcome: `{ sent_at, to }` or `{ skipped: reason }`; null when none was due (the form had it off, or the post was spam caught at the door and never processed).",
  );

/** The public endpoint's answer to a post that breaks the form's field schema. */
export const FieldErrorsBody = z.object({
  error: z.literal('validation_failed'),
  message: z.string(),
  fields: z.record(z.array(z.string())).describe('Per posted field name, what is wrong, in plain words.'),
});

export const SuggestedSchema = z.object({
  data: z.object({ fields: SchemaFieldViews, unknown_fields: UnknownFields }),
  meta: z.object({
    sampled: z.number().int().describe('How many recent inbox submissions were read (at most 1,000).'),
  }),
});

export const NotificationRecipient = z.object({
  email: z.string(),
  status: z
    .enum(['verified', 'pending', 'not_required'])
    .describe(
      '`pending` until the address confirms by its e-mailed link (no notifications until then); `not_required` when the server does not verify addresses.',
    ),
});
