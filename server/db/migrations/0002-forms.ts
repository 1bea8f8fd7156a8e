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
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        deleted_at timestamptz
      );`);
    this.addSql(`create index forms_team on forms (team_id, created_at desc, id desc);`);
    // Submissions per form, sharded like usage_counters; submissions_count is the sum.
    this.addSql(`
      create table form_counters (
        form_id text not null references forms(id) on delete cascade,
        shard smallint not null,
        submissions integer not null default 0,
        primary key (form_id, shard)
      );`);
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
        received_at timestamptz not null default clock_timestamp(),
        updated_at timestamptz not null default now()
      );`);
    // Folder lists are keyset scans in (received_at desc, id desc) order, one partial index per folder.
    this.addSql(`create index submissions_inbox on submissions (form_id, received_at desc, id desc) where status <> 'spam';`);
    this.addSql(`create index submissions_spam on submissions (form_id, received_at desc, id desc) where status = 'spam';`);
    this.addSql(`create index submissions_all on submissions (form_id, received_at desc, id desc);`);
    this.addSql(`create index submissions_team_category on submissions (form_id, category, received_at desc, id desc);`);
    // Idempotency-Key → first submission, honoured for 24 hours (an expired key is taken over).
    this.addSql(`
      create table idempotency_keys (
        form_id text not null references forms(id) on delete cascade,
        key text not null,
        submission_id text not null references submissions(id) on delete cascade,
        created_at timestamptz not null default now(),
        primary key (form_id, key)
      );`);
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
    // Who changed what on a submission; removed with it (hard delete).
    this.addSql(`
      create table submission_events (
        id text primary key,
        team_id text not null references teams(id) on delete cascade,
        submission_id text not null references submissions(id) on delete cascade,
        actor_user_id text,
        actor_token_id text,
        action text not null,
        changes jsonb not null default '{}',
        created_at timestamptz not null default now()
      );`);
    this.addSql(`create index submission_events_submission on submission_events (submission_id, created_at);`);
  }
}
