/** The events a webhook is sent, and the providers that render them. */
export const providers = ['slack', 'discord', 'teams', 'zapier', 'make', 'webhook'] as const;
/** A webhook's target format. */
export type Provider = (typeof providers)[number];

/** Provider settings, validated by the contract; each provider reads only its own keys. */
export type ProviderConfig = Record<string, unknown>;
/** Keys read for `slack`. */
export type SlackConfig = { channel?: string; username?: string; icon_emoji?: string };
/** Keys read for `discord`. */
export type DiscordConfig = { username?: string; avatar_url?: string };

export type Member = { id: string; email: string; name: string };
export type Actor = (Member & { token: { id: string; name: string } | null }) | null;

/** What a `submission.updated` event says changed: only the fields that did. */
export type TriageChanges = {
  stage?: { from: string; to: string };
  tags?: { added: string[]; removed: string[] };
  assignee?: { from: Member | null; to: Member | null };
};

/**
 * `submission.created`: a clean submission was processed; `submission.spam`: one was stored as spam;
 * `submission.updated`: a person changed its stage, tags or assignee.
 */
export type SubmissionEvent = {
  type: 'submission.created' | 'submission.spam' | 'submission.updated';
  submission_id: string;
  form_id: string;
  form_name: string;
  received_at: string;
  payload: Record<string, unknown>;
  files: Array<{ id: string; filename: string; content_type: string; size: number; url: string }>;
  meta: {
    category: string | null;
    score: number | null;
    referrer: string | null;
    user_agent: string | null;
    source: 'form' | 'api';
  };
  tags: string[];
  stage: string;
  assignee: Member | null;
  /** `submission.spam` only: why it was filed as spam. */
  spam_reason?: string | null;
  /** Only on a test call's event (`POST …/webhooks/{id}/test`). */
  test?: true;
  /** `submission.updated` only. */
  changes?: TriageChanges;
  actor?: Actor;
};

/** `ai-insights.regenerated`: a team's weekly insights were (re)computed. */
export type InsightsEvent = {
  type: 'ai-insights.regenerated';
  team_id: string;
  generated_at: string;
  period_start: string;
  period_end: string;
  submissions_total: number;
  /** Relative change as a fraction: 0.18 is a rise of 18 %. */
  delta_vs_prior_week: number;
  summary_md: string;
  themes: Array<{ label: string; count: number }>;
  categories: Array<{ name: string; count: number }>;
};

/** `form.closed`: a form took the last place of its `max_submissions`. */
export type FormClosedEvent = {
  type: 'form.closed';
  form_id: string;
  form_name: string;
  reason: 'limit_reached';
  /** ISO 8601, UTC, milliseconds. */
  closed_at: string;
  max_submissions: number;
  /** The clean submissions the form keeps. */
  submissions: number;
};

/** Any event a webhook can receive. */
export type WebhookEvent = SubmissionEvent | InsightsEvent | FormClosedEvent;
