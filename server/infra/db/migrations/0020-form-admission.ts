import { Migration } from '@mikro-orm/migrations';

/**
 * Unique rules and server-side submits. A clean submission holds one key per unique rule that applies to it
 * (a keyed digest of its form, its rule and its normalized values, never the values); the primary key decides which of two
 * concurrent posts is the duplicate. Spam and deleted submissions hold none: marking one spam or deleting it
 * releases its keys here, whoever does it (a person, moderation, retention, erasure). `api_token_id`: the
 * token of a server-side submit (null for a post to the public endpoint).
 */
export class Migration0020FormAdmission extends Migration {
  override name = '0020-form-admission';

  override up(): void {
    this.addSql(`
      create table submission_unique_keys (
        key text primary key,
        submission_id text not null,
        created_at timestamptz not null default now()
      );`);
    this.addSql(`create index submission_unique_keys_holder on submission_unique_keys (submission_id);`);
    this.addSql(`
      create function release_unique_keys() returns trigger language plpgsql as $$
      begin
        delete from submission_unique_keys where submission_id = new.id;
        return null;
      end $$;`);
    this.addSql(`
      create trigger submissions_release_keys_on_spam after update of status on submissions
      for each row when (new.status = 'spam' and old.status <> 'spam') execute function release_unique_keys();`);
    this.addSql(`
      create function release_deleted_unique_keys() returns trigger language plpgsql as $$
      begin
        delete from submission_unique_keys k using deleted d where k.submission_id = d.id;
        return null;
      end $$;`);
    this.addSql(`
      create trigger submissions_release_keys_on_delete after delete on submissions
      referencing old table as deleted for each statement execute function release_deleted_unique_keys();`);
    this.addSql(`alter table submissions add column api_token_id text;`);
  }

  override down(): void {
    this.addSql(`alter table submissions drop column api_token_id;`);
    this.addSql(`drop trigger submissions_release_keys_on_delete on submissions;`);
    this.addSql(`drop trigger submissions_release_keys_on_spam on submissions;`);
    this.addSql(`drop function release_deleted_unique_keys();`);
    this.addSql(`drop function release_unique_keys();`);
    this.addSql(`drop table submission_unique_keys;`);
  }
}
