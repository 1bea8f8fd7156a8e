import { z } from 'zod';
import { HttpUrl, text, Timestamp } from './common.ts';

/** Who may submit, when and how often: unique fields, an entry limit, open and close dates. Part of `settings`. */

export const MAX_UNIQUE_RULES = 5;
export const DEFAULT_DUPLICATE_MESSAGE = 'This has already been submitted.';
export const DEFAULT_CLOSED_MESSAGE = 'This form is not taking submissions.';

export const UniqueRule = z
  .object({
    fields: z
      .array(text(z.string().min(1).max(64)))
      .min(1)
      .max(3)
      .describe('The fields whose values, together, may be submitted once (1–3 names).'),
    normalize: z
      .enum(['text', 'exact', 'email'])
      .default('text')
      .describe(
        'How values are compared: `text` (default) trims, collapses inner whitespace and ignores case; `email` trims and ignores case; `exact` compares as sent.',
      ),
    window_days: z
      .number()
      .int()
      .min(1)
      .max(3650)
      .nullable()
      .default(null)
      .describe('Days a submission holds its values; null (default) = for ever.'),
    message: text(z.string().min(1).max(500))
      .nullable()
      .default(null)
      .describe('What the submitter is told (409); null = a default message.'),
  })
  .strict()
  .describe(
    "A post whose values of all the rule's fields equal those of a clean submission kept within the window is refused (409 `duplicate_submission`). " +
      'A post with all of them empty is not checked. Spam and deleted submissions hold no values.',
  );
export type UniqueRule = z.infer<typeof UniqueRule>;

/** The admission settings as the API shows them (each also in `settings`). */
export const AdmissionSettings = z.object({
  unique: z
    .array(UniqueRule)
    .max(MAX_UNIQUE_RULES)
    .describe(`Up to ${MAX_UNIQUE_RULES} duplicate rules; default none.`),
  max_submissions: z
    .number()
    .int()
    .min(1)
    .nullable()
    .describe(
      'Clean submissions the form keeps before it closes (`limit_reached`); spam and deleted ones do not count. null = no limit.',
    ),
  opens_at: Timestamp.nullable().describe('Before this instant the form is closed (`not_yet_open`); null = open now.'),
  closes_at: Timestamp.nullable().describe(
    'From this instant the form is closed (`closed`); after `opens_at`. null = never.',
  ),
  closed_message: text(z.string().min(1).max(1000))
    .nullable()
    .describe(
      'What a closed form tells people (the page a browser is shown, the `message` of the 403); null = a default.',
    ),
  closed_redirect_url: HttpUrl.nullable().describe(
    'Where a browser posting to a closed form is sent (303) instead of the closed page.',
  ),
});

export const CLOSED_REASONS = ['not_yet_open', 'closed', 'limit_reached'] as const;
export type ClosedReason = (typeof CLOSED_REASONS)[number];

export const FormClosedBody = z
  .object({
    error: z.literal('form_closed'),
    message: z.string().describe("The form's `closed_message`, or a default."),
    reason: z
      .enum(CLOSED_REASONS)
      .describe(
        '`not_yet_open`: before `opens_at`; `closed`: from `closes_at`; `limit_reached`: `max_submissions` kept.',
      ),
    opens_at: Timestamp.nullable(),
    closes_at: Timestamp.nullable(),
  })
  .describe('The form is not taking submissions; nothing was stored.');

export const DuplicateSubmissionBody = z
  .object({
    error: z.literal('duplicate_submission'),
    message: z.string().describe("The rule's `message`, or a default."),
    fields: z.array(z.string()).describe("The rule's fields."),
  })
  .describe('A clean submission kept within the window has the same values of these fields; nothing was stored.');

export const FormStatus = z
  .object({
    open: z.boolean(),
    reason: z.enum(CLOSED_REASONS).nullable().describe('Why it is closed; null when open.'),
    opens_at: Timestamp.nullable(),
    closes_at: Timestamp.nullable(),
    remaining: z
      .number()
      .int()
      .nullable()
      .describe('Submissions it still takes before `max_submissions`; null = no limit.'),
  })
  .describe('Whether the form takes submissions now, so a site can hide a closed form.');
export type FormStatus = z.infer<typeof FormStatus>;
