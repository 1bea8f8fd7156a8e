import type { z } from 'zod';
import { MAX_RULES, type CreateRuleBody, type RuleAction, type UpdateRuleBody } from '../../../contract/rules.ts';
import type { Stage } from '../../../contract/triage.ts';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../infra/db/database.ts';
import * as queries from '../../infra/db/queries/rules.ts';
import { recordSpamRules } from '../../infra/db/queries/forms.ts';
import { findWebhook } from '../../infra/db/queries/webhooks.ts';
import type { Caller } from '../accounts/caller.ts';
import { requireForm, requireFormSettings } from '../forms/live-form.ts';
import { requestConfirmations } from '../notifications/addresses.ts';
import { AppError, notFound, validationFailed, type ErrorDetail } from '../shared/errors.ts';
import { isId, newId } from '../shared/ids.ts';
import { iso } from '../shared/timestamps.ts';
import { resolveAssignee } from '../submissions/triage.ts';
import { assertStage } from '../submissions/triage-rules.ts';
import { parseTemplate, TemplateError } from '../templates/templates.ts';

/** A form's rules: listed, created, changed, ordered and deleted, each checked against the form it acts on. */

type CreateInput = z.infer<typeof CreateRuleBody>;
type UpdateInput = z.infer<typeof UpdateRuleBody>;

export function ruleView(r: queries.RuleRow) {
  return {
    id: r.id,
    form_id: r.form_id,
    name: r.name,
    enabled: r.enabled,
    position: r.position,
    on: r.on_event as 'submission.created' | 'submission.spam',
    when: r.when as { all: [] },
    actions: r.actions as RuleAction[],
    stop: r.stop,
    fallback: r.fallback,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/**
 * What each action names must be the form's and the team's now: a webhook of the form, a member, one of the
 * form's `stages`, a subject template that parses. `prefix` is where the actions are in the body (`actions`).
 */
export async function checkActions(
  sql: Tx | AppContext['db'],
  caller: Caller,
  form: { id: string; stages: readonly Stage[] },
  actions: readonly RuleAction[],
  prefix = 'actions',
): Promise<void> {
  const problems: ErrorDetail[] = [];
  for (const [i, a] of actions.entries()) {
    const at = `${prefix}.${i}`;
    try {
      if (a.type === 'webhook') {
        const hook = isId('wh', a.webhook_id)
          ? await findWebhook(sql, caller.teamId, a.webhook_id, { formId: form.id })
          : undefined;
        if (!hook) problems.push({ in: 'body', path: `${at}.webhook_id`, message: 'Not a webhook of this form.' });
      } else if (a.type === 'assign') await resolveAssignee(sql, caller, a.user_id, 'body', `${at}.user_id`);
      else if (a.type === 'stage') assertStage(form.stages, a.to, 'body', `${at}.to`);
      else if (a.type === 'notify' && a.subject !== undefined) parseTemplate(a.subject);
    } catch (err) {
      if (err instanceof TemplateError) problems.push({ in: 'body', path: `${at}.subject`, message: err.message });
      else if (err instanceof AppError && err.code === 'validation_failed')
        problems.push(...(err.extra.details as ErrorDetail[]));
      else throw err;
    }
  }
  if (problems.length) throw validationFailed(problems);
}

async function requireRule(
  sql: Tx | AppContext['db'],
  teamId: string,
  formId: string,
  id: string,
): Promise<queries.RuleRow> {
  const rule = await queries.findRule(sql, teamId, formId, id);
  if (!rule) throw notFound('Rule');
  return rule;
}

export async function listRules(ctx: AppContext, caller: Caller, formId: string) {
  await requireForm(ctx, caller, formId);
  return (await queries.listRules(ctx.db, caller.teamId, formId)).map(ruleView);
}

export async function getRule(ctx: AppContext, caller: Caller, formId: string, id: string) {
  await requireForm(ctx, caller, formId);
  return ruleView(await requireRule(ctx.db, caller.teamId, formId, id));
}

/** What a notify action's addresses need before they receive anything (confirmation, as the form's own). */
async function confirmAddresses(ctx: AppContext, tx: Tx, caller: Caller, formId: string, actions: RuleAction[]) {
  const emails = actions.flatMap((a) => (a.type === 'notify' ? a.to : []));
  await requestConfirmations(ctx, tx, caller.teamId, formId, emails);
}

export async function createRule(ctx: AppContext, caller: Caller, formId: string, input: CreateInput) {
  const { stages } = await requireFormSettings(ctx, caller, formId);
  await checkActions(ctx.db, caller, { id: formId, stages }, input.actions);
  const row = await ctx.db.transaction(async (tx) => {
    const count = await queries.lockFormRules(tx, caller.teamId, formId);
    if (count >= MAX_RULES)
      throw validationFailed([{ in: 'body', path: '(root)', message: `A form holds at most ${MAX_RULES} rules.` }]);
    const created = await queries.insertRule(tx, {
      id: newId('rule'),
      teamId: caller.teamId,
      formId,
      position: Math.min(input.position ?? count + 1, count + 1),
      name: input.name,
      enabled: input.enabled,
      on_event: input.on,
      when: input.when,
      actions: input.actions,
      stop: input.stop,
      fallback: input.fallback,
    });
    await recordSpamRules(tx, caller.teamId, formId);
    await confirmAddresses(ctx, tx, caller, formId, input.actions);
    return created;
  });
  return ruleView(row);
}

export async function updateRule(ctx: AppContext, caller: Caller, formId: string, id: string, input: UpdateInput) {
  const { stages } = await requireFormSettings(ctx, caller, formId);
  if (input.actions) await checkActions(ctx.db, caller, { id: formId, stages }, input.actions);
  const row = await ctx.db.transaction(async (tx) => {
    await queries.lockFormRules(tx, caller.teamId, formId);
    const current = await requireRule(tx, caller.teamId, formId, id);
    const updated = await queries.updateRule(tx, caller.teamId, id, {
      name: input.name ?? current.name,
      enabled: input.enabled ?? current.enabled,
      on_event: input.on ?? current.on_event,
      when: input.when ?? current.when,
      actions: input.actions ?? current.actions,
      stop: input.stop ?? current.stop,
      fallback: input.fallback ?? current.fallback,
    });
    await recordSpamRules(tx, caller.teamId, formId);
    if (input.actions) await confirmAddresses(ctx, tx, caller, formId, input.actions);
    return updated;
  });
  return ruleView(row);
}

export async function deleteRule(ctx: AppContext, caller: Caller, formId: string, id: string): Promise<void> {
  await requireForm(ctx, caller, formId);
  await ctx.db.transaction(async (tx) => {
    await queries.lockFormRules(tx, caller.teamId, formId);
    await requireRule(tx, caller.teamId, formId, id);
    await queries.deleteRule(tx, caller.teamId, formId, id);
    await recordSpamRules(tx, caller.teamId, formId);
  });
}

/** `ids` must name every rule of the form once: the new order. */
export async function orderRules(ctx: AppContext, caller: Caller, formId: string, ids: string[]) {
  await requireForm(ctx, caller, formId);
  const rows = await ctx.db.transaction(async (tx) => {
    await queries.lockFormRules(tx, caller.teamId, formId);
    const current = await queries.listRules(tx, caller.teamId, formId);
    const known = new Set(current.map((r) => r.id));
    const unique = new Set(ids);
    if (unique.size !== ids.length || ids.length !== known.size || ids.some((i) => !known.has(i)))
      throw validationFailed([
        {
          in: 'body',
          path: 'ids',
          message: `Name every rule of the form once (${known.size}): ${[...known].join(', ') || 'it has none'}.`,
        },
      ]);
    await queries.orderRules(tx, caller.teamId, formId, ids);
    return queries.listRules(tx, caller.teamId, formId);
  });
  return rows.map(ruleView);
}
