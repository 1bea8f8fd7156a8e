import { Migration } from '@mikro-orm/migrations';

/**
 * Folder counters per day of arrival (`day`, UTC), so a deep page starts from the day that holds its first row
 * rather than walking the offset (docs/decisions.md "Deep pages"). Triggers write shards 1–1023; the daily
 * compaction folds a finished day into shard 0.
 */
export class Migration0013FolderCountDays extends Migration {
  override name = '0013-folder-count-days';

  override up(): void {
    // Writers wait for the recount (one pass over submissions) rather than miss it.
    this.addSql(`lock table submissions in share mode;`);
    this.addSql(`delete from form_folder_counts;`);
    this.addSql(`
      alter table form_folder_counts add column day date not null,
        drop constraint form_folder_counts_pkey, add primary key (form_id, folder, day, shard);`);
    this.addSql(`
      insert into form_folder_counts (form_id, folder, day, shard, n)
      select form_id, case when status = 'spam' then 'spam' else 'inbox' end, (received_at at time zone 'UTC')::date, 0, count(*)
        from submissions group by 1, 2, 3;`);
    this.addSql(`
      create or replace function count_submission_folders() returns trigger language plpgsql as $$
      begin
        if tg_op in ('DELETE', 'UPDATE') then
          insert into form_folder_counts (form_id, folder, day, shard, n)
          values (old.form_id, case when old.status = 'spam' then 'spam' else 'inbox' end,
                  (old.received_at at time zone 'UTC')::date, 1 + floor(random() * 1023)::int, -1)
          on conflict (form_id, folder, day, shard) do update set n = form_folder_counts.n - 1;
        end if;
        if tg_op in ('INSERT', 'UPDATE') then
          insert into form_folder_counts (form_id, folder, day, shard, n)
          values (new.form_id, case when new.status = 'spam' then 'spam' else 'inbox' end,
                  (new.received_at at time zone 'UTC')::date, 1 + floor(random() * 1023)::int, 1)
          on conflict (form_id, folder, day, shard) do update set n = form_folder_counts.n + 1;
        end if;
        return null;
      end $$;`);
    this.addSql(`
      create or replace function count_deleted_submissions() returns trigger language plpgsql as $$
      begin
        insert into form_folder_counts (form_id, folder, day, shard, n)
        select form_id, case when status = 'spam' then 'spam' else 'inbox' end, (received_at at time zone 'UTC')::date,
               1 + floor(random() * 1023)::int, -count(*)
          from deleted group by 1, 2, 3
        on conflict (form_id, folder, day, shard) do update set n = form_folder_counts.n + excluded.n;
        return null;
      end $$;`);
    // A change of received_at (an import, a correction) moves the row to another day.
    this.addSql(`drop trigger submissions_count_folder_moves on submissions;`);
    this.addSql(`
      create trigger submissions_count_folder_moves after update of status, received_at on submissions
      for each row when ((old.status = 'spam') is distinct from (new.status = 'spam') or old.received_at is distinct from new.received_at)
      execute function count_submission_folders();`);
  }
}
