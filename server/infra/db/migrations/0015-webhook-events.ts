import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook events and filters: `filter` (conditions a submission event must meet; `[]`: every one), and
 * `spam_position`, how far a `submission.spam` webhook has been sent its form's spam (a submission-stream
 * position the spam-deliveries job moves on), so the public endpoint's insert does no extra work.
 */
export class Migration0015WebhookEvents extends Migration {
  override name = '0015-webhook-events';

  override up(): void {
    this.addSql(`alter table webhooks add column filter jsonb not null default '[]';`);
    this.addSql(`alter table webhooks add column spam_position jsonb;`);
    this.addSql(
      `create index webhooks_spam on webhooks (id) where deleted_at is null and 'submission.spam' = any(events);`,
    );
  }

  override down(): void {
    this.addSql(`drop index webhooks_spam;`);
    this.addSql(`alter table webhooks drop column spam_position;`);
    this.addSql(`alter table webhooks drop column filter;`);
  }
}
