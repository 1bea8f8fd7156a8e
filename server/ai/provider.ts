import { z } from 'zod';

export const CATEGORIES = [
  'support', 'sales', 'partnership', 'bug-report', 'feature-request', 'feedback', 'hiring', 'press', 'spam', 'other',
] as const;
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

export type AnalysisInput = {
  /** Submitted fields (the payload), values stringified. */
  fields: Record<string, unknown>;
  email: string | null;
};

export interface AiProvider {
  readonly name: string;
  analyze(input: AnalysisInput): Promise<Analysis & { provider: string }>;
}

export function verdictFor(score: number): Analysis['verdict'] {
  return score >= 0.75 ? 'spam' : score >= 0.4 ? 'suspicious' : 'clean';
}

/** The text a provider looks at: every string value, keys included for context. */
export function submissionText(fields: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) if (v !== null && v !== undefined && typeof v !== 'object') parts.push(`${key}: ${String(v)}`);
  }
  return parts.join('\n');
}
