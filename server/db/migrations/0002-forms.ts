import { Migration } from '@mikro-orm/migrations';

export class Migration0002Forms extends Migration {
  override name = '0002-forms';

  override up(): void {
    this.addSql(`
      create table forms (
        id text primary key,
        team_id text not null references teams(id) on delete cascade,
        name text not null,
        status text not null default 'draft' check (status in ('draft', 'published')),
        notification_emails text[] not null default '{}',
        settings jsonb not null default '{}',
        submissions_count integer not null default 0,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        deleted_at timestamptz
      );`);
    this.addSql(`create index forms_team on forms (team_id, created_at desc, id desc);`);
    this.addSql(`
      create table submissions (
        id text primary key,
        team_id text not null references teams(id) on delete cascade,
        form_id text not null references forms(id) on delete cascade,
        status text not null check (status in ('received', 'spam', 'processed', 'failed')),
        spam_reason text,
        category text,
        ai_moderation jsonb,
        payload jsonb not null,
        metadata jsonb not null default '{}',
        idempotency_key text,
        received_at timestamptz not null default clock_timestamp(),
        updated_at timestamptz not null default now()
      );`);
    // Folder lists are keyset scans in (received_at desc, id desc) order, one partial index per folder.
    this.addSql(`create index submissions_inbox on submissions (form_id, received_at desc, id desc) where status <> 'spam';`);
    this.addSql(`create index submissions_spam on submissions (form_id, received_at desc, id desc) where status = 'spam';`);
    this.addSql(`create index submissions_all on submissions (form_id, received_at desc, id desc);`);
    this.addSql(`create unique index submissions_idempotency on submissions (form_id, idempotency_key) where idempotency_key is not null;`);
    this.addSql(`
      create table submission_files (
        id text primary key,
        team_id text not null references teams(id) on delete cascade,
        form_id text not null references forms(id) on delete cascade,
        submission_id text not null references submissions(id) on delete cascade,
        field text not null,
        filename text not null,
        content_type text not null,
        size_bytes bigint not null,
        storage_key text not null,
        created_at timestamptz not null default now()
      );`);
    this.addSql(`create index submission_files_submission on submission_files (submission_id);`);
    this.addSql(`create index submission_files_team on submission_files (team_id);`);
  }
}
