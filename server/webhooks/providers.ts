/**
 * What each provider is sent: `webhook`, `zapier` and `make` get the event JSON itself; `slack`, `discord` and
 * `teams` a chat message in their documented format. Chat messages truncate (with "…") to each platform's
 * limits rather than be refused, and never split a character.
 */

export const providers = ['slack', 'discord', 'teams', 'zapier', 'make', 'webhook'] as const;
export type Provider = (typeof providers)[number];

export type SubmissionEvent = {
  type: 'submission.created';
  submission_id: string;
  form_id: string;
  form_name: string;
  received_at: string;
  payload: Record<string, unknown>;
  files: Array<{ id: string; filename: string; content_type: string; size: number; url: string }>;
  meta: { category: string | null; score: number | null; referrer: string | null; user_agent: string | null };
};

export type InsightsEvent = {
  type: 'ai-insights.regenerated';
  team_id: string;
  generated_at: string;
  period_start: string;
  period_end: string;
  submissions_total: number;
  delta_vs_prior_week: number;
  summary_md: string;
  themes: Array<{ label: string; count: number }>;
  categories: Array<{ name: string; count: number }>;
};

export type WebhookEvent = SubmissionEvent | InsightsEvent;

/** At most `max` UTF-16 units, cut on a code point boundary, "…" when cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1; // do not keep half a surrogate pair
  return `${text.slice(0, end)}…`;
}

/** A field value as chat text: strings as they are, anything else as JSON. */
function show(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}

/** One line per notable fact, shared by the chat formats. */
type Message = { title: string; fields: Array<[string, string]>; footer: string; links: Array<[string, string]>; text: string; timestamp: string };

function message(event: WebhookEvent): Message {
  if (event.type === 'submission.created') {
    const footer = [event.meta.category && `Category: ${event.meta.category}`, event.meta.score !== null && `Spam score: ${event.meta.score.toFixed(2)}`]
      .filter(Boolean)
      .join(' · ');
    return {
      title: `New submission to ${event.form_name}`,
      fields: Object.entries(event.payload).map(([k, v]) => [k, show(v)]),
      footer: footer || `Submission ${event.submission_id}`,
      links: event.files.map((f) => [f.filename, f.url]),
      text: '',
      timestamp: event.received_at,
    };
  }
  const pct = `${event.delta_vs_prior_week >= 0 ? '+' : ''}${Math.round(event.delta_vs_prior_week * 100)}%`;
  return {
    title: `Weekly insights: ${event.submissions_total} submissions (${pct} vs the week before)`,
    fields: [
      ['Themes', event.themes.slice(0, 5).map((t) => `${t.label} (${t.count})`).join(', ') || '—'],
      ['Top categories', event.categories.slice(0, 5).map((c) => `${c.name} (${c.count})`).join(', ') || '—'],
    ],
    footer: `${event.period_start.slice(0, 10)} – ${event.period_end.slice(0, 10)}`,
    links: [],
    text: event.summary_md,
    timestamp: event.generated_at,
  };
}

const slackEscape = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

function slack(m: Message, config: Record<string, unknown>) {
  const blocks: unknown[] = [{ type: 'header', text: { type: 'plain_text', text: truncate(m.title, 150), emoji: false } }];
  if (m.text) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: truncate(slackEscape(m.text), 3000) } });
  // Up to 10 fields per section; at most 40 sections of fields keep the message within Slack's 50 blocks.
  const fields = m.fields.slice(0, 400);
  for (let i = 0; i < fields.length; i += 10) {
    blocks.push({
      type: 'section',
      fields: fields.slice(i, i + 10).map(([k, v]) => ({ type: 'mrkdwn', text: truncate(`*${slackEscape(k)}*\n${slackEscape(v) || '—'}`, 2000) })),
    });
  }
  if (m.fields.length > fields.length) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `…and ${m.fields.length - fields.length} more fields` }] });
  if (m.links.length) {
    const links = m.links.map(([name, url]) => `<${url}|${slackEscape(name).replaceAll('|', '¦')}>`).join('\n');
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: truncate(`*Files*\n${links}`, 3000) } });
  }
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: truncate(slackEscape(`${m.footer} · ${m.timestamp}`), 3000) }] });
  return {
    ...(typeof config.channel === 'string' ? { channel: config.channel } : {}),
    ...(typeof config.username === 'string' ? { username: config.username } : {}),
    ...(typeof config.icon_emoji === 'string' ? { icon_emoji: config.icon_emoji } : {}),
    text: truncate(slackEscape(m.title), 3000),
    blocks: blocks.slice(0, 50),
  };
}

/** Discord's embed limits: https://discord.com/developers/docs/resources/message#embed-object-embed-limits */
const DISCORD = { content: 2000, title: 256, description: 4096, fields: 25, name: 256, value: 1024, footer: 2048, total: 6000 };

function discord(m: Message, config: Record<string, unknown>) {
  let budget = DISCORD.total;
  const take = (s: string, max: number) => {
    const t = truncate(s, Math.max(1, Math.min(max, budget)));
    budget -= t.length;
    return t;
  };
  const title = take(m.title, DISCORD.title);
  const footer = take(m.footer, DISCORD.footer);
  const links = m.links.map(([name, url]) => `[${name.replaceAll(/[[\]]/g, '')}](${url})`).join('\n');
  const descriptionText = [m.text, links && `**Files**\n${links}`].filter(Boolean).join('\n\n');
  const description = descriptionText ? take(descriptionText, Math.min(DISCORD.description, budget - 200)) : undefined;
  const fields: Array<{ name: string; value: string; inline: boolean }> = [];
  for (const [k, v] of m.fields.slice(0, DISCORD.fields)) {
    if (budget < 2) break;
    const name = take(k || '—', Math.min(DISCORD.name, Math.max(1, Math.floor(budget / 4))));
    if (budget < 1) break;
    fields.push({ name, value: take(v || '—', DISCORD.value), inline: v.length <= 40 });
  }
  return {
    ...(typeof config.username === 'string' ? { username: config.username } : {}),
    ...(typeof config.avatar_url === 'string' ? { avatar_url: config.avatar_url } : {}),
    content: truncate(m.title, DISCORD.content),
    embeds: [{ title, ...(description ? { description } : {}), fields, timestamp: m.timestamp, footer: { text: footer } }],
    allowed_mentions: { parse: [] },
  };
}

function teams(m: Message) {
  const body: unknown[] = [{ type: 'TextBlock', text: truncate(m.title, 500), weight: 'Bolder', size: 'Medium', wrap: true }];
  if (m.text) body.push({ type: 'TextBlock', text: truncate(m.text, 10_000), wrap: true });
  if (m.fields.length) body.push({ type: 'FactSet', facts: m.fields.slice(0, 100).map(([k, v]) => ({ title: truncate(k, 200), value: truncate(v || '—', 2000) })) });
  body.push({ type: 'TextBlock', text: truncate(`${m.footer} · ${m.timestamp}`, 500), isSubtle: true, size: 'Small', wrap: true });
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          ...(m.links.length ? { actions: m.links.slice(0, 10).map(([name, url]) => ({ type: 'Action.OpenUrl', title: truncate(name, 100), url })) } : {}),
        },
      },
    ],
  };
}

/** The exact JSON text a delivery sends (kept byte for byte for replays and signatures). */
export function renderBody(provider: Provider, event: WebhookEvent, config: Record<string, unknown>): string {
  switch (provider) {
    case 'slack':
      return JSON.stringify(slack(message(event), config));
    case 'discord':
      return JSON.stringify(discord(message(event), config));
    case 'teams':
      return JSON.stringify(teams(message(event)));
    default:
      return JSON.stringify(event);
  }
}
