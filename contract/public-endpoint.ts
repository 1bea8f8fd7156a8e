import { z } from 'zod';
import { text } from './common.ts';
import { FieldErrorsBody } from './form-features.ts';

/**
 * The public form endpoint, `POST /f/{form}`: what a website's `<form action>` posts to, with no token.
 * It is not a ts-rest route on purpose — the SDK, the CLI and the MCP tools are built from the contract's
 * routes, and none of them should post to a form as a visitor — so these schemas reach openapi.json through
 * scripts/openapi/public-endpoint.ts only; test/contract/openapi-public-endpoint.test.ts posts to a real server and checks each
 * answer against the document.
 */

/** The endpoint's limits: server/domain/ingest/limits.ts enforces exactly these (it spreads them). */
export const PUBLIC_POST_LIMITS = {
  fields: 200,
  fieldName: 64,
  fieldValueBytes: 64 * 1024,
  files: 10,
  fileBytes: 10 * 1024 * 1024,
  bodyBytes: 1024 * 1024,
  jsonDepth: 5,
  /** Values in all, whatever the body's kind: JSON nodes; urlencoded and multipart values (repeats included) and files. */
  values: 2_000,
} as const;

export const IDEMPOTENCY_KEY_MAX = 255;
export const DEFAULT_HONEYPOT_FIELD = '_gotcha';
/** Where each CAPTCHA widget puts its token (server/domain/spam/captcha.ts reads them; they are never stored). */
export const CAPTCHA_TOKEN_FIELDS = ['cf-turnstile-response', 'h-captcha-response', 'g-recaptcha-response'] as const;

const L = PUBLIC_POST_LIMITS;
const mb = (bytes: number) => `${bytes / (1024 * 1024)} MB`;

/** The limits, in words, for the operation's description. */
export const LIMITS_TEXT = [
  `at most ${L.fields} fields, names of at most ${L.fieldName} characters, values of at most ${L.fieldValueBytes / 1024} KB;`,
  `at most ${L.values} values in all, in any kind of body (a name sent more than once counts each value; JSON counts every list item and nested value);`,
  `urlencoded and JSON bodies of at most ${mb(L.bodyBytes)};`,
  `multipart: at most ${L.files} files of at most ${mb(L.fileBytes)} each (when the plan includes uploads, within its own file limit);`,
  `JSON nested at most ${L.jsonDepth} levels.`,
].join(' ');

export const PublicFormParam = z.object({
  form: z
    .string()
    .describe("The form's id (`frm_…`), the last segment of its `endpoint_url`. Any other value answers 404."),
});

export const IdempotencyKey = z
  .string()
  .max(IDEMPOTENCY_KEY_MAX)
  .describe(
    `Optional, at most ${IDEMPOTENCY_KEY_MAX} characters (stored hashed). A post repeating a key this form saw in the last 24 hours ` +
      'stores nothing and answers as the first submission did (its `id`); of two concurrent posts with one key, the first to commit wins.',
  );

/** A text value as the form sent it. */
export const FieldText = text(z.string().max(L.fieldValueBytes)).describe(
  `A value, at most ${L.fieldValueBytes / 1024} KB (in UTF-8).`,
);

const captchaToken = (widget: string, note = '') =>
  text(z.string())
    .optional()
    .describe(
      `The ${widget} widget's token${note}, verified with the provider when the form has that CAPTCHA; never stored, whatever the form.`,
    );

/** The reserved fields every body may carry; any other name starting with `_` is a control field too. */
export const ControlFields = {
  _replyto: text(z.string())
    .optional()
    .describe(
      "The sender's address: the notification e-mail's Reply-To and the autoresponder's recipient, checked against the form's blocked e-mails.",
    ),
  _subject: text(z.string()).optional().describe("The notification e-mail's subject (its first 200 characters)."),
  _next: text(z.string())
    .optional()
    .describe(
      "Where a browser goes after posting (303), instead of the form's `redirect_url` or the thank-you page — followed only when its origin is " +
        "the posting page's, the `redirect_url`'s or one of the form's `allowed_origins`.",
    ),
  [DEFAULT_HONEYPOT_FIELD]: text(z.string())
    .optional()
    .describe(
      'The honeypot: leave it empty, in an input people do not see. A post that fills it is kept as spam (`honeypot_filled`) and answered as ' +
        "any other. `_gotcha` unless the form's `settings.honeypot_field` names another `_…` field.",
    ),
  'cf-turnstile-response': captchaToken('Cloudflare Turnstile'),
  'h-captcha-response': captchaToken('hCaptcha'),
  'g-recaptcha-response': captchaToken('reCAPTCHA (v2 or v3)', ' (hCaptcha fills it too)'),
};

export const BODY_RULES =
  "The form's own fields, by name, beside the reserved ones. A name starting with `_` is a control field: kept in the submission's " +
  '`metadata.controls`, never in its payload. When the form has a field schema, a post that breaks it is refused (422) and fields the ' +
  'schema does not name are kept, dropped or refused as its `unknown_fields` says.';

export const UrlencodedPost = z
  .object(ControlFields)
  .catchall(z.union([FieldText, z.array(FieldText)]))
  .describe(
    `${BODY_RULES} A name sent more than once is kept as a list of its values, in order. At most ${L.fields} names and ${L.values} values, ` +
      `${mb(L.bodyBytes)} in all.`,
  );

/** Multipart is the urlencoded body plus files: scripts/openapi/public-endpoint.ts builds it with its file parts (binary). */
export const MULTIPART_RULES =
  `${BODY_RULES} At most ${L.fields} names and ${L.values} parts (values and files). A part with a filename is a file: at most ${L.files} files of at most ${mb(L.fileBytes)} each, and only when the ` +
  "team's plan includes uploads (402 otherwise); a file input left empty is no upload. Every part needs `Content-Disposition: form-data` with a name.";

export const JsonPost = z
  .object(ControlFields)
  .catchall(z.unknown().describe(`Any JSON value; strings at most ${L.fieldValueBytes / 1024} K characters.`))
  .describe(
    `${BODY_RULES} The body must be one object, at most ${mb(L.bodyBytes)}, nested at most ${L.jsonDepth} levels, ` +
      `with at most ${L.values} values in all (fields, list items, nested values).`,
  );

export const SubmissionAccepted = z.object({
  ok: z.literal(true),
  id: z.string().describe("The submission id (`subm_…`); for a repeated `Idempotency-Key`, the first submission's."),
  redirect: z
    .string()
    .optional()
    .describe(
      "Where a browser posting the same form would be sent (303): the `_next` posted, when its origin is allowed, else the form's " +
        "`redirect_url`; absent when neither applies. The browser helper (`/intake.js`) follows a page's cross-origin `_next` only when it is this.",
    ),
});
export type SubmissionAccepted = z.infer<typeof SubmissionAccepted>;

const errorBody = <C extends [string, ...string[]]>(codes: C, description: string) =>
  z
    .object({
      error: z.enum(codes).describe('Machine-readable error code.'),
      message: z.string().describe('Human-readable explanation.'),
    })
    .describe(description);

export const PublicPaymentRequiredBody = errorBody(
  ['quota_exceeded', 'plan_limit_reached'],
  "`quota_exceeded`: the team used its plan's submissions for this month. `plan_limit_reached`: files on a plan without uploads, or past the team's file storage.",
).extend({
  limit: z.number().int().optional().describe("The plan's file storage in bytes, when that is what is reached."),
});

export const ForbiddenOriginBody = errorBody(
  ['forbidden'],
  "The request's `Origin` is not one of the form's `allowed_origins`.",
);
export const PublicNotFoundBody = errorBody(
  ['not_found'],
  'No published form has this id (unknown, draft, unpublished or deleted).',
);
export const PayloadTooLargeBody = errorBody(
  ['payload_too_large'],
  'A limit of the endpoint was crossed; nothing was stored.',
);
export const UnsupportedMediaTypeBody = errorBody(
  ['unsupported_media_type'],
  'The body is not urlencoded, multipart or JSON.',
);
export const CaptchaFailedBody = errorBody(
  ['captcha_failed'],
  'The CAPTCHA token is missing, refused or expired; nothing was stored.',
);

/** 422 for JSON clients: the post breaks the form's field schema, or its CAPTCHA failed. */
export const PostRefusedBody = z.union([FieldErrorsBody, CaptchaFailedBody]);
