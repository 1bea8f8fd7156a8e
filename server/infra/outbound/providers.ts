/**
 * What each provider is sent (DESIGN.md "Delivery"): `webhook`, `zapier` and `make` get the event JSON itself;
 * `slack`, `discord` and `teams` a chat message (chat-messages.ts).
 */
import { discord, message, slack, teams } from './chat-messages.ts';
import type { Provider, ProviderConfig, WebhookEvent } from './events.ts';

export * from './events.ts';
export { truncate } from './chat-messages.ts';

// --- The raw event for webhook, Zapier and Make ------------------------------------------------------------

/** The event with its keys in the documented order, whatever order the caller built it in. */
function canonical(event: WebhookEvent): WebhookEvent {
  if (event.type === 'form.closed') {
    return {
      type: event.type,
      form_id: event.form_id,
      form_name: event.form_name,
      reason: event.reason,
      closed_at: event.closed_at,
      max_submissions: event.max_submissions,
      submissions: event.submissions,
    };
  }
  if (event.type !== 'ai-insights.regenerated') {
    const { meta } = event;
    return {
      type: event.type,
      submission_id: event.submission_id,
      form_id: event.form_id,
      form_name: event.form_name,
      received_at: event.received_at,
      payload: event.payload,
      files: event.files.map((f) => ({
        id: f.id,
        filename: f.filename,
        content_type: f.content_type,
        size: f.size,
        url: f.url,
      })),
      meta: {
        category: meta.category,
        score: meta.score,
        referrer: meta.referrer,
        user_agent: meta.user_agent,
        source: meta.source,
      },
      tags: [...event.tags],
      stage: event.stage,
      assignee: event.assignee && { id: event.assignee.id, email: event.assignee.email, name: event.assignee.name },
      ...(event.type === 'submission.spam' ? { spam_reason: event.spam_reason ?? null } : {}),
      ...(event.type === 'submission.updated' ? { changes: event.changes ?? {}, actor: event.actor ?? null } : {}),
      ...(event.test ? { test: true as const } : {}),
    };
  }
  return {
    type: event.type,
    team_id: event.team_id,
    generated_at: event.generated_at,
    period_start: event.period_start,
    period_end: event.period_end,
    submissions_total: event.submissions_total,
    delta_vs_prior_week: event.delta_vs_prior_week,
    summary_md: event.summary_md,
    themes: event.themes.map((t) => ({ label: t.label, count: t.count })),
    categories: event.categories.map((c) => ({ name: c.name, count: c.count })),
  };
}

/**
 * The exact JSON text a delivery sends. Store it as is (text, not jsonb): replays resend these bytes and the
 * signature covers them.
 */
export function renderBody(provider: Provider, event: WebhookEvent, config: ProviderConfig): string {
  switch (provider) {
    case 'slack':
      return JSON.stringify(slack(message(event), config));
    case 'discord':
      return JSON.stringify(discord(message(event), config));
    case 'teams':
      return teams(message(event));
    case 'webhook':
    case 'zapier':
    case 'make':
      return JSON.stringify(canonical(event));
  }
}
