import { Counter } from 'prom-client';
import { registry } from './registry.ts';

const posts = new Counter({
  name: 'intake_public_posts_total',
  help:
    'Posts to the public endpoint (POST /f/{form}) by outcome: accepted (stored clean), spam (stored as spam; reason: its spam_reason), ' +
    'refused (nothing stored; reason: the error code answered) or replayed (an Idempotency-Key already held it).',
  labelNames: ['outcome', 'reason'] as const,
  registers: [registry],
});

/** A post the endpoint answered with success: stored clean, stored as spam, or replayed from its Idempotency-Key. */
export function countPost(outcome: { replayed: boolean; spamReason?: string | null }): void {
  if (outcome.replayed) posts.inc({ outcome: 'replayed', reason: '' });
  else if (outcome.spamReason) posts.inc({ outcome: 'spam', reason: outcome.spamReason });
  else posts.inc({ outcome: 'accepted', reason: '' });
}

/** A post refused with an error: `code` is the answer's error code (a closed list), so the label stays bounded. */
export function countRefusedPost(code: string): void {
  posts.inc({ outcome: 'refused', reason: code });
}

const verdicts = new Counter({
  name: 'intake_submissions_processed_total',
  help:
    "Submissions processing settled, by verdict: processed (clean), spam (AI moderation over the form's threshold: spam_reason ai_moderation), " +
    'skipped (already settled: a repeated job).',
  labelNames: ['verdict'] as const,
  registers: [registry],
});

/** A post accepted at the endpoint is judged by AI moderation later, in processing: its verdict is counted there. */
export function countVerdict(verdict: 'processed' | 'spam' | 'skipped'): void {
  verdicts.inc({ verdict });
}
