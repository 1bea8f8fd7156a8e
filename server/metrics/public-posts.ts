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
