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
    // Live submissions per form and folder, kept exact by a trigger on submissions. Sharded so concurrent
    // posts do not queue on one row; a count is the sum of its shards. No foreign key: an erased form's rows
    // are removed with it explicitly.
    this.addSql(`
      create table form_folder_counts (
        form_id text not null,
        folder text not null check (folder in ('inbox', 'spam')),
        shard smallint not null,
        n integer not null default 0,
        primary key (form_id, folder, shard)
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
    // Folder lists are keyset scans, newest first, one partial index per folder. Ascending: a btree reads
    // backwards as well, and entries arriving in time order land at the right edge, which it packs full.
    this.addSql(`create index submissions_inbox on submissions (form_id, received_at, id) where status <> 'spam';`);
    this.addSql(`create index submissions_spam on submissions (form_id, received_at, id) where status = 'spam';`);
    this.addSql(`create index submissions_all on submissions (form_id, received_at, id);`);
    this.addSql(`
      create function count_submission_folders() returns trigger language plpgsql as $$
      begin
        if tg_op in ('DELETE', 'UPDATE') then
          insert into form_folder_counts (form_id, folder, shard, n)
          values (old.form_id, case when old.status = 'spam' then 'spam' else 'inbox' end, floor(random() * 1024)::int, -1)
          on conflict (form_id, folder, shard) do update set n = form_folder_counts.n - 1;
        end if;
        if tg_op in ('INSERT', 'UPDATE') then
          insert into form_folder_counts (form_id, folder, shard, n)
          values (new.form_id, case when new.status = 'spam' then 'spam' else 'inbox' end, floor(random() * 1024)::int, 1)
          on conflict (form_id, folder, shard) do update set n = form_folder_counts.n + 1;
        end if;
        return null;
      end $$;`);
    // Deletes are counted once per statement: a row trigger would walk the counter row's growing version
    // chain, making a cascading erase O(n²). Inserts stay per row, cheaper for one row per statement.
    this.addSql(`
      create function count_deleted_submissions() returns trigger language plpgsql as $$
      begin
        insert into form_folder_counts (form_id, folder, shard, n)
        select form_id, case when status = 'spam' then 'spam' else 'inbox' end, floor(random() * 1024)::int, -count(*)
          from deleted group by 1, 2
        on conflict (form_id, folder, shard) do update set n = form_folder_counts.n + excluded.n;
        return null;
      end $$;`);
    this.addSql(`
      create trigger submissions_count_inserts after insert on submissions
      for each row execute function count_submission_folders();`);
    this.addSql(`
      create trigger submissions_count_deletes after delete on submissions
      referencing old table as deleted for each statement execute function count_deleted_submissions();`);
    this.addSql(`
      create trigger submissions_count_folder_moves after update of status on submissions
      for each row when ((old.status = 'spam') is distinct from (new.status = 'spam'))
      execute function count_submission_folders();`);
    // Aborts the statement that calls it (everything it wrote included) with a recognisable SQLSTATE:
    // lets one statement both write and enforce a condition on what it saw (quota, idempotency key).
    this.addSql(`
      create function intake_guard(ok boolean, code text) returns boolean language plpgsql as $$
      begin
        if not ok then
          raise exception using errcode = code, message = 'intake_guard ' || code;
        end if;
        return true;
      end $$;`);
    // Every field name a form has received: the CSV export's columns, known without scanning submissions.
    this.addSql(`
      create table form_fields (
        form_id text not null references forms(id) on delete cascade,
        name text not null,
        first_seen_at timestamptz not null default now(),
        ordinal integer not null default 0,
        primary key (form_id, name)
      );`);
    // Partial: a new submission has no category yet, so ingest does not write to this index.
    this.addSql(
      `create index submissions_team_category on submissions (form_id, category, received_at, id) where category is not null;`,
    );
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
    // A form's files: the export's file links and the storage keys collected when a form is erased.
    this.addSql(`create index submission_files_form on submission_files (form_id);`);
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
