import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { authErrors, ErrorBody, HttpUrl, OkBody, PageQuery, paginated, Timestamp } from './common.ts';
import {
  Autoresponder,
  AutoresponderInput,
  Captcha,
  CaptchaInput,
  NotificationRecipient,
  SchemaFields,
  SchemaFieldViews,
  SuggestedSchema,
  UnknownFields,
} from './form-features.ts';
import { COSTS } from './costs.ts';
import { AdmissionSettings } from './form-admission.ts';
import { ReassignStages, TriageSettings } from './triage.ts';

const c = initContract();

const Origin = z
  .string()
  .regex(/^https?:\/\/[^/\s?#]+$/, 'An origin is scheme://host[:port], with no path.')
  .describe('e.g. https://example.com');

export const CustomRules = z.object({
  blocked_emails: z
    .array(z.string().min(3).max(320))
    .max(500)
    .describe('Addresses (`a@b.com`) or whole domains (`@b.com`) whose submissions are spam.'),
  keywords: z.array(z.string().min(1).max(200)).max(500).describe('Case-insensitive words or phrases that mark spam.'),
  regex: z
    .array(z.string().min(1).max(500))
    .max(10)
    .describe(
      'Case-insensitive regular expressions that mark spam, in RE2 syntax (linear-time: no backreferences or lookaround), ' +
        'matched against the first 8,000 characters of the submission text (fewer with more than 4 rules: 32,000 ÷ rules).',
    ),
});

const Days = z.number().int().min(1).max(3650);

export const Retention = z
  .object({
    submissions_days: Days.nullable().describe(
      'Days a submission is kept (not spam); null = for ever (the plan may cap it).',
    ),
    spam_days: Days.nullable().describe('Days spam is kept; default 30; null = for ever (the plan may cap it).'),
  })
  .describe('How long submissions are kept; a daily job deletes what has aged out, with its files.');

const RetentionStatus = z
  .object({
    submissions_days: z
      .number()
      .int()
      .nullable()
      .describe("Days submissions are kept, the plan's cap applied; null = for ever."),
    spam_days: z.number().int().nullable().describe("Days spam is kept, the plan's cap applied; null = for ever."),
    next_deletion_at: Timestamp.nullable().describe(
      "When the daily job will next delete some of this form's submissions; null = nothing stored will age out.",
    ),
  })
  .describe('The retention in force.');

export const FormSettings = z.object({
  redirect_url: HttpUrl.nullable().describe(
    'Where browsers go after a post (303): an absolute http(s) URL; null = built-in thank-you page.',
  ),
  honeypot_field: z.string().min(1).max(64).describe('Hidden field bots fill in; default `_gotcha`.'),
  allowed_origins: z
    .array(Origin)
    .max(50)
    .describe('Origins allowed by CORS and as `_next` redirect hosts; empty = any origin.'),
  custom_rules: CustomRules,
  ai_threshold: z
    .number()
    .min(0)
    .max(1)
    .describe('AI spam score at or above which a submission is spam; default 0.75.'),
  fields: SchemaFieldViews,
  unknown_fields: UnknownFields,
  captcha: Captcha,
  autoresponder: Autoresponder.describe(
    'The e-mail sent to the submitter of each clean submission (not on the Free plan).',
  ),
  retention: Retention,
  notification_mode: z
    .enum(['instant', 'hourly', 'daily'])
    .describe(
      '`instant`: one e-mail per submission (default); `hourly` / `daily` (08:00 UTC): one digest per period listing its clean submissions, none for an empty period.',
    ),
  notify_spam: z
    .boolean()
    .describe(
      'Also e-mail the notification addresses about spam, marked as spam with its reason (instant mode); default false.',
    ),
  ...AdmissionSettings.shape,
  ...TriageSettings.shape,
});
export type FormSettings = z.infer<typeof FormSettings>;

export const FormSettingsInput = FormSettings.omit({ custom_rules: true, captcha: true, autoresponder: true })
  .partial()
  .extend({
    fields: SchemaFields.optional(),
    custom_rules: CustomRules.partial().optional(),
    captcha: CaptchaInput.optional(),
    autoresponder: AutoresponderInput.optional().describe('Merged with the current autoresponder.'),
    retention: Retention.partial().strict().optional().describe('Merged with the current retention.'),
  })
  .strict();

export const Form = z.object({
  id: z.string().describe('Prefix `frm_`.'),
  name: z.string(),
  status: z.enum(['draft', 'published']),
  endpoint_url: z.string().describe('The public URL websites post to.'),
  notification_emails: z.array(z.string()),
  notification_recipients: z
    .array(NotificationRecipient)
    .describe('Each notification address and whether it has confirmed.'),
  settings: FormSettings,
  disabled_rules: z
    .array(z.object({ kind: z.literal('regex'), pattern: z.string(), reason: z.string() }))
    .describe(
      'Stored custom rules the spam filter cannot run (saved before rules ran on RE2); they are not applied until replaced.',
    ),
  submissions_count: z.number().int(),
  retention: RetentionStatus,
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: Timestamp.nullable(),
});
export type Form = z.infer<typeof Form>;

const NotificationEmails = z
  .array(z.string().email().max(320))
  .max(10)
  .describe('At most 10 addresses notified of each clean submission.');

export const CreateFormBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    notification_emails: NotificationEmails.default([]),
    settings: FormSettingsInput.optional(),
  })
  .strict();

export const UpdateFormBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    notification_emails: NotificationEmails.optional(),
    settings: FormSettingsInput.optional(),
    reassign_stages: ReassignStages.optional(),
  })
  .strict();

export const FormListQuery = PageQuery.extend({
  trashed: z.enum(['with', 'only']).optional().describe('Include deleted forms (`with`) or list only them (`only`).'),
});

const FormParams = z.object({ form: z.string().describe('Form id (`frm_…`).') });
const one = z.object({ data: Form });

export const FormField = z.object({
  name: z.string(),
  first_seen_at: Timestamp,
});

export const FormFieldList = z.object({
  data: z
    .array(FormField)
    .describe('The field names the form has learned, in first-seen order: the columns of its CSV export.'),
  meta: z.object({
    count: z.number().int(),
    limit: z
      .number()
      .int()
      .describe('The most names a form learns; later names stay in the payload and export in `_other`.'),
    overflow: z
      .boolean()
      .describe('Some stored submission has fields beyond the learned names (exported in `_other`).'),
  }),
});

export const formsContract = c.router({
  listForms: {
    method: 'GET',
    path: '/v1/forms',
    summary: "List the team's forms, newest first",
    query: FormListQuery,
    responses: { 200: paginated(Form), ...authErrors },
    metadata: { ability: 'forms:read', cost: COSTS.records },
  },
  createForm: {
    method: 'POST',
    path: '/v1/forms',
    summary: 'Create a form (as a draft)',
    body: CreateFormBody,
    responses: { 201: one, ...authErrors, 402: ErrorBody },
    metadata: { ability: 'forms:write', cost: COSTS.row },
  },
  getForm: {
    method: 'GET',
    path: '/v1/forms/:form',
    summary: 'Show a form (deleted forms too)',
    pathParams: FormParams,
    responses: { 200: one, ...authErrors },
    metadata: { ability: 'forms:read', cost: COSTS.row },
  },
  updateForm: {
    method: 'PUT',
    path: '/v1/forms/:form',
    summary: 'Update a form; settings are merged, custom_rules per list',
    pathParams: FormParams,
    body: UpdateFormBody,
    responses: { 200: one, ...authErrors, 402: ErrorBody, 409: ErrorBody },
    metadata: { ability: 'forms:write', cost: COSTS.row },
  },
  deleteForm: {
    method: 'DELETE',
    path: '/v1/forms/:form',
    summary: 'Move a form to the trash (restorable)',
    pathParams: FormParams,
    body: c.noBody(),
    responses: { 200: OkBody, ...authErrors },
    metadata: { ability: 'forms:write', cost: COSTS.row },
  },
  publishForm: {
    method: 'POST',
    path: '/v1/forms/:form/publish',
    summary: 'Publish: the public endpoint starts accepting posts',
    pathParams: FormParams,
    body: c.noBody(),
    responses: { 200: one, ...authErrors },
    metadata: { ability: 'forms:write', cost: COSTS.row },
  },
  unpublishForm: {
    method: 'POST',
    path: '/v1/forms/:form/unpublish',
    summary: 'Unpublish: the public endpoint answers 404',
    pathParams: FormParams,
    body: c.noBody(),
    responses: { 200: one, ...authErrors },
    metadata: { ability: 'forms:write', cost: COSTS.row },
  },
  restoreForm: {
    method: 'POST',
    path: '/v1/forms/:form/restore',
    summary: 'Restore a deleted form',
    pathParams: FormParams,
    body: c.noBody(),
    responses: { 200: one, ...authErrors, 402: ErrorBody },
    metadata: { ability: 'forms:write', cost: COSTS.row },
  },
  listFormFields: {
    method: 'GET',
    path: '/v1/forms/:form/fields',
    summary: 'List the field names a form has learned (its export columns)',
    pathParams: FormParams,
    responses: { 200: FormFieldList, ...authErrors },
    metadata: { ability: 'forms:read', cost: COSTS.fields },
  },
  pruneFormFields: {
    method: 'POST',
    path: '/v1/forms/:form/fields/prune',
    summary: 'Forget learned field names no stored submission has (frees room under the limit)',
    pathParams: FormParams,
    body: c.noBody(),
    responses: {
      200: z.object({ data: z.object({ removed: z.array(z.string()) }), meta: FormFieldList.shape.meta }),
      ...authErrors,
    },
    metadata: { ability: 'forms:write', cost: COSTS.formScan },
  },
  suggestFormSchema: {
    method: 'GET',
    path: '/v1/forms/:form/schema/suggested',
    summary:
      "Propose a field schema from the form's newest inbox submissions, up to 1,000 or 4 MiB of them (types and required-ness seen)",
    pathParams: FormParams,
    responses: { 200: SuggestedSchema, ...authErrors },
    metadata: { ability: 'forms:read', cost: COSTS.suggestion },
  },
  forceDeleteForm: {
    method: 'DELETE',
    path: '/v1/forms/:form/force',
    summary: 'Erase a form with its submissions, files, webhooks and deliveries (owner/admin)',
    pathParams: FormParams,
    body: c.noBody(),
    responses: { 200: OkBody, ...authErrors },
    metadata: { ability: 'forms:write', cost: COSTS.formScan },
  },
});
