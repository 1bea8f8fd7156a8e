import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalProvider } from '../../server/infra/ai/local-provider.ts';
import { CATEGORIES } from '../../server/infra/ai/provider.ts';
import { makePublishedForm } from '../support/forms.ts';
import { makeTeam } from '../support/harness.ts';
import { type ChatReply, type ChatRequest, startOpenAiTestServer } from '../support/openai-server.ts';
import { postForm, startProcessingApp, waitForProcessing } from '../support/processing.ts';

const openai = await startOpenAiTestServer();
afterAll(() => openai.close());
const t = await startProcessingApp({ OPENAI_API_KEY: 'test', OPENAI_BASE_URL: openai.baseUrl });

/** A message with a marker, so each test finds the requests its own submission caused. */
function message(text: string) {
  // Letters no category keyword or spam term is made of: a hex marker could spell one ("500" is a bug-report
  // keyword), and so could any letters that repeat one of a term's ("xxx" is a spam term).
  const marker = `ref-${Array.from(randomBytes(8), (b) => 'qzjkvwyh'[b % 8]).join('')}`;
  return { marker, fields: { name: 'Ada', email: 'ada@example.com', message: `${text} (${marker})` } };
}
const requestsWith = (marker: string): ChatRequest[] =>
  openai.requests.filter((r) => r.body.messages.some((m) => m.content.includes(marker)));

describe('OpenAI provider (OPENAI_API_KEY + OPENAI_BASE_URL)', () => {
  it("uses the model's structured answer on a plan with AI", async () => {
    const owner = await makeTeam(t, { plan: 'team' });
    const form = await makePublishedForm(t, owner);
    const { marker, fields } = message('We run a design agency and would like to work together.');
    openai.reply = (req) =>
      req.body.messages.some((m) => m.content.includes(marker))
        ? {
            analysis: {
              score: 0.12,
              verdict: 'clean',
              reasons: ['asks about working together'],
              category: 'partnership',
            },
          }
        : { status: 500, message: 'unexpected request' };

    const s = await waitForProcessing(t, await postForm(t, form.endpoint, fields));
    expect(s).toMatchObject({ status: 'processed', spam_reason: null, category: 'partnership' });
    expect(s.ai_moderation).toEqual({
      score: 0.12,
      verdict: 'clean',
      reasons: ['asks about working together'],
      provider: 'openai',
    });

    const [req, ...more] = requestsWith(marker);
    expect(more).toEqual([]);
    expect(req!.headers.authorization).toBe('Bearer test');
    expect(req!.body.model).toBe('gpt-4o-mini');
    const user = req!.body.messages.find((m) => m.role === 'user')!;
    expect(user.content).toContain('Sender e-mail: ada@example.com');
    expect(user.content).toContain(`message: ${fields.message}`);
    expect(user.content).toContain('name: Ada');
    const format = req!.body.response_format!;
    expect(format.type).toBe('json_schema');
    expect(format.json_schema).toMatchObject({ name: 'analysis', strict: true });
    const schema = format.json_schema!.schema as {
      properties: Record<string, { enum?: string[] }>;
      required: string[];
    };
    expect(Object.keys(schema.properties).sort()).toEqual(['category', 'reasons', 'score', 'verdict']);
    expect(schema.required.sort()).toEqual(['category', 'reasons', 'score', 'verdict']);
    expect(schema.properties.category!.enum).toEqual([...CATEGORIES]);
  });

  it("marks a submission spam on the model's score against the form's threshold", async () => {
    const owner = await makeTeam(t, { plan: 'team' });
    const form = await makePublishedForm(t, owner, { settings: { ai_threshold: 0.9 } });
    const spammy = message('Hello dear friend, an exclusive opportunity awaits.');
    const borderline = message('Hello dear friend, a nearly exclusive opportunity awaits.');
    openai.reply = (req) => ({
      analysis: {
        score: req.body.messages.some((m) => m.content.includes(spammy.marker)) ? 0.93 : 0.85,
        verdict: 'spam',
        reasons: ['advance-fee pattern'],
        category: 'spam',
      },
    });

    const s = await waitForProcessing(t, await postForm(t, form.endpoint, spammy.fields));
    expect(s).toMatchObject({ status: 'spam', spam_reason: 'ai_moderation', category: 'spam' });
    expect(s.ai_moderation).toEqual({
      score: 0.93,
      verdict: 'spam',
      reasons: ['advance-fee pattern'],
      provider: 'openai',
    });
    const b = await waitForProcessing(t, await postForm(t, form.endpoint, borderline.fields));
    // Kept by the form's threshold, so filed under its content (here nothing specific), not `spam`.
    expect(b).toMatchObject({ status: 'processed', spam_reason: null, category: 'other' });
    expect(b.ai_moderation).toMatchObject({ score: 0.85, provider: 'openai' });
  });

  it("stores the model's reasons safely, whatever characters they hold", async () => {
    const owner = await makeTeam(t, { plan: 'team' });
    const form = await makePublishedForm(t, owner);
    const { fields } = message('Just saying hello.');
    openai.reply = () => ({
      analysis: {
        score: 0.2,
        verdict: 'clean',
        reasons: ['friendly\u0000greeting', 'x'.repeat(5_000)],
        category: 'feedback',
      },
    });

    const s = await waitForProcessing(t, await postForm(t, form.endpoint, fields), 5_000);
    expect(s).toMatchObject({
      status: 'processed',
      category: 'feedback',
      ai_moderation: { provider: 'openai', score: 0.2 },
    });
    const reasons = (s.ai_moderation as { reasons: string[] }).reasons;
    expect(reasons[0]).toBe('friendlygreeting');
    expect(reasons[1]!.length).toBeLessThanOrEqual(500);
  });

  const failures: Array<[string, () => ChatReply]> = [
    ['answers 500', () => ({ status: 500, message: 'The server had an error while processing your request.' })],
    ['answers content that is not JSON', () => ({ content: 'Sure! Here is the analysis: {score: high' })],
    [
      'answers JSON outside the schema',
      () => ({ content: JSON.stringify({ score: 7, verdict: 'maybe', reasons: [], category: 'sales' }) }),
    ],
  ];
  for (const [what, reply] of failures) {
    it(`falls back to the local provider when the server ${what}`, async () => {
      const owner = await makeTeam(t, { plan: 'team' });
      const form = await makePublishedForm(t, owner);
      const { marker, fields } = message('Could you send me your pricing and a quote for the enterprise plan?');
      openai.reply = reply;

      const id = await postForm(t, form.endpoint, fields);
      const s = await waitForProcessing(t, id);
      expect(requestsWith(marker).length).toBeGreaterThanOrEqual(1);
      expect(s).toMatchObject({ status: 'processed', spam_reason: null, category: 'sales' });
      expect(s.ai_moderation).toEqual({ score: 0, verdict: 'clean', reasons: [], provider: 'local' });
      expect(s.payload).toEqual(fields);
    });
  }

  it('uses the local provider on a plan without AI, even with OPENAI_API_KEY set', async () => {
    const owner = await makeTeam(t, { plan: 'free' });
    const form = await makePublishedForm(t, owner);
    const { marker, fields } = message('I found a bug: the page crashes with an error.');
    openai.reply = () => ({
      analysis: { score: 0.99, verdict: 'spam', reasons: ['should not be asked'], category: 'spam' },
    });

    const s = await waitForProcessing(t, await postForm(t, form.endpoint, fields));
    expect(s).toMatchObject({ status: 'processed', category: 'bug-report' });
    expect(s.ai_moderation).toEqual({ score: 0, verdict: 'clean', reasons: [], provider: 'local' });
    expect(requestsWith(marker)).toEqual([]);
  });
});

describe('local provider', () => {
  const local = new LocalProvider();
  const cases: Array<[string, Record<string, string>, { score: number; reasons: string[]; category: string }]> = [
    [
      'gibberish',
      { message: 'xkcdqwrtpl zxcvbnmqwrt plkjhgfdsq mnbvcxzlkj qwrtypsdfg' },
      { score: 0.9, reasons: ['gibberish'], category: 'spam' },
    ],
    [
      'repeated words',
      { message: 'cheap cheap cheap cheap cheap cheap cheap cheap cheap cheap deals' },
      { score: 0.8, reasons: ['repetition'], category: 'spam' },
    ],
    [
      'a repeated character',
      { message: 'aaaaaaaaaaaaaaaa' },
      { score: 0.8, reasons: ['repetition'], category: 'spam' },
    ],
    [
      'shouting',
      { message: 'WHY IS NOBODY ANSWERING MY EMAILS ABOUT THE INVOICE' },
      { score: 0.3, reasons: ['shouting'], category: 'other' },
    ],
    [
      'a disposable address alone',
      { email: 'jo@guerrillamail.com', message: 'A question about opening hours.' },
      { score: 0.5, reasons: ['disposable_email'], category: 'other' },
    ],
    [
      'a job application',
      { message: 'Saw you are hiring: I would like to apply for the position, resume attached.' },
      { score: 0, reasons: [], category: 'hiring' },
    ],
    [
      'a press request',
      { message: 'I am a journalist writing an article for a magazine; could we do an interview?' },
      { score: 0, reasons: [], category: 'press' },
    ],
    [
      'a feature request',
      { message: 'It would be great if you could add dark mode; please add it to the roadmap.' },
      { score: 0, reasons: [], category: 'feature-request' },
    ],
  ];
  for (const [what, fields, expected] of cases) {
    it(`scores ${what}`, async () => {
      const result = await local.analyze({ fields, email: fields.email ?? null });
      expect(result).toMatchObject({ ...expected, provider: 'local' });
    });
  }
});
