import { Migration } from '@mikro-orm/migrations';

/**
 * Templated webhook bodies: a webhook's `body_template` (null: the default event JSON), its `content_type`
 * (`json`, `form` or `text`) and up to 10 extra `headers`; a delivery's `content_type`, the media type of the
 * body it stored (null: application/json, as every delivery made before). Constant defaults, so adding the
 * columns rewrites nothing.
 */
export class Migration0022WebhookTemplates extends Migration {
  override name = '0022-webhook-templates';

  override up(): void {
    this.addSql(`alter table webhooks add column body_template text;`);
    this.addSql(
      `alter table webhooks add column content_type text not null default 'json' check (content_type in ('json', 'form', 'text'));`,
    );
    this.addSql(`alter table webhooks add column headers jsonb not null default '{}';`);
    this.addSql(`alter table deliveries add column content_type text;`);
  }

  override down(): void {
    this.addSql(`alter table deliveries drop column content_type;`);
    this.addSql(`alter table webhooks drop column headers;`);
    this.addSql(`alter table webhooks drop column content_type;`);
    this.addSql(`alter table webhooks drop column body_template;`);
  }
}
