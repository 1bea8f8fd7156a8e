import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  providers,
  renderBody,
  truncate,
  type InsightsEvent,
  type Provider,
  type SubmissionEvent,
} from '../../server/infra/outbound/providers.ts';

// --- Each platform's documented message shape and limits, written independently of the renderer ----------

/** Slack Block Kit (docs.slack.dev/reference/block-kit): 50 blocks; header ≤150; section text ≤3000, ≤10 fields ≤2000. */
const slackTextObject = (max: number) =>
  z
    .object({ type: z.enum(['mrkdwn', 'plain_text']), text: z.string().min(1).max(max), emoji: z.boolean().optional() })
    .strict();
const SlackBlock = z.union([
  z
    .object({
      type: z.literal('header'),
      text: z
        .object({ type: z.literal('plain_text'), text: z.string().min(1).max(150), emoji: z.boolean().optional() })
        .strict(),
    })
    .strict(),
  z
    .object({
      type: z.literal('section'),
      text: slackTextObject(3000).optional(),
      fields: z.array(slackTextObject(2000)).min(1).max(10).optional(),
    })
    .strict()
    .refine((b) => b.text || b.fields, 'a section needs text or fields'),
  z.object({ type: z.literal('context'), elements: z.array(slackTextObject(3000)).min(1).max(10) }).strict(),
]);
const SlackMessage = z
  .object({
    text: z.string().min(1).max(40_000),
    blocks: z.array(SlackBlock).min(1).max(50),
    channel: z.string().min(1).optional(),
    username: z.string().min(1).optional(),
    icon_emoji: z.string().min(1).optional(),
  })
  .strict();

/** Discord (discord.com/developers/docs/resources/message#embed-object-embed-limits). */
const nonBlank = z.string().refine((s) => s.trim().length > 0, 'must not be empty');
const DiscordEmbed = z
  .object({
    title: z.string().max(256).optional(),
    description: z.string().min(1).max(4096).optional(),
    fields: z
      .array(
        z
          .object({
            name: nonBlank.pipe(z.string().max(256)),
            value: nonBlank.pipe(z.string().max(1024)),
            inline: z.boolean().optional(),
          })
          .strict(),
      )
      .max(25),
    timestamp: z.string().datetime({ offset: true }),
    footer: z.object({ text: nonBlank.pipe(z.string().max(2048)) }).strict(),
  })
  .strict();
/** Every title, description, field name and value and footer text of all embeds together: at most 6000 characters. */
const embedTotal = (embeds: Array<z.infer<typeof DiscordEmbed>>) =>
  embeds.reduce(
    (n, e) =>
      n +
      (e.title?.length ?? 0) +
      (e.description?.length ?? 0) +
      e.footer.text.length +
      e.fields.reduce((m, f) => m + f.name.length + f.value.length, 0),
    0,
  );
const DiscordMessage = z
  .object({
    content: z.string().max(2000),
    embeds: z.array(DiscordEmbed).max(10),
    allowed_mentions: z.object({ parse: z.array(z.string()).length(0) }).strict(),
    username: z.string().min(1).max(80).optional(),
    avatar_url: z.string().url().optional(),
  })
  .strict()
  .refine((m) => embedTotal(m.embeds) <= 6000, 'embeds exceed 6000 characters in total');

/** Teams incoming webhook: a message with one Adaptive Card attachment (schema 1.4), at most 28 KB. */
const TextBlock = z
  .object({
    type: z.literal('TextBlock'),
    text: z.string().min(1),
    wrap: z.boolean().optional(),
    weight: z.enum(['Default', 'Lighter', 'Bolder']).optional(),
    size: z.enum(['Default', 'Small', 'Medium', 'Large', 'ExtraLarge']).optional(),
    isSubtle: z.boolean().optional(),
  })
  .strict();
const FactSet = z
  .object({
    type: z.literal('FactSet'),
    facts: z.array(z.object({ title: z.string(), value: z.string() }).strict()).min(1),
  })
  .strict();
const OpenUrl = z
  .object({ type: z.literal('Action.OpenUrl'), title: z.string().min(1), url: z.string().url() })
  .strict();
const TeamsMessage = z
  .object({
    type: z.literal('message'),
    attachments: z
      .array(
        z
          .object({
            contentType: z.literal('application/vnd.microsoft.card.adaptive'),
            contentUrl: z.null(),
            content: z
              .object({
                $schema: z.literal('http://adaptivecards.io/schemas/adaptive-card.json'),
                type: z.literal('AdaptiveCard'),
                version: z.literal('1.4'),
                body: z.array(z.union([TextBlock, FactSet])).min(1),
                actions: z.array(OpenUrl).min(1).max(6).optional(),
              })
              .strict(),
          })
          .strict(),
      )
      .length(1),
  })
  .strict();

const schemas = { slack: SlackMessage, discord: DiscordMessage, teams: TeamsMessage } as const;
const chat = ['slack', 'discord', 'teams'] as const;
const raw = ['webhook', 'zapier', 'make'] as const;

/** Every string in a parsed body (keys included). */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      strings(v, out);
    }
  }
  return out;
}

/** Every Slack mrkdwn text: the top-level fallback and mrkdwn text objects in blocks. */
function slackMrkdwn(message: z.infer<typeof SlackMessage>): string[] {
  const texts = [message.text];
  for (const block of message.blocks) {
    if (block.type === 'section')
      texts.push(...[block.text, ...(block.fields ?? [])].filter((t) => t?.type === 'mrkdwn').map((t) => t!.text));
    if (block.type === 'context') texts.push(...block.elements.filter((t) => t.type === 'mrkdwn').map((t) => t.text));
  }
  return texts;
}

/** Parses and validates a chat body, and checks what every platform needs: no half surrogate pair anywhere. */
function validChat(provider: (typeof chat)[number], body: string) {
  const parsed: unknown = JSON.parse(body);
  const result = schemas[provider].safeParse(parsed);
  expect(result.success ? [] : result.error.issues.slice(0, 5)).toEqual([]);
  for (const s of strings(parsed))
    expect(s.isWellFormed(), `ill-formed string ${JSON.stringify(s.slice(-20))}`).toBe(true);
  if (provider === 'teams') expect(Buffer.byteLength(body)).toBeLessThanOrEqual(28 * 1024);
  if (provider === 'slack') {
    for (const text of slackMrkdwn(parsed as z.infer<typeof SlackMessage>)) {
      // Our own file links are the only markup allowed; submitted &, < and > must arrive escaped.
      const userText = text.replaceAll(/<https:\/\/[^\s<>|]+\|[^<>]*>/g, '');
      expect(userText).not.toMatch(/[<>]/);
      expect(userText).not.toMatch(/&(?!amp;|lt;|gt;)/);
    }
  }
  return parsed as Record<string, unknown>;
}

// --- Events ------------------------------------------------------------------------------------------------

const normal: SubmissionEvent = {
  type: 'submission.created',
  submission_id: 'sub_01JTEST',
  form_id: 'frm_01JTEST',
  form_name: 'Contact',
  received_at: '2025-05-01T10:00:00.000Z',
  payload: {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    message: 'Hello <b>there</b> & welcome',
    age: 36,
    subscribed: true,
    tags: ['a', 'b'],
    address: { city: 'London' },
    empty: '',
    nothing: null,
  },
  files: [
    {
      id: 'fil_1',
      filename: 'cv.pdf',
      content_type: 'application/pdf',
      size: 1234,
      url: 'https://intake.example/d/fil_1?sig=abc&exp=1',
    },
  ],
  meta: {
    category: 'support',
    score: 0.12,
    referrer: 'https://example.com/contact',
    user_agent: 'Mozilla/5.0',
    source: 'form',
  },
  tags: ['vip'],
  stage: 'new',
  assignee: null,
};

const KB100 = 100_000;
const fill = (unit: string, units = KB100) => unit.repeat(Math.ceil(units / unit.length));
const mentions =
  '@everyone @here <!channel> <!here> <@U123> <@&456> **bold** _it_ ~s~ `code` [x](https://evil.example) <script>alert(1)</script> > quote | pipe ';

function hostile(offset: number): SubmissionEvent {
  const payload: Record<string, unknown> = {};
  const values = [
    () => 'x'.repeat(offset) + fill('😀'),
    () => fill('😀'),
    () => fill('&<>'),
    () => fill(mentions),
    () => ({ nested: fill('a'), list: [1, 2, '😀'.repeat(1000)] }),
    () => 'y😀',
    () => '   ',
    () => 42,
    () => fill('é😀ü\u0001"\\'),
  ];
  const keys = ['', '   ', '<!channel> @everyone', 'k'.repeat(10_000), '😀'.repeat(5_000), '*_~`|>&'];
  for (let i = 0; i < 200; i += 1)
    payload[keys[i] ?? `field_${i}_${'😀'.repeat(i % 3)}`] = values[i % values.length]!();
  return {
    type: 'submission.created',
    submission_id: 'sub_hostile',
    form_id: 'frm_hostile',
    form_name: `${'z'.repeat(offset)}@everyone <!channel> <b>${'😀'.repeat(3000)}`,
    received_at: '2025-05-01T10:00:00.000Z',
    payload,
    files: Array.from({ length: 30 }, (_, i) => ({
      id: `fil_${i}`,
      filename: `<!channel>|](evil) ${'😀'.repeat(200 + i)}.pdf`,
      content_type: 'application/pdf',
      size: i,
      url: `https://intake.example/d/fil_${i}?sig=${'a'.repeat(100)}&exp=1`,
    })),
    meta: {
      category: 'sales',
      score: 0.97,
      referrer: fill('<!channel>', 5000),
      user_agent: fill('😀', 10_000),
      source: 'api',
    },
    tags: Array.from({ length: 20 }, (_, i) => `${'t'.repeat(48)}${i}`),
    stage: 'in_progress',
    assignee: { id: 'usr_1', email: 'a@example.com', name: `<!channel> ${'😀'.repeat(100)}` },
  };
}

const insights: InsightsEvent = {
  type: 'ai-insights.regenerated',
  team_id: 'team_1',
  generated_at: '2025-05-05T06:00:00.000Z',
  period_start: '2025-04-28T00:00:00.000Z',
  period_end: '2025-05-05T00:00:00.000Z',
  submissions_total: 128,
  delta_vs_prior_week: 0.18,
  summary_md: '**Pricing** questions rose; two bug reports about uploads.',
  themes: [
    { label: 'pricing', count: 12 },
    { label: 'uploads', count: 30 },
    { label: 'login', count: 3 },
    { label: 'docs', count: 5 },
    { label: 'api', count: 8 },
    { label: 'rare', count: 1 },
  ],
  categories: [
    { name: 'support', count: 70 },
    { name: 'sales', count: 40 },
  ],
};

const hostileInsights = (offset: number): InsightsEvent => ({
  ...insights,
  delta_vs_prior_week: -0.054,
  summary_md: 'x'.repeat(offset) + fill(`😀 ${mentions}`),
  themes: Array.from({ length: 1000 }, (_, i) => ({ label: `${'😀'.repeat(500)}<!channel>${i}`, count: i })),
  categories: Array.from({ length: 100 }, (_, i) => ({ name: fill('&<>', 5000), count: i })),
});

const config = {
  channel: '#leads',
  username: 'Intake',
  icon_emoji: ':inbox_tray:',
  avatar_url: 'https://intake.example/logo.png',
  other: 'ignored',
};

// --- Tests -------------------------------------------------------------------------------------------------

describe('truncate', () => {
  it('keeps text within the limit, marks the cut with "…", and never splits a surrogate pair', () => {
    expect(truncate('hello', 5)).toBe('hello');
    expect(truncate('hello!', 5)).toBe('hell…');
    expect(truncate('ab😀', 3)).toBe('ab…');
    expect(truncate('a😀b', 3)).toBe('a…');
    expect(truncate('😀😀', 2)).toBe('…');
    for (let max = 1; max < 12; max += 1) {
      for (const text of ['😀'.repeat(10), `x${'😀'.repeat(10)}`]) {
        const cut = truncate(text, max);
        expect(cut.length).toBeLessThanOrEqual(max);
        expect(cut.isWellFormed()).toBe(true);
      }
    }
  });
});

describe('renderBody: webhook, zapier, make', () => {
  it.each(raw)('%s sends the event itself, keys in the documented order', (provider) => {
    const body = renderBody(provider, normal, {});
    const parsed = JSON.parse(body) as Record<string, unknown>;
    expect(parsed).toEqual(normal);
    expect(Object.keys(parsed)).toEqual([
      'type',
      'submission_id',
      'form_id',
      'form_name',
      'received_at',
      'payload',
      'files',
      'meta',
      'tags',
      'stage',
      'assignee',
    ]);
    expect(Object.keys(parsed.meta as object)).toEqual(['category', 'score', 'referrer', 'user_agent', 'source']);
    // Built in another key order, the bytes are the same (they are stored, replayed and signed).
    const { meta, files, payload, type, ...rest } = normal;
    const shuffled = {
      meta: {
        source: meta.source,
        user_agent: meta.user_agent,
        score: meta.score,
        referrer: meta.referrer,
        category: meta.category,
      },
      files,
      ...rest,
      payload,
      type,
    };
    expect(renderBody(provider, shuffled, {})).toBe(body);
  });

  it.each(raw)('%s sends hostile and insights events unchanged', (provider) => {
    const event = hostile(1);
    expect(JSON.parse(renderBody(provider, event, config))).toEqual(event);
    expect(JSON.parse(renderBody(provider, insights, config))).toEqual(insights);
    expect(Object.keys(JSON.parse(renderBody(provider, insights, {})) as object)).toEqual([
      'type',
      'team_id',
      'generated_at',
      'period_start',
      'period_end',
      'submissions_total',
      'delta_vs_prior_week',
      'summary_md',
      'themes',
      'categories',
    ]);
  });
});

describe('renderBody: chat providers', () => {
  it('slack: header, escaped fields, file links, context, config', () => {
    const m = validChat('slack', renderBody('slack', normal, config)) as z.infer<typeof SlackMessage>;
    expect(m.text).toBe('New submission to Contact');
    expect(m).toMatchObject({ channel: '#leads', username: 'Intake', icon_emoji: ':inbox_tray:' });
    expect(m).not.toHaveProperty('avatar_url');
    expect(m.blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: 'New submission to Contact', emoji: false },
    });
    const fields = m.blocks.flatMap((b) => (b.type === 'section' ? (b.fields ?? []).map((f) => f.text) : []));
    expect(fields).toEqual([
      '*name*\nAda Lovelace',
      '*email*\nada@example.com',
      '*message*\nHello &lt;b&gt;there&lt;/b&gt; &amp; welcome',
      '*age*\n36',
      '*subscribed*\ntrue',
      '*tags*\n["a","b"]',
      '*address*\n{"city":"London"}',
      '*empty*\n—',
      '*nothing*\n—',
    ]);
    const body = JSON.stringify(m.blocks);
    expect(body).toContain('<https://intake.example/d/fil_1?sig=abc&amp;exp=1|cv.pdf>');
    const last = m.blocks.at(-1)!;
    expect(last.type).toBe('context');
    const context = last.type === 'context' ? last.elements[0]!.text : '';
    expect(context).toContain('Category: support');
    expect(context).toContain('Spam score: 0.12');
    expect(context).toContain('2025-05-01T10:00:00.000Z');
    expect(validChat('slack', renderBody('slack', normal, {}))).not.toHaveProperty('channel');
  });

  it('discord: embed with fields, file links, no mentions, config', () => {
    const m = validChat('discord', renderBody('discord', normal, config)) as z.infer<typeof DiscordMessage>;
    expect(m.content).toBe('New submission to Contact');
    expect(m.allowed_mentions).toEqual({ parse: [] });
    expect(m).toMatchObject({ username: 'Intake', avatar_url: 'https://intake.example/logo.png' });
    expect(m).not.toHaveProperty('channel');
    const [embed] = m.embeds;
    expect(embed!.title).toBe('New submission to Contact');
    expect(embed!.timestamp).toBe('2025-05-01T10:00:00.000Z');
    expect(embed!.fields).toContainEqual({ name: 'message', value: 'Hello <b>there</b> & welcome', inline: true });
    expect(embed!.fields).toContainEqual({ name: 'tags', value: '["a","b"]', inline: true });
    expect(embed!.fields).toContainEqual({ name: 'empty', value: '—', inline: true });
    expect(embed!.fields.map((f) => f.name)).toEqual(Object.keys(normal.payload));
    expect(embed!.description).toContain('[cv.pdf](https://intake.example/d/fil_1?sig=abc&exp=1)');
    expect(embed!.footer.text).toContain('Category: support');
  });

  it('teams: an Adaptive Card with a title, a FactSet and an action per file', () => {
    const m = validChat('teams', renderBody('teams', normal, config)) as z.infer<typeof TeamsMessage>;
    const card = m.attachments[0]!.content;
    expect(card.body[0]).toMatchObject({ type: 'TextBlock', text: 'New submission to Contact' });
    const facts = card.body.find((b) => b.type === 'FactSet');
    expect(facts?.type === 'FactSet' && facts.facts).toContainEqual({
      title: 'message',
      value: 'Hello <b>there</b> & welcome',
    });
    expect(facts?.type === 'FactSet' && facts.facts).toContainEqual({ title: 'address', value: '{"city":"London"}' });
    expect(card.actions).toEqual([
      { type: 'Action.OpenUrl', title: 'cv.pdf', url: 'https://intake.example/d/fil_1?sig=abc&exp=1' },
    ]);
    expect(JSON.stringify(card.body)).toContain('Category: support');
  });

  it.each(chat)('%s: a hostile submission is truncated into a valid message', (provider) => {
    for (const offset of [0, 1]) {
      const event = hostile(offset);
      const body = renderBody(provider, event, config);
      const parsed = validChat(provider, body);
      const text = JSON.stringify(parsed);
      // Mentions are inert: Slack's mrkdwn is escaped (checked in validChat), its header is plain_text; Discord
      // parses none; Teams has no such syntax.
      if (provider === 'discord') {
        expect(parsed.allowed_mentions).toEqual({ parse: [] });
        const [embed] = (parsed as z.infer<typeof DiscordMessage>).embeds;
        // 24 fields and a note about the rest; the 6000 total spread over them, not spent on the first.
        expect(embed!.fields).toHaveLength(25);
        expect(embed!.fields.at(-1)!.value).toBe('176 more fields not shown');
        expect(Math.max(...embed!.fields.map((f) => f.value.length))).toBeLessThan(400);
        expect(embed!.fields.filter((f) => f.value.length >= 150).length).toBeGreaterThanOrEqual(15);
      }
      if (provider === 'slack') {
        const sections = (parsed as z.infer<typeof SlackMessage>).blocks.filter(
          (b) => b.type === 'section' && b.fields,
        );
        expect(sections.flatMap((b) => (b.type === 'section' ? b.fields! : []))).toHaveLength(200);
      }
      if (provider === 'teams') {
        const card = (parsed as z.infer<typeof TeamsMessage>).attachments[0]!.content;
        expect(card.actions).toHaveLength(6);
        expect(text).toContain('…and 24 more files');
      }
    }
  });
});

describe('renderBody: many fields', () => {
  const many: SubmissionEvent = {
    ...normal,
    payload: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`f${i}`, `v${i}`])),
  };

  it('slack: 500 fields stay within 50 blocks, with a note for those left out', () => {
    const m = validChat('slack', renderBody('slack', many, {})) as z.infer<typeof SlackMessage>;
    expect(JSON.stringify(m.blocks)).toContain('…and 100 more fields');
    expect(JSON.stringify(m.blocks.at(-1))).toContain('Category: support');
  });

  it.each(['discord', 'teams'] as const)('%s: 500 fields make a valid message', (provider) => {
    const text = JSON.stringify(validChat(provider, renderBody(provider, many, {})));
    expect(text).toContain('more fields');
  });
});

describe('renderBody: insights for chat providers', () => {
  it.each(chat)('%s: headline with total and delta, top themes first, the summary', (provider) => {
    const text = JSON.stringify(validChat(provider, renderBody(provider, insights, config)));
    expect(text).toContain('Weekly insights: 128 submissions (+18% vs the week before)');
    expect(text).toContain('uploads (30), pricing (12), api (8), docs (5), login (3)');
    expect(text).not.toContain('rare (1)');
    expect(text).toContain('support (70), sales (40)');
    expect(text).toContain('questions rose; two bug reports about uploads.');
  });

  it.each(chat)('%s: a hostile insights event is truncated into a valid message', (provider) => {
    for (const offset of [0, 1]) {
      const text = JSON.stringify(validChat(provider, renderBody(provider, hostileInsights(offset), config)));
      expect(text).toContain('(-5% vs the week before)');
      // A short summary, not the 100 KB.
      expect(text.length).toBeLessThan(30_000);
    }
  });
});

describe('providers', () => {
  it('lists every provider, and each renders both events', () => {
    expect(providers).toEqual(['slack', 'discord', 'teams', 'zapier', 'make', 'webhook']);
    for (const p of providers as readonly Provider[]) {
      expect(() => JSON.parse(renderBody(p, normal, {}))).not.toThrow();
      expect(() => JSON.parse(renderBody(p, insights, {}))).not.toThrow();
    }
  });
});
