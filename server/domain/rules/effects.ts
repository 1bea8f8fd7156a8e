import type { RuleAction } from '../../../contract/rules.ts';
import type { RunnableRule } from './engine.ts';

/** What the rules that fired on a submission do to it, gathered in firing order (a later stage or assignee wins). */
export type RuleEffects = {
  /** Recorded on the submission: `rules_applied`. */
  applied: Array<{ rule_id: string; name: string; actions: string[] }>;
  addTags: string[];
  stage: string | null;
  assigneeId: string | null;
  /** The reason of the first `move_to_spam`. */
  spamReason: string | null;
  skipNotifications: boolean;
  skipAutoresponder: boolean;
  /** The form's own addresses are not mailed (a fired `notify` said `replace_default`). */
  replaceDefault: boolean;
  notify: Array<{ ruleId: string; to: string[]; subject: string | null }>;
  webhookIds: string[];
};

export function effectsOf(fired: readonly RunnableRule[]): RuleEffects {
  const e: RuleEffects = {
    applied: [],
    addTags: [],
    stage: null,
    assigneeId: null,
    spamReason: null,
    skipNotifications: false,
    skipAutoresponder: false,
    replaceDefault: false,
    notify: [],
    webhookIds: [],
  };
  for (const rule of fired) {
    const actions = rule.actions as RuleAction[];
    e.applied.push({ rule_id: rule.id, name: rule.name, actions: actions.map((a) => a.type) });
    for (const a of actions) apply(e, rule.id, a);
  }
  return e;
}

function apply(e: RuleEffects, ruleId: string, a: RuleAction): void {
  switch (a.type) {
    case 'notify':
      e.notify.push({ ruleId, to: a.to, subject: a.subject ?? null });
      if (a.replace_default) e.replaceDefault = true;
      return;
    case 'webhook':
      if (!e.webhookIds.includes(a.webhook_id)) e.webhookIds.push(a.webhook_id);
      return;
    case 'tag':
      for (const tag of a.add) if (!e.addTags.includes(tag)) e.addTags.push(tag);
      return;
    case 'stage':
      e.stage = a.to;
      return;
    case 'assign':
      e.assigneeId = a.user_id;
      return;
    case 'move_to_spam':
      e.spamReason ??= a.reason;
      return;
    case 'skip_notifications':
      e.skipNotifications = true;
      return;
    case 'skip_autoresponder':
      e.skipAutoresponder = true;
  }
}
