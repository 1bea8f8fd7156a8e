import { createRequire } from 'node:module';
import {
  type AiProvider,
  type AnalysisInput,
  type Assessment,
  type InsightsInput,
  submissionText,
  type Topic,
  verdictFor,
} from './provider.ts';
import { extractThemes } from './themes.ts';
import { weekSummary } from './week-summary.ts';

const require = createRequire(import.meta.url);
const disposableDomains = new Set<string>(require('disposable-email-domains') as string[]);

const SPAM_TERMS = [
  'viagra',
  'cialis',
  'casino',
  'crypto',
  'bitcoin',
  'forex',
  'payday loan',
  'loan offer',
  'seo services',
  'backlinks',
  'rank your website',
  'first page of google',
  'porn',
  'xxx',
  'escort',
  'make money fast',
  'work from home',
  'guaranteed results',
  'click here',
  'buy now',
  'limited offer',
  'free money',
  'winner',
  'congratulations you',
  'wire transfer',
  'investment opportunity',
  'web traffic',
  'increase your sales',
];

const CATEGORY_TERMS: Record<Exclude<Topic, 'other'>, string[]> = {
  support: [
    'help',
    'issue',
    'problem',
    'cannot',
    "can't",
    'unable',
    'login',
    'password',
    'account',
    'support',
    'refund',
    'order',
  ],
  sales: ['pricing', 'price', 'quote', 'buy', 'purchase', 'demo', 'plan', 'enterprise', 'discount', 'license', 'trial'],
  partnership: [
    'partner',
    'partnership',
    'collaborat',
    'affiliate',
    'reseller',
    'integration',
    'co-marketing',
    'sponsor',
  ],
  'bug-report': [
    'bug',
    'error',
    'crash',
    'broken',
    'exception',
    'stack trace',
    'regression',
    'not working',
    'fails',
    '500',
  ],
  'feature-request': [
    'feature',
    'would be great',
    'please add',
    'wish',
    'suggest',
    'could you add',
    'support for',
    'roadmap',
  ],
  feedback: ['feedback', 'love', 'great', 'awesome', 'thanks', 'thank you', 'disappointed', 'experience', 'review'],
  hiring: ['job', 'hiring', 'career', 'resume', 'cv', 'position', 'apply', 'application', 'internship', 'vacancy'],
  press: ['press', 'journalist', 'interview', 'article', 'media', 'podcast', 'story', 'magazine', 'reporter'],
};

const URL_RE = /\b(?:https?:\/\/|www\.)[^\s<>"']+/gi;

/** Share of long alphabetic tokens that look random (no vowels, or improbable consonant runs). */
function gibberishRatio(text: string): number {
  const words = text.toLowerCase().match(/[a-z]{6,}/g) ?? [];
  if (words.length === 0) return 0;
  const odd = words.filter((w) => !/[aeiouy]/.test(w) || /[bcdfghjklmnpqrstvwxz]{5,}/.test(w)).length;
  return odd / words.length;
}

function repetition(text: string): number {
  const words = text.toLowerCase().match(/\p{L}{3,}/gu) ?? [];
  if (words.length < 8) return /(.)\1{9,}/u.test(text) ? 1 : 0;
  const counts = new Map<string, number>();
  for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
  // A loop, not Math.max(...values): a long post has more distinct words than a call can take arguments.
  let top = 0;
  for (const n of counts.values()) if (n > top) top = n;
  return top / words.length;
}

/**
 * The default provider: rule-based and statistical scoring, no network. Each signal is an independent
 * probability of spam; they combine as 1 − Π(1 − p).
 */
export class LocalProvider implements AiProvider {
  readonly name = 'local';

  async analyze(input: AnalysisInput): Promise<Assessment> {
    const text = submissionText(input.fields);
    const lower = text.toLowerCase();
    const signals: Array<[string, number]> = [];

    const links = text.match(URL_RE)?.length ?? 0;
    if (links > 0) signals.push([`links:${links}`, Math.min(0.9, 0.25 * links)]);
    const terms = SPAM_TERMS.filter((t) => lower.includes(t));
    if (terms.length) signals.push([`spam_terms:${terms.slice(0, 5).join(',')}`, Math.min(0.95, 0.45 * terms.length)]);
    const gib = gibberishRatio(text);
    if (gib >= 0.3) signals.push(['gibberish', Math.min(0.9, gib * 1.5)]);
    const domain = input.email?.split('@')[1]?.toLowerCase();
    if (domain && disposableDomains.has(domain)) signals.push(['disposable_email', 0.5]);
    const rep = repetition(text);
    if (rep >= 0.3) signals.push(['repetition', Math.min(0.8, rep)]);
    const letters = text.replace(/[^\p{L}]/gu, '');
    if (letters.length >= 20 && letters.replace(/[^\p{Lu}]/gu, '').length / letters.length > 0.7)
      signals.push(['shouting', 0.3]);

    const score = Math.round((1 - signals.reduce((acc, [, p]) => acc * (1 - p), 1)) * 1000) / 1000;
    const topic = categorize(lower);
    const category = score >= 0.75 ? 'spam' : topic;
    return {
      score,
      verdict: verdictFor(score),
      reasons: signals.map(([r]) => r),
      category,
      topic,
      provider: this.name,
    };
  }

  /** Themes by phrase extraction, a summary written from the figures: deterministic, no network. */
  async summarize(input: InsightsInput) {
    const themes = extractThemes(input.texts);
    return { themes, summary_md: weekSummary(input, themes), provider: this.name };
  }
}

/** The topic whose keywords the text uses most (`other` when none): what the provider files a submission under. */
export function categorize(lowerText: string): Topic {
  let best: Topic = 'other';
  let bestHits = 0;
  for (const [category, terms] of Object.entries(CATEGORY_TERMS)) {
    const hits = terms.reduce((n, t) => n + (lowerText.includes(t) ? 1 : 0), 0);
    if (hits > bestHits) {
      best = category as Topic;
      bestHits = hits;
    }
  }
  return best;
}
