import { Migration } from '@mikro-orm/migrations';

/** How far each form's notification digests (hourly or daily) have gone: the next one starts there. */
export class Migration0011NotificationDigests extends Migration {
  override name = '0011-notification-digests';

  override up(): void {
    this.addSql(`
      create table notification_digests (
        form_id text primary key references forms(id) on delete cascade,
        sent_until timestamptz not null
      );`);
  }

  override down(): void {
    this.addSql(`drop table notification_digests;`);
  }
}
