import type { AppContext } from '../../context.ts';
import type { Tx } from '../../infra/db/database.ts';
import type { NewDelivery } from '../../infra/db/queries/deliveries.ts';
import type { SubmissionEventRow } from '../../infra/db/queries/submissions.ts';
import { spamEventsAfter, submissionForEvent } from '../../infra/db/queries/webhook-events.ts';
import {
  anySpamSubscriber,
  formEventWebhooksFor,
  lockSpamSubscribers,
  setSpamPosition,
  spamSubscriberTeams,
  teamWebhooksFor,
  webhooksFor,
  type TargetRow,
} from '../../infra/db/queries/webhooks.ts';
import {
  renderBody,
  type Actor,
  type FormClosedEvent,
  type TriageChanges,
  type InsightsEvent,
  type Provider,
  type WebhookEvent,
} from '../../infra/outbound/providers.ts';
import { spamDeliveries } from '../../infra/queue/definitions.ts';
import { newId } from '../shared/ids.ts';
import { submissionEvent } from '../submissions/view.ts';
import { TemplateRenderError } from '../templates/templates.ts';
import { templatedBody } from '../webhooks/body-template.ts';
import { conditionSubject } from '../rules/conditions.ts';
import { matchesFilter } from './filters.ts';
import { firstAttemptAt, queueDeliveries } from './schedule.ts';

/**
 * Which deliveries an event makes: one per subscribed webhook whose filter it meets, its body rendered once,
 * here — a webhook's body template too (domain/webhooks/body-template.ts), so the log stores the bytes sent
 * and a replay resends them. A template that cannot be rendered makes the delivery dead at once, its error
 * `template_error: …`, and sends nothing.
 */

/** How many webhooks one transaction of the spam-deliveries job serves, and how many of a form's spam events it reads at once. */
const SPAM_WEBHOOKS_PER_TX = 20;
const SPAM_EVENTS_PER_READ = 200;
/** Teams read per step of the spam-deliveries job's walk, which serves each team's webhooks on its own. */
const SPAM_TEAMS_PER_READ = 100;
/**
 * A webhook's spam position is written when events were read, and otherwise only once it is this old: every
 * run would cost a row update per subscriber, and a position never moved would make each read of a form
 * without spam scan its processed submissions since the subscription.
 */
const SPAM_POSITION_REFRESH_MS = 60_000;
/** The spam-deliveries job runs again this many seconds after it finished, while any webhook subscribes to spam. */
const SPAM_DELIVERY_INTERVAL_SECONDS = 2;

function newDelivery(target: TargetRow, event: WebhookEvent, submissionId: string | null, at: Date): NewDelivery {
  const made = {
    id: newId('whd'),
    team_id: target.team_id,
    webhook_id: target.id,
    event: event.type,
    submission_id: submissionId,
    next_attempt_at: at,
  };
  let templated: ReturnType<typeof templatedBody>;
  try {
    templated = templatedBody(target, event);
  } catch (err) {
    if (!(err instanceof TemplateRenderError)) throw err;
    return { ...made, request_body: null, error: `template_error: ${err.message}` };
  }
  if (templated) return { ...made, request_body: templated.body, content_type: templated.contentType };
  return { ...made, request_body: renderBody(target.provider as Provider, event, target.config) };
}

/** The webhooks whose filter the submission meets, and those a rule sends it to. */
function matching(
  targets: Array<TargetRow & { by_rule?: boolean }>,
  row: SubmissionEventRow,
  status: 'processed' | 'spam',
): TargetRow[] {
  const subject = conditionSubject(row, status);
  return targets.filter((t) => t.by_rule || matchesFilter(t.filter, subject));
}

/**
 * A submission became `processed`: one delivery per active webhook of its form subscribed to
 * `submission.created` whose filter it meets, and per webhook a fired rule names (`ruleWebhookIds`), created in
 * the same transaction (with their jobs), so none is lost. A webhook that already has this submission's
 * delivery from an earlier pass through processing (it was set back to `received`) gets none: replay is the
 * way to send it again.
 */
export async function createSubmissionDeliveries(
  ctx: AppContext,
  tx: Tx,
  submission: { teamId: string; id: string; formId: string },
  ruleWebhookIds: readonly string[] = [],
): Promise<number> {
  return deliverSubmission(ctx, tx, submission, 'submission.created', { ids: ruleWebhookIds });
}

/** Spam a fired rule sends to webhooks: a `submission.spam` delivery to each (spam subscribers get theirs from the spam job). */
export async function createRuleDeliveries(
  ctx: AppContext,
  tx: Tx,
  submission: { teamId: string; id: string; formId: string },
  ruleWebhookIds: readonly string[],
): Promise<number> {
  return deliverSubmission(ctx, tx, submission, 'submission.spam', { ids: ruleWebhookIds, only: true });
}

async function deliverSubmission(
  ctx: AppContext,
  tx: Tx,
  submission: { teamId: string; id: string; formId: string },
  type: 'submission.created' | 'submission.spam',
  rules: { ids: readonly string[]; only?: boolean },
): Promise<number> {
  const { teamId, id, formId } = submission;
  const targets = await webhooksFor(tx, teamId, formId, type, id, rules);
  if (!targets.length) return 0;
  const row = await submissionForEvent(tx, teamId, id);
  if (!row) return 0;
  const event = submissionEvent(ctx, row, type);
  const at = firstAttemptAt(ctx);
  const status = type === 'submission.spam' ? 'spam' : 'processed';
  const rows = matching(targets, row, status).map((t) => newDelivery(t, event, id, at));
  return (await queueDeliveries(ctx, tx, rows)).length;
}

/**
 * People changed submissions' triage (`submission.updated`): one delivery per active webhook of the form
 * subscribed to it whose filter the submission meets, each submission's body read after the change, in the
 * transaction that made it.
 */
export async function createUpdateDeliveries(
  ctx: AppContext,
  tx: Tx,
  form: { teamId: string; id: string },
  updates: Array<{ submissionId: string; changes: TriageChanges }>,
  actor: Actor,
): Promise<number> {
  const subscribed = await webhooksFor(tx, form.teamId, form.id, 'submission.updated');
  if (!subscribed.length) return 0;
  const at = firstAttemptAt(ctx);
  const rows: NewDelivery[] = [];
  for (const u of updates) {
    const row = await submissionForEvent(tx, form.teamId, u.submissionId);
    if (!row) continue;
    const event = { ...submissionEvent(ctx, row, 'submission.updated'), changes: u.changes, actor };
    const status = row.status === 'spam' ? 'spam' : 'processed';
    rows.push(...matching(subscribed, row, status).map((t) => newDelivery(t, event, u.submissionId, at)));
  }
  return (await queueDeliveries(ctx, tx, rows)).length;
}

/** A team-wide event (ai-insights.regenerated) to every webhook of the team subscribed to it. */
export async function createTeamEventDeliveries(
  ctx: AppContext,
  tx: Tx,
  teamId: string,
  event: InsightsEvent,
): Promise<number> {
  return deliverToEach(ctx, tx, await teamWebhooksFor(tx, teamId, event.type), event);
}

/** One delivery of an event that belongs to no submission per target, due now. */
async function deliverToEach(ctx: AppContext, tx: Tx, targets: TargetRow[], event: WebhookEvent): Promise<number> {
  const at = firstAttemptAt(ctx);
  const made = targets.map((t) => newDelivery(t, event, null, at));
  return (await queueDeliveries(ctx, tx, made)).length;
}

/**
 * An event of one form (form.closed) to every active webhook of that form subscribed to it, filters not applied.
 * A webhook that has a delivery of the event made since `since` gets none: a retried job sends it once.
 */
export async function createFormEventDeliveries(
  ctx: AppContext,
  tx: Tx,
  teamId: string,
  event: FormClosedEvent,
  since: Date,
): Promise<number> {
  return deliverToEach(ctx, tx, await formEventWebhooksFor(tx, teamId, event.form_id, event.type, since), event);
}

/**
 * The spam-deliveries job: for each webhook subscribed to `submission.spam`, the spam its form stored since
 * the webhook's position (at the door, or by moderation — the submission stream's `spam` events), filtered,
 * becomes deliveries; the position moves on in the same transaction, so an event is sent once. The public
 * endpoint's insert does nothing for it (its spam rows carry their stream number already). Webhooks another worker
 * holds are skipped. Returns the deliveries created.
 */
export async function runSpamDeliveries(ctx: AppContext): Promise<number> {
  let created = 0;
  // One read per webhook per run: a form flooded with spam must not hold one transaction (and every other
  // team's spam webhooks) for its whole backlog; the rest goes in the next run, queued at once.
  let backlog = false;
  const serveTeam = async (teamId: string) => {
    let after: string | null = null;
    for (;;) {
      const served = await ctx.db.transaction(async (tx) => {
        const hooks = await lockSpamSubscribers(tx, teamId, SPAM_WEBHOOKS_PER_TX, after);
        for (const hook of hooks) {
          const batch = await spamEventsAfter(tx, teamId, hook.form_id, hook.spam_position, SPAM_EVENTS_PER_READ);
          backlog ||= batch.more;
          const at = firstAttemptAt(ctx);
          const rows = batch.rows.flatMap((row) =>
            matching([hook], row, 'spam').map((t) =>
              newDelivery(t, submissionEvent(ctx, row, 'submission.spam'), row.id, at),
            ),
          );
          created += (await queueDeliveries(ctx, tx, rows)).length;
          if (batch.rows.length > 0 || Date.now() - (hook.spam_position.at ?? 0) > SPAM_POSITION_REFRESH_MS) {
            await setSpamPosition(tx, teamId, hook.id, { ...batch.next, at: Date.now() });
          }
        }
        return hooks;
      });
      if (served.length < SPAM_WEBHOOKS_PER_TX) return;
      after = served[served.length - 1]!.id;
    }
  };
  let after: string | null = null;
  for (;;) {
    const teams = await spamSubscriberTeams(ctx.db, SPAM_TEAMS_PER_READ, after);
    for (const team of teams) await serveTeam(team);
    if (teams.length < SPAM_TEAMS_PER_READ) break;
    after = teams[teams.length - 1]!;
  }
  if (backlog || (await anySpamSubscriber(ctx.db))) {
    await ctx.queue.send(spamDeliveries, {}, { startAfter: backlog ? 0 : SPAM_DELIVERY_INTERVAL_SECONDS });
  }
  return created;
}

/** Starts the spam-deliveries job now (a webhook subscribed to spam); one waits at most (the queue's policy). */
export async function startSpamDeliveries(ctx: AppContext, tx: Tx): Promise<void> {
  await ctx.queue.send(spamDeliveries, {}, { tx });
}
