/**
 * What the domain needs of AI: the provider interface and the shapes it exchanges. It imports only zod and the
 * contract, so the domain depends on it and never on a provider (main.ts builds those).
 */
import { z } from 'zod';
import { CATEGORIES } from '../../../contract/submissions.ts';

export { CATEGORIES };
export const Category = z.enum(CATEGORIES);
export type Category = z.infer<typeof Category>;

/** What a provider returns for one submission; also the shape stored in `submissions.ai_moderation`. */
export const Analysis = z.object({
  score: z.number().min(0).max(1).describe('Spam likelihood, 0 (clean) to 1 (spam).'),
  verdict: z.enum(['clean', 'suspicious', 'spam']),
  reasons: z.array(z.string()).max(20),
  category: Category,
});
export type Analysis = z.infer<typeof Analysis>;

/** What a submission is about: any category but spam. */
export type Topic = Exclude<Category, 'spam'>;

/**
 * A provider's answer, with the submission's topic whatever its score: the form's threshold decides what is
 * spam, and a submission kept in the inbox is filed under its topic even when the category says `spam`.
 */
export type Assessment = Analysis & { provider: string; topic: Topic };

export type AnalysisInput = {
  /** Submitted fields (the payload), values stringified. */
  fields: Record<string, unknown>;
  email: string | null;
};

export interface AiProvider extends InsightsWriter {
  readonly name: string;
  analyze(input: AnalysisInput): Promise<Assessment>;
}

export function verdictFor(score: number): Analysis['verdict'] {
  return score >= 0.75 ? 'spam' : score >= 0.4 ? 'suspicious' : 'clean';
}

/** The text a provider looks at: every string value, keys included for context. */
export function submissionText(fields: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    const values = Array.isArray(value) ? value : [value];
    for (const v of values)
      if (v !== null && v !== undefined && typeof v !== 'object') parts.push(`${key}: ${String(v)}`);
  }
  return parts.join('\n');
}

/** Per submission, its free text: string values of three words or more (e-mails, URLs, names and choices are not themes). */
export function freeText(payload: Record<string, unknown>): string {
  const parts: string[] = [];
  const visit = (v: unknown) => {
    if (typeof v === 'string') {
      if (v.trim().split(/\s+/).length >= 3) parts.push(v.slice(0, 5000));
    } else if (Array.isArray(v)) v.forEach(visit);
  };
  Object.values(payload).forEach(visit);
  return parts.join('\n');
}

/** The exact figures of a week (from SQL) that a provider writes insights about. */
export type WeekFigures = {
  /** What is summarised: the whole team, or one form. */
  scope: { kind: 'team' | 'form'; name: string };
  period_start: string;
  period_end: string;
  submissions_total: number;
  prior_week_total: number;
  delta_vs_prior_week: number;
  spam_total: number;
  categories: Array<{ name: string; count: number }>;
  score_distribution: Record<string, number>;
  spam_reasons: Array<{ reason: string; count: number }>;
  /** Team scope: each form's total this week and the week before, the biggest changes first. */
  forms: Array<{ name: string; total: number; prior: number }>;
};

/** What a provider writes: themes of the week's clean submissions and a markdown summary. */
export const Narrative = z.object({
  themes: z.array(z.object({ label: z.string().min(1).max(80), count: z.number().int().min(0) })).max(10),
  summary_md: z.string().min(1).max(8000),
});
export type Narrative = z.infer<typeof Narrative>;

export type InsightsInput = WeekFigures & {
  /** The free text of the week's clean submissions, one entry per submission (untrusted). */
  texts: string[];
};

export interface InsightsWriter {
  readonly name: string;
  summarize(input: InsightsInput): Promise<Narrative & { provider: string }>;
}
