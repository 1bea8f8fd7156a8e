import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { Autoresponse } from './form-features.ts';
import {
  authErrors,
  ErrorBody,
  Instant,
  MAX_PAGE,
  OkBody,
  PageLinks,
  PageMeta,
  rateLimitErrors,
  text,
  Timestamp,
} from './common.ts';
import { COSTS } from './costs.ts';
import { DuplicateSubmissionBody, FormClosedBody } from './form-admission.ts';
import { FieldErrorsBody } from './form-features.ts';
import { IdempotencyKey, LIMITS_TEXT, PublicPaymentRequiredBody } from './public-endpoint.ts';
import { RuleApplied } from './rules.ts';
import { IfMatch, Member, StageKey, Tag, TriageFields, TriageUpdate } from './triage.ts';

const c = initContract();

/** The categories processing assigns (`category`). */
export const CATEGORIES = [
  'support',
  'sales',
  'partnership',
  'bug-report',
  'feature-request',
  'feedback',
  'hiring',
  'press',
  'spam',
  'other',
] as const;

export const SUBMISSION_STATUSES = ['received', 'spam', 'processed', 'failed'] as const;
export const SubmissionStatus = z.enum(SUBMISSION_STATUSES);

export const AiModeration = z
  .object({
    score: z.number().min(0).max(1).describe('Spam likelihood, 0 (clean) to 1 (spam).'),
    verdict: z.enum(['clean', 'suspicious', 'spam']),
    reasons: z.array(z.string()),
    provider: z.string().describe('`local` or `openai`.'),
  })
  .describe('Set once the submission has been processed; null before.');

export const SubmissionFile = z.object({
  id: z.string().describe('Prefix `file_`; the id used in the download path.'),
  field: z.string().describe('The form field the file was posted in.'),
  filename: z.string(),
  content_type: z.string(),
  size: z.number().int().describe('Bytes.'),
});

export const SignedSubmissionFile = SubmissionFile.extend({
  url: z.string().describe('Signed download URL, valid 60 seconds.'),
  url_expires_at: Timestamp,
});

const JsonValue: z.ZodType<unknown> = z.unknown().describe('Any JSON value.');
export const Payload = z.record(JsonValue).describe('The submitted fields.');

export const SubmissionListItem = z.object({
  id: z.string().describe('Prefix `subm_`.'),
  status: SubmissionStatus,
  spam_reason: z
    .string()
    .nullable()
    .describe(
      'Why it is spam: honeypot_filled, rate_limited, rule:<kind>, captcha_unverified (the CAPTCHA provider could not be reached), ai_moderation.',
    ),
  category: z.string().nullable(),
  ai_moderation: AiModeration.nullable(),
  payload: Payload,
  received_at: Timestamp,
  files: z.array(SubmissionFile).optional().describe('Present only if the submission had uploads.'),
  ...TriageFields.shape,
  notes_count: z.number().int(),
  updated_at: Timestamp.describe('When it last changed (triage, status, payload or a note).'),
});

export const ParsedField = z.object({
  name: z.string(),
  type: z.enum(['string', 'number', 'boolean', 'date', 'email', 'url', 'list', 'object', 'empty']),
  value: JsonValue.describe('The value converted to its type (numbers, booleans, ISO dates).'),
});

export const SubmissionDetail = SubmissionListItem.omit({ files: true }).extend({
  form_id: z.string(),
  fields: z.array(ParsedField).describe('The payload with each value recognised and typed.'),
  metadata: z.record(JsonValue).describe('IP, user agent, referrer, origin and the reserved control fields.'),
  files: z
    .array(SignedSubmissionFile)
    .optional()
    .describe('Present only if the submission had uploads, with signed URLs valid 60 seconds.'),
  autoresponse: Autoresponse,
  source: z
    .enum(['form', 'api'])
    .describe(
      '`form`: posted to the public endpoint; `api`: a server-side submit (`POST /v1/forms/{form}/submissions`).',
    ),
  api_token_id: z.string().nullable().describe('The token of a server-side submit (`tok_…`); null for `form`.'),
  etag: z.string().describe('The `ETag` header of this version: send it as `If-Match` to change only this version.'),
  rules_applied: z
    .array(RuleApplied)
    .describe("The form's rules that fired on it when it was processed, in order (empty: none did)."),
});

export const CreateSubmissionBody = z
  .object({
    fields: z
      .record(JsonValue)
      .describe(
        `The form's fields, as a website would post them (names starting with \`_\` are control fields, e.g. \`_replyto\`). ${LIMITS_TEXT}`,
      ),
    client: z
      .object({
        ip: z
          .string()
          .ip()
          .optional()
          .describe("The visitor's address: the form's per-address limits apply to it when given."),
        user_agent: text(z.string().max(1000)).optional(),
        referrer: text(z.string().max(2048)).optional(),
      })
      .strict()
      .optional()
      .describe('What your server knows of the person who filled the form in; kept in `metadata`.'),
  })
  .strict()
  .describe(
    'As JSON; or as multipart/form-data with files: each part a field or a file, and the client as parts `client[ip]`, `client[user_agent]`, `client[referrer]`.',
  );

const IsoDate = Instant;

export const MAX_TAG_FILTERS = 10;

const SearchText = text(z.string().trim().max(200))
  .optional()
  .describe(
    "Full-text search: each word must begin a word of the submission's text and number values or the submitter's e-mail (case and accents ignored, no stemming, any language).",
  );

export const SubmissionListQuery = z.object({
  folder: z.enum(['inbox', 'spam', 'all']).default('inbox').describe('`inbox` (not spam), `spam` or `all`.'),
  per_page: z.coerce.number().int().min(1).max(100).default(25),
  page: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE)
    .default(1)
    .describe('Page number, from 1 (at most 1,000,000; deep pages are faster by `cursor`).'),
  category: text(z.string().max(64)).optional().describe('Only this AI category.'),
  since: IsoDate.optional().describe('Only submissions received after this time (ISO 8601).'),
  until: IsoDate.optional().describe('Only submissions received before this time (ISO 8601).'),
  cursor: text(z.string().max(200))
    .optional()
    .describe('Opaque keyset cursor from `meta.next_cursor`; takes precedence over `page`.'),
  q: SearchText,
  tag: z
    .union([Tag, z.array(Tag).max(MAX_TAG_FILTERS)])
    .optional()
    .describe(`Only submissions with this tag; repeat (\`tag=a&tag=b\`, at most ${MAX_TAG_FILTERS}) for all of them.`),
  stage: StageKey.optional().describe('Only submissions in this stage.'),
  assignee: z
    .string()
    .max(64)
    .optional()
    .describe("`me` (the token's user), `none` (unassigned) or a user id (`usr_…`)."),
});

/** What a list selects its submissions by: every field of its query but the page's. */
export type SubmissionFilter = Omit<z.infer<typeof SubmissionListQuery>, 'page' | 'per_page' | 'cursor'>;

export const SubmissionPage = z.object({
  data: z.array(SubmissionListItem),
  links: PageLinks,
  meta: PageMeta.extend({
    current_page: z
      .number()
      .int()
      .nullable()
      .describe('The page number; null when the page was asked for by `cursor`.'),
    total_capped: z
      .boolean()
      .describe(
        'A search (`q`) or a triage filter (`tag`, `stage`, `assignee`) counts its matches up to 1,000: true when there are more ' +
          '(then `total` is 1,000; `GET …/tags` and `GET …/stages` count them all).',
      ),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last.'),
  }),
});

export const UpdateSubmissionBody = z
  .object({
    payload: z
      .record(JsonValue)
      .optional()
      .describe('Merged shallowly: omitted keys stay, a key set to null is removed.'),
    status: SubmissionStatus.optional(),
    ...TriageUpdate.shape,
  })
  .strict();

/** One element of a JSON export. */
export const ExportedSubmission = z.object({
  id: z.string(),
  received_at: z.string().describe('ISO 8601, UTC, milliseconds.'),
  status: SubmissionStatus,
  spam_reason: z.string().nullable(),
  category: z.string().nullable(),
  ai_moderation: z
    .object({ score: z.number(), verdict: z.string(), reasons: z.array(z.string()), provider: z.string() })
    .nullable(),
  source: z.enum(['form', 'api']).describe('`form`: the public endpoint; `api`: a server-side submit.'),
  tags: z.array(z.string()),
  stage: z.string(),
  assignee: Member.nullable(),
  rules_applied: z.array(RuleApplied),
  payload: z.record(JsonValue),
  files: z.array(
    z.object({
      id: z.string(),
      field: z.string(),
      filename: z.string(),
      content_type: z.string(),
      size: z.number().int(),
      url: z.string().describe('A link valid for 7 days; each visit redirects to a fresh 60-second storage URL.'),
    }),
  ),
});

export const BulkBody = z.object({
  ids: z
    .array(text())
    .min(1)
    .describe(
      'At most 500 submission ids; more gives 413 (after a 404 for an unknown form). An id that is not a submission of this form, whatever its shape or length, is listed in `skipped` (NUL and unpaired surrogates are refused in any body, 400).',
    ),
  action: z
    .enum(['delete', 'mark_spam', 'mark_not_spam', 'add_tags', 'remove_tags', 'set_stage', 'assign'])
    .describe('`add_tags` / `remove_tags` take `tags`, `set_stage` takes `stage`, `assign` takes `assignee_id`.'),
  tags: z.array(Tag).min(1).max(20).optional(),
  stage: StageKey.optional(),
  assignee_id: z.string().max(64).nullable().optional().describe('A member of the team; null unassigns.'),
});

export const BulkResult = z.object({
  ok: z.boolean(),
  affected: z.number().int(),
  skipped: z
    .array(z.string())
    .describe(
      'Ids the caller may not act on (other forms, other teams, deleted, unknown or malformed), in the order given, once each.',
    ),
});

export const ExportQuery = z.object({
  format: z.enum(['csv', 'json']).default('csv'),
  since: IsoDate.optional(),
  until: IsoDate.optional(),
  q: SearchText,
});

const FormParams = z.object({ form: z.string().describe('Form id (`frm_…`).') });
const SubmissionParams = FormParams.extend({ submission: z.string().describe('Submission id (`subm_…`).') });
const FileParams = SubmissionParams.extend({ file: z.string().describe('File id (`file_…`) from the submission.') });

export const submissionsContract = c.router({
  createSubmission: {
    method: 'POST',
    path: '/v1/forms/:form/submissions',
    summary: "Submit to a form from your own server: the public endpoint's checks, without CORS, honeypot or CAPTCHA",
    description:
      'The field schema (422 per field), custom rules, AI moderation, unique rules (409), limits and dates (403 `form_closed`), ' +
      'file limits and plan quotas apply as at `POST /f/{form}`; a repeated `Idempotency-Key` answers the first submission. ' +
      'Counted against INTAKE_SUBMIT_TOKEN_RATE_LIMIT a minute per token (not the API budget).',
    pathParams: FormParams,
    headers: z.object({ 'idempotency-key': IdempotencyKey.optional() }),
    body: CreateSubmissionBody,
    responses: {
      201: z.object({ data: SubmissionDetail }),
      ...authErrors,
      402: PublicPaymentRequiredBody,
      403: z.union([FormClosedBody, ErrorBody]),
      409: z.union([DuplicateSubmissionBody, ErrorBody]),
      413: ErrorBody,
      422: FieldErrorsBody,
      ...rateLimitErrors,
    },
    metadata: { ability: 'submissions:create', cost: COSTS.submit, uploads: true },
  },
  listSubmissions: {
    method: 'GET',
    path: '/v1/forms/:form/submissions',
    summary: "List a form's submissions, newest first",
    pathParams: FormParams,
    query: SubmissionListQuery,
    responses: { 200: SubmissionPage, ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'submissions:read', cost: COSTS.submissions },
  },
  bulkSubmissions: {
    method: 'POST',
    path: '/v1/forms/:form/submissions/bulk',
    summary: 'Delete, mark as spam or not spam, tag, untag, move to a stage or assign up to 500 submissions at once',
    pathParams: FormParams,
    body: BulkBody,
    responses: { 200: BulkResult, ...authErrors, ...rateLimitErrors, 413: ErrorBody },
    metadata: { ability: 'submissions:write', cost: COSTS.bulk },
  },
  exportSubmissions: {
    method: 'GET',
    path: '/v1/forms/:form/submissions/export',
    summary: 'Stream every submission as CSV or JSON',
    pathParams: FormParams,
    query: ExportQuery,
    responses: {
      200: c.otherResponse({
        contentType: 'text/csv; charset=utf-8',
        body: z
          .string()
          .describe(
            'CSV (format=csv): id, received_at, status, category, score, one column per learned field, `_other` (JSON of fields past ' +
              'the learned ones, when any), _files (links), _tags (joined with ", "), _stage, _assignee (e-mail). JSON (format=json): an array of submissions.',
          ),
      }),
      ...authErrors,
      ...rateLimitErrors,
    },
    metadata: {
      ability: 'submissions:export',
      cost: COSTS.export,
      alsoAnswers: { 'application/json': z.array(ExportedSubmission) },
    },
  },
  getSubmission: {
    method: 'GET',
    path: '/v1/forms/:form/submissions/:submission',
    summary: 'Show a submission with typed fields, metadata and signed file URLs',
    description: 'Answers an `ETag` (also in `data.etag`) to send as `If-Match` with a change.',
    pathParams: SubmissionParams,
    responses: { 200: z.object({ data: SubmissionDetail }), ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'submissions:read', cost: COSTS.submission },
  },
  updateSubmission: {
    method: 'PUT',
    path: '/v1/forms/:form/submissions/:submission',
    summary:
      'Edit the payload (shallow merge), move the submission between states, or triage it: tags, stage, assignee',
    description:
      'With `If-Match`, a submission changed since that `ETag` answers 412 `precondition_failed` and nothing changes. ' +
      'A triage change is recorded in the activity and sent as `submission.updated`; a new assignee is e-mailed.',
    pathParams: SubmissionParams,
    headers: z.object({ 'if-match': IfMatch }),
    body: UpdateSubmissionBody,
    responses: {
      200: z.object({ data: SubmissionDetail }),
      ...authErrors,
      412: ErrorBody,
      ...rateLimitErrors,
    },
    metadata: { ability: 'submissions:write', cost: COSTS.submission },
  },
  deleteSubmission: {
    method: 'DELETE',
    path: '/v1/forms/:form/submissions/:submission',
    summary: 'Delete a submission with its files and audit trail, permanently',
    pathParams: SubmissionParams,
    body: c.noBody(),
    responses: { 200: OkBody, ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'submissions:write', cost: COSTS.meteredRow },
  },
  downloadSubmissionFile: {
    method: 'GET',
    path: '/v1/forms/:form/submissions/:submission/files/:file',
    summary: 'Redirect (302) to a freshly signed storage URL for the file, valid 60 seconds',
    pathParams: FileParams,
    responses: { 302: c.noBody(), ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'submissions:read', cost: COSTS.meteredRow },
  },
});
