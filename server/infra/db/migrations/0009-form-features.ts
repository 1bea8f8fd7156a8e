import { Migration } from '@mikro-orm/migrations';

/**
 * The autoresponder (its outcome on each submission, one send per address per form per hour) and confirmed
 * notification addresses (once per team). Field schemas and CAPTCHA settings live in `forms.settings`.
 */
export class Migration0009FormFeatures extends Migration {
  override name = '0009-form-features';

  override up(): void {
    this.addSql(`alter table plans add column autoresponder boolean not null default false;`);
    this.addSql(`update plans set autoresponder = true where id <> 'free';`);
    this.addSql(`alter table submissions add column autoresponse jsonb;`);
    // The last autoresponse per form and address (a keyed hash of it, not the address): the hourly limit.
    this.addSql(`
      create table autoresponse_sends (
        form_id text not null references forms(id) on delete cascade,
        address_hash text not null,
        submission_id text not null,
        sent_at timestamptz not null,
        primary key (form_id, address_hash)
      );`);
    this.addSql(`
      create table notification_addresses (
        team_id text not null references teams(id) on delete cascade,
        email text not null,
        confirmation_sent_at timestamptz,
        verified_at timestamptz,
        primary key (team_id, email)
      );`);
  }

  override down(): void {
    this.addSql(`drop table notification_addresses;`);
    this.addSql(`drop table autoresponse_sends;`);
    this.addSql(`alter table submissions drop column autoresponse;`);
    this.addSql(`alter table plans drop column autoresponder;`);
  }
}
