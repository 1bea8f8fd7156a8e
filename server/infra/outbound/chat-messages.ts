import type { ProviderConfig, SubmissionEvent, WebhookEvent } from './events.ts';

/**
 * Chat messages for `slack`, `discord` and `teams`, in each platform's documented format. Submitted text is
 * hostile and unbounded: messages truncate (with "…") to each platform's limits rather than be refused — a
 * message the platform rejects would be retried and then lost — and never cut a character in two.
 */

/**
 * At most `max` UTF-16 units (the unit every platform's limits are stated in, or stricter than), ending in "…"
 * when cut, and never keeping half of a surrogate pair.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/**
 * Splits `budget` among items that want `needs[i]` units: needs below the fair share are met in full, the rest
 * share what is left equally (max-min fairness), so one 100 KB value cannot starve every other field.
 */
function fairShares(needs: number[], budget: number): number[] {
  const order = needs.map((_, i) => i).sort((a, b) => needs[a]! - needs[b]!);
  const shares = needs.map(() => 0);
  let left = budget;
  order.forEach((i, k) => {
    shares[i] = Math.max(1, Math.min(needs[i]!, Math.floor(left / (order.length - k))));
    left -= shares[i]!;
  });
  return shares;
}

/** A field value as chat text: strings as they are, anything else as JSON; empty shows as "—". */
function show(value: unknown): string {
  const text = typeof value === 'string' ? value : value === null || value === undefined ? '' : JSON.stringify(value);
  return text.trim() === '' ? '—' : text;
}

const nonBlank = (s: string) => (s.trim() === '' ? '—' : s);

/** What the three chat formats show, before each one's own markup and limits. */
export type Message = {
  title: string;
  /** Longer prose (the insights summary); empty for submissions and form.closed. */
  text: string;
  fields: Array<[string, string]>;
  links: Array<[string, string]>;
  footer: string;
  timestamp: string;
};

/** Chat messages show at most this much of the insights summary: a teaser, the full text is in the app. */
const SUMMARY_MAX = 1000;

/** A `submission.updated` event's changes, one line each, and who made them. */
function changeLines(event: SubmissionEvent): string[] {
  const c = event.changes ?? {};
  const who = (m: { name: string; email: string } | null) => (m ? m.name || m.email : 'nobody');
  return [
    c.stage && `Stage: ${c.stage.from} → ${c.stage.to}`,
    c.tags && `Tags: ${[...c.tags.added.map((t) => `+${t}`), ...c.tags.removed.map((t) => `-${t}`)].join(' ')}`,
    c.assignee && `Assignee: ${who(c.assignee.from)} → ${who(c.assignee.to)}`,
    event.actor && `By ${who(event.actor)}`,
  ].filter((line): line is string => Boolean(line));
}

export function message(event: WebhookEvent): Message {
  if (event.type === 'form.closed') {
    return {
      title: `${event.form_name} is closed: it reached its limit of ${event.max_submissions} submission${event.max_submissions === 1 ? '' : 's'}`,
      text: '',
      fields: [
        ['Submissions kept', String(event.submissions)],
        ['Limit', String(event.max_submissions)],
      ],
      links: [],
      footer: `Closed ${event.closed_at} · raise settings.max_submissions to reopen it`,
      timestamp: event.closed_at,
    };
  }
  if (event.type !== 'ai-insights.regenerated') {
    const { category, score } = event.meta;
    const spam = event.type === 'submission.spam';
    const footer = [
      category !== null && !spam && `Category: ${category}`,
      spam && `Spam: ${event.spam_reason ?? 'unknown'}`,
      score !== null && `Spam score: ${score.toFixed(2)}`,
      ...(event.type === 'submission.updated' ? changeLines(event) : []),
    ].filter(Boolean);
    const what = spam
      ? 'Spam submission'
      : event.type === 'submission.updated'
        ? 'Submission updated'
        : 'New submission';
    return {
      title: `${event.test ? 'Test: ' : ''}${what} ${event.type === 'submission.updated' ? 'on' : 'to'} ${event.form_name}`,
      text: '',
      fields: Object.entries(event.payload).map(([k, v]) => [nonBlank(k), show(v)]),
      links: event.files.map((f) => [nonBlank(f.filename), f.url]),
      footer: [...footer, `Received ${event.received_at}`].join(' · '),
      timestamp: event.received_at,
    };
  }
  const delta = event.delta_vs_prior_week;
  const pct = Number.isFinite(delta) ? `${delta >= 0 ? '+' : ''}${Math.round(delta * 100)}%` : 'n/a';
  const top = <T>(items: T[], count: (t: T) => number, label: (t: T) => string) =>
    [...items]
      .sort((a, b) => count(b) - count(a))
      .slice(0, 5)
      .map((t) => `${label(t)} (${count(t)})`)
      .join(', ') || '—';
  return {
    title: `Weekly insights: ${event.submissions_total} submissions (${pct} vs the week before)`,
    text: truncate(event.summary_md, SUMMARY_MAX),
    fields: [
      [
        'Top themes',
        top(
          event.themes,
          (t) => t.count,
          (t) => t.label,
        ),
      ],
      [
        'Top categories',
        top(
          event.categories,
          (c) => c.count,
          (c) => c.name,
        ),
      ],
    ],
    links: [],
    footer: `Week ${event.period_start.slice(0, 10)} – ${event.period_end.slice(0, 10)}`,
    timestamp: event.generated_at,
  };
}

/** The optional string keys of a provider's config that are set (non-empty strings). */
function pick(config: ProviderConfig, keys: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of keys) if (typeof config[key] === 'string' && config[key] !== '') out[key] = config[key];
  return out;
}

/** Links joined by `separator`, whole or not at all, within `max` units; "…and N more" for those left out. */
function linkList(links: string[], separator: string, max: number): string {
  const more = (n: number) => `…and ${n} more`;
  let out = '';
  for (const [i, link] of links.entries()) {
    const next = out ? `${out}${separator}${link}` : link;
    const after = links.length - i - 1;
    // Keep room for the note about the links after this one, should the next one not fit.
    if (next.length + (after ? separator.length + more(after).length : 0) > max) {
      return out ? `${out}${separator}${more(links.length - i)}` : more(links.length - i);
    }
    out = next;
  }
  return out;
}

// --- Slack: https://docs.slack.dev/reference/block-kit/blocks ----------------------------------------------

/** Block Kit limits: 50 blocks, header text 150, section text 3000, 10 fields of 2000 each, context text 3000. */
const SLACK = { blocks: 50, header: 150, text: 3000, fields: 10, field: 2000 };
/** Sections of fields we emit at most (10 fields each), so the message stays within 50 blocks. */
const SLACK_FIELD_SECTIONS = 40;
/** Characters of field text per message: Slack states no total, this keeps big submissions readable and small. */
const SLACK_FIELDS_BUDGET = 30_000;

/** Slack's required escaping of user text in mrkdwn (https://docs.slack.dev/messaging/formatting-message-text). */
const slackEscape = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** Escaped text of at most `max` units; the raw text is cut, not the escaped one, so no entity is split. */
function slackText(raw: string, max: number): string {
  let room = Math.min(raw.length, max);
  for (;;) {
    const escaped = slackEscape(truncate(raw, room));
    if (escaped.length <= max || room <= 1) return escaped;
    room = Math.min(room - 1, Math.floor((room * max) / escaped.length));
  }
}

export function slack(m: Message, config: ProviderConfig) {
  const blocks: unknown[] = [
    { type: 'header', text: { type: 'plain_text', text: truncate(m.title, SLACK.header), emoji: false } },
  ];
  if (m.text) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: slackText(m.text, SLACK.text) } });

  const fields = m.fields.slice(0, SLACK_FIELD_SECTIONS * SLACK.fields);
  const labels = fields.map(([k]) => `*${slackText(k, 100)}*\n`);
  const shares = fairShares(
    fields.map(([, v], i) => Math.min(slackEscape(v).length, SLACK.field - labels[i]!.length)),
    SLACK_FIELDS_BUDGET,
  );
  for (let i = 0; i < fields.length; i += SLACK.fields) {
    const section = fields
      .slice(i, i + SLACK.fields)
      .map(([, v], j) => ({ type: 'mrkdwn', text: labels[i + j]! + slackText(v, shares[i + j]!) }));
    blocks.push({ type: 'section', fields: section });
  }
  if (m.fields.length > fields.length) {
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: `…and ${m.fields.length - fields.length} more fields` }],
    });
  }
  if (m.links.length) {
    const links = m.links.map(([name, url]) => `<${slackEscape(url)}|${slackText(name, 200).replaceAll('|', '¦')}>`);
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: `*Files*\n${linkList(links, '\n', SLACK.text - 10)}` },
    });
  }
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: slackText(m.footer, SLACK.text) }] });
  return {
    text: slackText(m.title, SLACK.text),
    blocks: blocks.slice(0, SLACK.blocks),
    ...pick(config, ['channel', 'username', 'icon_emoji']),
  };
}

// --- Discord: https://discord.com/developers/docs/resources/message#embed-object-embed-limits --------------

const DISCORD = {
  content: 2000,
  title: 256,
  description: 4096,
  fields: 25,
  name: 256,
  value: 1024,
  footer: 2048,
  total: 6000,
};
/** Our own, tighter cap on field names and the footer, so 25 of them cannot eat the 6000-unit embed total. */
const DISCORD_NAME = 100;
const DISCORD_FOOTER = 256;

export function discord(m: Message, config: ProviderConfig) {
  const title = truncate(m.title, DISCORD.title);
  const footer = truncate(m.footer, DISCORD_FOOTER);
  let entries = m.fields;
  if (entries.length > DISCORD.fields) {
    entries = [
      ...entries.slice(0, DISCORD.fields - 1),
      ['…', `${entries.length - (DISCORD.fields - 1)} more fields not shown`],
    ];
  }
  const names = entries.map(([k]) => truncate(k, DISCORD_NAME));
  // Markdown links; parentheses in a URL would end the link early.
  const links = m.links.map(
    ([name, url]) => `[${name.replaceAll(/[[\]]/g, '')}](${url.replaceAll('(', '%28').replaceAll(')', '%29')})`,
  );
  const descriptionWanted = [m.text, links.length ? `**Files**\n${links.join('\n')}` : ''].filter(Boolean).join('\n\n');

  // Every text of the embed counts toward 6000: title, description, field names and values, footer.
  const budget = DISCORD.total - title.length - footer.length - names.reduce((n, s) => n + s.length, 0);
  const needs = entries.map(([, v]) => Math.min(v.length, DISCORD.value));
  if (descriptionWanted) needs.push(Math.min(descriptionWanted.length, DISCORD.description));
  const shares = fairShares(needs, budget);

  let description: string | undefined;
  if (descriptionWanted) {
    const max = shares.pop()!;
    description = m.text ? truncate(descriptionWanted, max) : `**Files**\n${linkList(links, '\n', max - 10)}`;
  }
  const fields = entries.map(([, v], i) => {
    const value = truncate(v, shares[i]!);
    return { name: names[i]!, value, inline: value.length <= 40 };
  });
  return {
    content: truncate(m.title, DISCORD.content),
    embeds: [
      { title, ...(description ? { description } : {}), fields, timestamp: m.timestamp, footer: { text: footer } },
    ],
    // Submitted text must never ping @everyone, a role or a user.
    allowed_mentions: { parse: [] },
    ...pick(config, ['username', 'avatar_url']),
  };
}

// --- Teams: https://learn.microsoft.com/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using

/** Teams refuses webhook messages over 28 KB; we aim a little below, measured on the UTF-8 JSON. */
const TEAMS_BYTES = 27_000;
/** Teams shows at most 6 buttons on a card (host config `actions.maxActions`). */
const TEAMS_ACTIONS = 6;
const TEAMS_FACTS = 100;

function teamsCard(m: Message, budget: number) {
  const facts = m.fields.slice(0, TEAMS_FACTS);
  const texts = [m.text, ...facts.flatMap(([k, v]) => [k, v])];
  const shares = fairShares(
    texts.map((t, i) => Math.min(t.length, i % 2 === 1 ? 200 : 2000)),
    budget,
  );
  const body: unknown[] = [
    { type: 'TextBlock', text: truncate(m.title, 500), weight: 'Bolder', size: 'Medium', wrap: true },
  ];
  if (m.text) body.push({ type: 'TextBlock', text: truncate(m.text, shares[0]!), wrap: true });
  if (facts.length) {
    body.push({
      type: 'FactSet',
      facts: facts.map((_, i) => ({
        title: truncate(texts[1 + 2 * i]!, shares[1 + 2 * i]!),
        value: truncate(texts[2 + 2 * i]!, shares[2 + 2 * i]!),
      })),
    });
  }
  if (m.fields.length > facts.length)
    body.push({
      type: 'TextBlock',
      text: `…and ${m.fields.length - facts.length} more fields`,
      isSubtle: true,
      wrap: true,
    });
  const actions = m.links
    .slice(0, TEAMS_ACTIONS)
    .map(([name, url]) => ({ type: 'Action.OpenUrl', title: truncate(name, 100), url }));
  if (m.links.length > actions.length)
    body.push({
      type: 'TextBlock',
      text: `…and ${m.links.length - actions.length} more files`,
      isSubtle: true,
      wrap: true,
    });
  body.push({ type: 'TextBlock', text: truncate(m.footer, 500), isSubtle: true, size: 'Small', wrap: true });
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
          ...(actions.length ? { actions } : {}),
        },
      },
    ],
  };
}

/** The card's text budget shrinks until the JSON fits (escapes and multi-byte characters make bytes ≠ units). */
export function teams(m: Message): string {
  let budget = 20_000;
  for (;;) {
    const json = JSON.stringify(teamsCard(m, budget));
    const bytes = Buffer.byteLength(json);
    if (bytes <= TEAMS_BYTES || budget <= 1) return json;
    budget = Math.min(budget - 1, Math.floor((budget * TEAMS_BYTES * 0.9) / bytes));
  }
}
