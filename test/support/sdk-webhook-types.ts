/**
 * Compile-time checks of `verifyWebhook`'s answer (test/contract/openapi-tools.test.ts runs tsc on this file,
 * strict): the event union, narrowed by `type` as a receiver does.
 */
import {
  verifyWebhook,
  type SubmissionUpdatedEvent,
  type TriageChanges,
  type WebhookEventBody,
} from '../../sdk/index.ts';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Check<T extends true> = T;

/** Never called: what a receiver writes, type-checked. */
export function receiver(secret: string, headers: Record<string, string>, body: string): string {
  const event = verifyWebhook(secret, headers, body);
  const check: Check<Same<typeof event, WebhookEventBody>> = true;
  switch (event.type) {
    case 'submission.updated': {
      const changes: TriageChanges = event.changes;
      const whole: SubmissionUpdatedEvent = event;
      return `${String(check)} ${whole.submission_id} ${JSON.stringify(changes)}`;
    }
    case 'submission.spam':
      return event.spam_reason;
    case 'form.closed':
      return event.form_id;
    default:
      return event.type;
  }
}

/** A webhook with a JSON body template names its own shape. */
export function templated(secret: string, headers: Record<string, string>, body: string): string {
  return verifyWebhook<{ lead: { email: string } }>(secret, headers, body).lead.email;
}
