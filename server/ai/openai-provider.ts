import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import type { Logger } from 'pino';
import { Analysis, type AiProvider, type AnalysisInput, CATEGORIES, submissionText } from './provider.ts';

/**
 * OpenAI (or any OpenAI-compatible server via OPENAI_BASE_URL) with structured output validated by the
 * same zod schema. Any failure falls back to the local provider and is logged: a submission is never
 * lost or stuck because a model is down.
 */
export class OpenAiProvider implements AiProvider {
  readonly name = 'openai';
  private readonly client: OpenAI;
  private readonly model: string;
  private readonly fallback: AiProvider;
  private readonly log: Logger;

  constructor(opts: { apiKey: string; baseUrl?: string; model: string; fallback: AiProvider; log: Logger }) {
    this.client = new OpenAI({ apiKey: opts.apiKey, baseURL: opts.baseUrl, timeout: 20_000, maxRetries: 1 });
    this.model = opts.model;
    this.fallback = opts.fallback;
    this.log = opts.log;
  }

  async analyze(input: AnalysisInput) {
    try {
      const completion = await this.client.chat.completions.parse({
        model: this.model,
        temperature: 0,
        messages: [
          {
            role: 'system',
            content:
              'You moderate website contact-form submissions. Return a spam score from 0 (certainly legitimate) to 1 ' +
              '(certainly spam), a verdict (clean, suspicious or spam), short reasons, and one category from: ' +
              `${CATEGORIES.join(', ')}.`,
          },
          { role: 'user', content: `Sender e-mail: ${input.email ?? '(none)'}\n\n${submissionText(input.fields).slice(0, 8000)}` },
        ],
        response_format: zodResponseFormat(Analysis, 'analysis'),
      });
      const parsed = Analysis.parse(completion.choices[0]?.message.parsed);
      return { ...parsed, provider: this.name };
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'OpenAI analysis failed; using the local provider');
      return this.fallback.analyze(input);
    }
  }
}
