import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook events and filters (issue 28).
 *
 * - `filter`: the conditions a submission event must meet to be delivered (`[]`: every one). Existing
 *   webhooks keep `events` as they were (`{submission.created}` by default), so they behave as before.
 * - `spam_position`: how far a webhook subscribed to `submission.spam` has been sent the form's spam, as a
 *   submission-stream position (`{ past, within }`, see queries/submission-stream.ts). The spam-deliveries job
 *   reads the spam events after it and moves it on in the transaction that creates their deliveries, so the
 *   public endpoint's insert does no more than before (its spam rows already carry `stream_xid`).
 * - `webhooks_spam`: the job finds the webhooks it serves without reading the others.
 */
export class Migration0015WebhookEvents extends Migration {
  override name = '0015-webhook-events';

  override up(): void {
    this.addSql(`alter table webhooks add column filter jsonb not null default '[]';`);
    this.addSql(`alter table webhooks add column spam_position jsonb;`);
    this.addSql(`create index webhooks_spam on webhooks (id) where deleted_at is null and 'submission.spam' = any(events);`);
  }

  override down(): void {
    this.addSql(`drop index webhooks_spam;`);
    this.addSql(`alter table webhooks drop column spam_position;`);
    this.addSql(`alter table webhooks drop column filter;`);
  }
}
