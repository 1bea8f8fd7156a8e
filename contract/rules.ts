import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { authErrors, OkBody, rateLimitErrors, text, Timestamp } from './common.ts';
import { Condition, MAX_CONDITIONS } from './conditions.ts';
import { COSTS } from './costs.ts';
import { StageKey, TagList } from './triage.ts';

/** Rules: what a form does with each submission, chosen by its answers. */

const c = initContract();

export const MAX_RULES = 50;
export const MAX_ACTIONS = 10;
export const MAX_NOTIFY_ADDRESSES = 10;
/** A template (a notify subject) holds at most this many characters. */
export const MAX_SUBJECT_TEMPLATE = 1000;

export const RULE_EVENTS = ['submission.created', 'submission.spam'] as const;

const Email = text(z.string().email().max(320));

export const NotifyAction = z
  .object({
    type: z.literal('notify'),
    to: z
      .array(Email)
      .min(1)
      .max(MAX_NOTIFY_ADDRESSES)
      .describe(
        `1–${MAX_NOTIFY_ADDRESSES} addresses sent the notification e-mail (confirmed like the form's own when the team confirms addresses).`,
      ),
    subject: text(z.string().min(1).max(MAX_SUBJECT_TEMPLATE))
      .optional()
      .describe('A template for the subject (`{{ field }}`, `{{ form.name }}`, filters); default: the usual subject.'),
    replace_default: z
      .boolean()
      .default(false)
      .describe("When true, the form's own notification addresses are not mailed for a submission this rule fires on."),
  })
  .strict();

export const WebhookAction = z
  .object({
    type: z.literal('webhook'),
    webhook_id: z
      .string()
      .max(64)
      .describe(
        'A webhook of the same form (`wh_…`): the submission is delivered to it (signed, retried and logged as any delivery), ' +
          'whatever its events and filter. A webhook with `events: []` receives only such deliveries.',
      ),
  })
  .strict();

export const TagAction = z
  .object({ type: z.literal('tag'), add: TagList.min(1).describe('Tags added to the submission.') })
  .strict();
export const StageAction = z
  .object({ type: z.literal('stage'), to: StageKey.describe("A key of the form's stages.") })
  .strict();
export const AssignAction = z
  .object({ type: z.literal('assign'), user_id: z.string().max(64).describe('A member of the team (`usr_…`).') })
  .strict();
export const MoveToSpamAction = z
  .object({
    type: z.literal('move_to_spam'),
    reason: text(z.string().trim().min(1).max(200)).describe("Recorded as the submission's `spam_reason` detail."),
  })
  .strict();
export const SkipNotificationsAction = z
  .object({ type: z.literal('skip_notifications') })
  .strict()
  .describe("The form's notification e-mail is not sent (a rule's own `notify` still is).");
export const SkipAutoresponderAction = z
  .object({ type: z.literal('skip_autoresponder') })
  .strict()
  .describe('The autoresponder does not answer this submission.');

export const RuleAction = z.discriminatedUnion('type', [
  NotifyAction,
  WebhookAction,
  TagAction,
  StageAction,
  AssignAction,
  MoveToSpamAction,
  SkipNotificationsAction,
  SkipAutoresponderAction,
]);
export type RuleAction = z.infer<typeof RuleAction>;
export const ACTION_TYPES = RuleAction.options.map((o) => o.shape.type.value);

const Conditions = z.array(Condition).max(MAX_CONDITIONS);

export const RuleWhen = z
  .union([z.object({ all: Conditions }).strict(), z.object({ any: Conditions }).strict()])
  .describe(
    `\`{ "all": [...] }\`: every condition holds; \`{ "any": [...] }\`: at least one does (at most ${MAX_CONDITIONS}). ` +
      'No conditions (or no `when`): the rule always holds.',
  );

export const Rule = z.object({
  id: z.string().describe('Prefix `rule_`.'),
  form_id: z.string(),
  name: z.string(),
  enabled: z.boolean(),
  position: z.number().int().describe('Rules run in this order, from 1.'),
  on: z.enum(RULE_EVENTS),
  when: RuleWhen,
  actions: z.array(RuleAction),
  stop: z.boolean().describe('When this rule fires, the rules after it do not run.'),
  fallback: z.boolean().describe('Fires only when no other rule did (its conditions must still hold).'),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Rule = z.infer<typeof Rule>;

const RuleFields = {
  name: text(z.string().trim().min(1).max(100)),
  enabled: z.boolean(),
  on: z.enum(RULE_EVENTS).describe('Which submissions the rule runs on: clean ones (default) or spam.'),
  when: RuleWhen,
  actions: z.array(RuleAction).min(1).max(MAX_ACTIONS),
  stop: z.boolean(),
  fallback: z.boolean(),
};

export const CreateRuleBody = z
  .object({
    name: RuleFields.name,
    enabled: RuleFields.enabled.default(true),
    on: RuleFields.on.default('submission.created'),
    when: RuleFields.when.default({ all: [] }),
    actions: RuleFields.actions,
    stop: RuleFields.stop.default(false),
    fallback: RuleFields.fallback.default(false),
    position: z
      .number()
      .int()
      .min(1)
      .max(MAX_RULES)
      .optional()
      .describe('Where it goes (the rules from there move down one); default: last.'),
  })
  .strict();

export const UpdateRuleBody = z
  .object({
    name: RuleFields.name.optional(),
    enabled: RuleFields.enabled.optional(),
    on: RuleFields.on.optional(),
    when: RuleFields.when.optional(),
    actions: RuleFields.actions.optional(),
    stop: RuleFields.stop.optional(),
    fallback: RuleFields.fallback.optional(),
  })
  .strict();

export const OrderRulesBody = z
  .object({
    ids: z
      .array(z.string().max(64))
      .max(MAX_RULES)
      .describe('Every rule of the form, once each, in the order they are to run.'),
  })
  .strict();

/** A rule as the dry run takes it: not saved, so no id needed. */
export const DraftRule = CreateRuleBody.omit({ position: true }).extend({
  id: z.string().max(64).optional().describe('Named in the trace; default `draft_<n>`.'),
});

export const TestRulesBody = z
  .object({
    submission_id: z.string().max(64).optional().describe('A submission of the form to run the rules on.'),
    payload: z
      .record(z.unknown())
      .optional()
      .describe('Or a payload as posted (the `@` fields are then those of a clean post: no category, no score).'),
    rules: z
      .array(DraftRule)
      .max(MAX_RULES)
      .optional()
      .describe("Rules to try instead of the form's saved ones (nothing is saved)."),
  })
  .strict()
  .refine((b) => (b.submission_id === undefined) !== (b.payload === undefined), {
    message: 'Send exactly one of `submission_id` and `payload`.',
    path: ['submission_id'],
  });

export const ConditionTrace = z.object({
  field: z.string(),
  op: z.string(),
  value: z
    .union([z.string(), z.number(), z.array(z.string())])
    .nullable()
    .describe('As written in the condition: a string, a number or a list of strings; null for `exists`, `not_exists`.'),
  actual: z.unknown().describe("The submission's value of the field; null when it has none."),
  holds: z.boolean(),
});

export const RuleTrace = z.object({
  rule_id: z.string(),
  conditions: z.array(ConditionTrace),
  holds: z.boolean().describe('Its conditions hold.'),
  fired: z.boolean(),
  skipped: z
    .enum(['disabled', 'other_event', 'stopped', 'fallback'])
    .nullable()
    .describe(
      'Why it did not run: disabled, it runs on the other event, a rule before it stopped, or it is a fallback and another rule fired.',
    ),
});

export const TestRulesResult = z.object({
  event: z.enum(RULE_EVENTS).describe('The event the rules ran for: `submission.spam` for a spam submission.'),
  fired: z.array(z.string()).describe('The ids of the rules that fired, in order.'),
  actions: z
    .array(z.object({ rule_id: z.string(), action: RuleAction }))
    .describe('What they would do, in order: each action with the rule it is of.'),
  trace: z.array(RuleTrace),
});

export const RuleApplied = z.object({
  rule_id: z.string(),
  name: z.string(),
  actions: z.array(z.string()).describe('The types of the actions it took.'),
});

const FormParams = z.object({ form: z.string().describe('Form id (`frm_…`).') });
const RuleParams = FormParams.extend({ rule: z.string().describe('Rule id (`rule_…`).') });
const RuleData = z.object({ data: Rule });

export const rulesContract = c.router({
  listRules: {
    method: 'GET',
    path: '/v1/forms/:form/rules',
    summary: "A form's rules, in the order they run",
    pathParams: FormParams,
    responses: { 200: z.object({ data: z.array(Rule) }), ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'forms:read', cost: COSTS.meteredRecords },
  },
  createRule: {
    method: 'POST',
    path: '/v1/forms/:form/rules',
    summary: `Add a rule (at most ${MAX_RULES} per form)`,
    pathParams: FormParams,
    body: CreateRuleBody,
    responses: { 201: RuleData, ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'forms:write', cost: COSTS.meteredRow },
  },
  orderRules: {
    method: 'PUT',
    path: '/v1/forms/:form/rules/order',
    summary: 'Put the rules in a new order',
    pathParams: FormParams,
    body: OrderRulesBody,
    responses: { 200: z.object({ data: z.array(Rule) }), ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'forms:write', cost: COSTS.meteredRecords },
  },
  testRules: {
    method: 'POST',
    path: '/v1/forms/:form/rules/test',
    summary: 'Dry run: which rules fire on a submission or a payload, and why (nothing is sent, stored or changed)',
    description:
      'Runs the saved rules (or `rules`, unsaved) on a submission of the form or on a payload, and answers the rules that ' +
      'fire, their actions and a trace of every condition. With `submission_id` the caller needs `submissions:read` too.',
    pathParams: FormParams,
    body: TestRulesBody,
    responses: { 200: z.object({ data: TestRulesResult }), ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'forms:write', cost: COSTS.submission },
  },
  getRule: {
    method: 'GET',
    path: '/v1/forms/:form/rules/:rule',
    summary: 'Show a rule',
    pathParams: RuleParams,
    responses: { 200: RuleData, ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'forms:read', cost: COSTS.meteredRow },
  },
  updateRule: {
    method: 'PUT',
    path: '/v1/forms/:form/rules/:rule',
    summary: 'Change a rule (the fields sent)',
    pathParams: RuleParams,
    body: UpdateRuleBody,
    responses: { 200: RuleData, ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'forms:write', cost: COSTS.meteredRow },
  },
  deleteRule: {
    method: 'DELETE',
    path: '/v1/forms/:form/rules/:rule',
    summary: 'Delete a rule (the rules after it move up)',
    pathParams: RuleParams,
    body: c.noBody(),
    responses: { 200: OkBody, ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'forms:write', cost: COSTS.meteredRow },
  },
});
