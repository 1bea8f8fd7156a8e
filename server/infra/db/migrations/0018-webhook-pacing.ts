import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook pacing: `max_per_second` (null: the provider's documented limit, or unpaced), `next_send_at` (the
 * next free send slot, moved atomically so every worker shares one pace) and `paused_until` (a receiver's
 * 429 with `Retry-After`).
 */
export class Migration0018WebhookPacing extends Migration {
  override name = '0018-webhook-pacing';

  override up(): void {
    this.addSql(`alter table webhooks add column max_per_second real check (max_per_second between 0.5 and 100);`);
    this.addSql(`alter table webhooks add column next_send_at timestamptz;`);
    this.addSql(`alter table webhooks add column paused_until timestamptz;`);
  }

  override down(): void {
    this.addSql(`alter table webhooks drop column paused_until;`);
    this.addSql(`alter table webhooks drop column next_send_at;`);
    this.addSql(`alter table webhooks drop column max_per_second;`);
  }
}
