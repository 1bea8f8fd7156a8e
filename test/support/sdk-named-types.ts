/**
 * Compile-time checks of the SDK's named types (test/contract/openapi-tools.test.ts runs tsc on this file alone,
 * strict with exactOptionalPropertyTypes): each named type is exactly what the methods answer or take, so an
 * integrator assigns a method's answer to it (`const f: Form = (await intake.ok.createForm(…)).data`) and passes
 * it back; and what openapi-typescript generates from openapi.json fits them.
 */
import {
  createClient,
  type AbilityExceedsCallerBody,
  type ActivityEntry,
  type Actor,
  type Autoresponder,
  type Autoresponse,
  type BillingPlan,
  type BillingSubscription,
  type BillingTeam,
  type BillingUsage,
  type BulkBody,
  type BulkResult,
  type Captcha,
  type Condition,
  type CreateFormBody,
  type CreateNoteBody,
  type CreateRuleBody,
  type CreateSubmissionBody,
  type CreateTokenBody,
  type CreateWebhookBody,
  type Delivery,
  type DeliveryStatus,
  type DuplicateSubmissionBody,
  type ErrorBody,
  type ErrorCode,
  type FieldErrorsBody,
  type Form,
  type FormClosedBody,
  type FormField,
  type FormSettings,
  type Insights,
  type IntakeResponse,
  type Invoice,
  type Job,
  type Me,
  type Member,
  type Note,
  type NotificationRecipient,
  type OkClient,
  type PlanId,
  type RateLimitedBody,
  type RawClient,
  type ReplayWebhookBody,
  type Rule,
  type RuleAction,
  type RuleApplied,
  type RuleWhen,
  type SchemaField,
  type Stage,
  type StageCount,
  type StreamedSubmission,
  type Submission,
  type SubmissionDetail,
  type SubmissionEventBatch,
  type SubmissionFile,
  type SubmissionStatus,
  type SubmissionUpdatedEvent,
  type SuggestedSchema,
  type TagCount,
  type TestRulesBody,
  type TestRulesResult,
  type Token,
  type TokenListEntry,
  type TokenMetadata,
  type TriageChanges,
  type UniqueRule,
  type UpdateFormBody,
  type UpdateRuleBody,
  type UpdateSubmissionBody,
  type UpdateWebhookBody,
  type ValidationErrorBody,
  type Webhook,
  type WebhookEvent,
  type WebhookEventBody,
  type WebhookProvider,
} from '../../sdk/index.ts';
import type { components } from '../../sdk/openapi-types.ts';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assignable<A, B> = [A] extends [B] ? true : false;
type Check<T extends true> = T;

/** What `client.ok.<K>()` answers. */
type Ok<K extends keyof OkClient> = Awaited<ReturnType<OkClient[K]>>;
/** The arguments `client.<K>()` takes. */
type Args<K extends keyof RawClient> = RawClient[K] extends (args: infer A) => unknown ? NonNullable<A> : never;
/** The body `client.<K>()` answers with status S. */
type Body<K extends keyof RawClient, S extends number> =
  Extract<IntakeResponse<K>, { status: S }> extends { body: infer B } ? B : never;
type Schemas = components['schemas'];

export type Checks = [
  // The resources: what the methods answer, in every method that answers them.
  Check<Same<Form, Ok<'createForm'>['data']>>,
  Check<Same<Form, Ok<'getForm'>['data']>>,
  Check<Same<Form, Ok<'updateForm'>['data']>>,
  Check<Same<Form, Ok<'publishForm'>['data']>>,
  Check<Same<Form, Ok<'listForms'>['data'][number]>>,
  Check<Same<Submission, Ok<'listSubmissions'>['data'][number]>>,
  Check<Same<SubmissionDetail, Ok<'getSubmission'>['data']>>,
  Check<Same<SubmissionDetail, Ok<'createSubmission'>['data']>>,
  Check<Same<SubmissionDetail, Ok<'updateSubmission'>['data']>>,
  Check<Same<Webhook, Ok<'getWebhook'>['data']>>,
  Check<Same<Webhook, Ok<'listWebhooks'>['data'][number]>>,
  Check<Same<Webhook, Omit<Ok<'createWebhook'>['data'], 'secret'>>>,
  Check<Same<Delivery, Ok<'listDeliveries'>['data'][number]>>,
  Check<Same<Job, Ok<'getJob'>['data']>>,
  Check<Same<Token, Ok<'createToken'>['data']>>,
  Check<Same<TokenMetadata, Token>>,
  Check<Same<TokenListEntry, Ok<'listTokens'>['data'][number]>>,
  Check<Same<Insights | null, Ok<'getAiInsights'>['data']>>,
  Check<Same<Me, Ok<'getMe'>['data']>>,
  Check<Same<BillingTeam, Ok<'getBillingTeam'>['data']>>,
  Check<Same<BillingPlan, Ok<'getBillingPlan'>['data']>>,
  Check<Same<BillingUsage, Ok<'getBillingUsage'>['data']>>,
  Check<Same<BillingSubscription, Ok<'getBillingSubscription'>['data']>>,
  Check<Same<Invoice, Ok<'listInvoices'>['data'][number]>>,
  Check<Same<PlanId, BillingTeam['plan']>>,
  Check<Same<FormField, Ok<'listFormFields'>['data'][number]>>,
  Check<Same<SuggestedSchema, Ok<'suggestFormSchema'>>>,
  Check<Same<BulkResult, Ok<'bulkSubmissions'>>>,
  Check<Same<StageCount, Ok<'listFormStages'>['data'][number]>>,
  Check<Same<TagCount, Ok<'listFormTags'>['data'][number]>>,
  Check<Same<Note, Ok<'createSubmissionNote'>['data']>>,
  Check<Same<Note, Ok<'listSubmissionNotes'>['data'][number]>>,
  Check<Same<ActivityEntry, Ok<'listSubmissionActivity'>['data'][number]>>,
  Check<Same<Rule, Ok<'createRule'>['data']>>,
  Check<Same<Rule, Ok<'listRules'>['data'][number]>>,
  Check<Same<TestRulesResult, Ok<'testRules'>['data']>>,
  Check<Same<SubmissionEventBatch, Ok<'streamSubmissions'>>>,
  // Their parts.
  Check<Same<FormSettings, Form['settings']>>,
  Check<Same<SchemaField, FormSettings['fields'][number]>>,
  Check<Same<Captcha, FormSettings['captcha']>>,
  Check<Same<Autoresponder, FormSettings['autoresponder']>>,
  Check<Same<NotificationRecipient, Form['notification_recipients'][number]>>,
  Check<Same<SubmissionStatus, Submission['status']>>,
  Check<Same<SubmissionFile, NonNullable<Submission['files']>[number]>>,
  Check<Same<Autoresponse, SubmissionDetail['autoresponse']>>,
  Check<Same<RuleApplied, SubmissionDetail['rules_applied'][number]>>,
  Check<Same<Member, NonNullable<Submission['assignee']>>>,
  Check<Same<Actor, ActivityEntry['actor']>>,
  Check<Same<RuleWhen, Rule['when']>>,
  Check<Same<RuleAction, Rule['actions'][number]>>,
  Check<Assignable<Condition, Extract<RuleWhen, { all: unknown }>['all'][number]>>,
  Check<Same<WebhookProvider, Webhook['provider']>>,
  Check<Same<WebhookEvent, Webhook['events'][number]>>,
  Check<Same<DeliveryStatus, Delivery['status']>>,
  Check<Same<StreamedSubmission, SubmissionEventBatch['data'][number]>>,
  Check<Same<SubmissionUpdatedEvent, Extract<WebhookEventBody, { type: 'submission.updated' }>>>,
  Check<Same<TriageChanges, SubmissionUpdatedEvent['changes']>>,
  // What the methods take.
  Check<Same<CreateFormBody, NonNullable<Args<'createForm'>['body']>>>,
  Check<Same<UpdateFormBody, NonNullable<Args<'updateForm'>['body']>>>,
  Check<Same<UniqueRule, NonNullable<NonNullable<CreateFormBody['settings']>['unique']>[number]>>,
  Check<Same<Stage, NonNullable<NonNullable<UpdateFormBody['settings']>['stages']>[number]>>,
  Check<Same<CreateSubmissionBody, NonNullable<Args<'createSubmission'>['body']>>>,
  Check<Same<UpdateSubmissionBody, NonNullable<Args<'updateSubmission'>['body']>>>,
  Check<Same<BulkBody, NonNullable<Args<'bulkSubmissions'>['body']>>>,
  Check<Same<CreateNoteBody, NonNullable<Args<'createSubmissionNote'>['body']>>>,
  Check<Same<CreateRuleBody, NonNullable<Args<'createRule'>['body']>>>,
  Check<Same<UpdateRuleBody, NonNullable<Args<'updateRule'>['body']>>>,
  Check<Same<TestRulesBody, NonNullable<Args<'testRules'>['body']>>>,
  Check<Same<CreateWebhookBody, NonNullable<Args<'createWebhook'>['body']>>>,
  Check<Same<UpdateWebhookBody, NonNullable<Args<'updateWebhook'>['body']>>>,
  Check<Same<ReplayWebhookBody, NonNullable<Args<'replayWebhook'>['body']>>>,
  Check<Same<CreateTokenBody, NonNullable<Args<'createToken'>['body']>>>,
  // Error bodies.
  Check<Same<ValidationErrorBody, Body<'getMe', 400>>>,
  Check<Same<RateLimitedBody, Body<'getMe', 429>>>,
  Check<Same<ErrorBody, Body<'getMe', 401>>>,
  Check<Same<FieldErrorsBody, Body<'createSubmission', 422>>>,
  Check<Same<FormClosedBody | ErrorBody, Body<'createSubmission', 403>>>,
  Check<Same<DuplicateSubmissionBody | ErrorBody, Body<'createSubmission', 409>>>,
  Check<Assignable<AbilityExceedsCallerBody, Body<'createToken', 403>>>,
  // What openapi-typescript generates from openapi.json fits the SDK's types.
  Check<Assignable<Schemas['Form'], Form>>,
  Check<Assignable<Schemas['Submission'], Submission>>,
  Check<Assignable<Schemas['SubmissionDetail'], SubmissionDetail>>,
  Check<Assignable<Schemas['Webhook'], Webhook>>,
  Check<Assignable<Schemas['Delivery'], Delivery>>,
  Check<Assignable<Schemas['Job'], Job>>,
  Check<Assignable<Schemas['Token'], Token>>,
  Check<Assignable<Schemas['Insights'], Insights>>,
  // The published ErrorBody names its code from the closed list; the SDK's also holds its own codes.
  Check<Assignable<Schemas['ErrorBody'], ErrorBody>>,
  Check<Same<Schemas['ErrorBody']['error'], ErrorCode>>,
];

/** Never called: what an integrator writes, type-checked. */
export async function integrator(form: string, submission: string, webhook: string): Promise<unknown[]> {
  const intake = createClient({ baseUrl: 'https://intake.example.com', token: `intk_${'a'.repeat(40)}` });
  const body: CreateFormBody = { name: 'Contact', settings: { unique: [{ fields: ['email'] }] } };
  const created: Form = (await intake.ok.createForm({ body })).data;
  const update: UpdateFormBody = { name: 'Contact us', settings: { stages: created.settings.stages } };
  const updated: Form = (await intake.ok.updateForm({ params: { form }, body: update })).data;
  const forms: Form[] = (await intake.ok.listForms({})).data;
  const settings: FormSettings = updated.settings;
  const submissions: Submission[] = (await intake.ok.listSubmissions({ params: { form } })).data;
  const detail: SubmissionDetail = (await intake.ok.getSubmission({ params: { form, submission } })).data;
  const triaged: SubmissionDetail = (
    await intake.ok.updateSubmission({ params: { form, submission }, body: { add_tags: ['vip'] } })
  ).data;
  const hook: Webhook = (await intake.ok.getWebhook({ params: { form, webhook } })).data;
  const hooks: Webhook[] = (await intake.ok.listWebhooks({ params: { form } })).data;
  const deliveries: Delivery[] = (await intake.ok.listDeliveries({ params: { form, webhook } })).data;
  const job: Job = (await intake.ok.getJob({ params: { job_id: 'job_1' } })).data;
  const token: Token = (await intake.ok.createToken({ body: { name: 'ci', abilities: ['forms:read'] } })).data;
  const tokens: TokenListEntry[] = (await intake.ok.listTokens()).data;
  const insights: Insights | null = (await intake.ok.getAiInsights({})).data;
  const rule: Rule = (await intake.ok.getRule({ params: { form, rule: 'rule_1' } })).data;
  const note: Note = (await intake.ok.createSubmissionNote({ params: { form, submission }, body: { body: 'x' } })).data;
  const me: Me = (await intake.ok.getMe()).data;
  // The named types go back in as they came out.
  const again: Form = { ...created, name: 'Copy' };
  const res = await intake.getForm({ params: { form } });
  const answered: Form | ErrorBody | ValidationErrorBody | RateLimitedBody =
    res.status === 200 ? res.body.data : res.body;
  return [
    forms,
    settings,
    submissions,
    detail,
    triaged,
    hook,
    hooks,
    deliveries,
    job,
    token,
    tokens,
    insights,
    rule,
    note,
    me,
    again,
    answered,
  ];
}
