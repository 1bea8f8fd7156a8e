import { Migration } from '@mikro-orm/migrations';

/**
 * Less WAL per accepted post (docs/decisions.md): the folder counters' trigger updates the writing backend's
 * shard row in place and inserts only when there is none; `submissions.team_id` drops its foreign key to
 * `teams` (the form's key still cascades a team's deletion). Every count stays exact.
 */
export class Migration0016LeanPostWal extends Migration {
  override name = '0016-lean-post-wal';

  override up(): void {
    this.addSql(`alter table submissions drop constraint if exists submissions_team_id_fkey;`);
    this.addSql(`
      create or replace function bump_folder_count(p_form text, p_folder text, p_day date, p_by integer) returns void
      language plpgsql as $$
      declare
        s smallint := 1 + pg_backend_pid() % 1023;
      begin
        update form_folder_counts set n = n + p_by where form_id = p_form and folder = p_folder and day = p_day and shard = s;
        if not found then
          insert into form_folder_counts (form_id, folder, day, shard, n) values (p_form, p_folder, p_day, s, p_by)
          on conflict (form_id, folder, day, shard) do update set n = form_folder_counts.n + excluded.n;
        end if;
      end $$;`);
    this.addSql(`
      create or replace function count_submission_folders() returns trigger language plpgsql as $$
      begin
        if tg_op in ('DELETE', 'UPDATE') then
          perform bump_folder_count(old.form_id, case when old.status = 'spam' then 'spam' else 'inbox' end,
                                    (old.received_at at time zone 'UTC')::date, -1);
        end if;
        if tg_op in ('INSERT', 'UPDATE') then
          perform bump_folder_count(new.form_id, case when new.status = 'spam' then 'spam' else 'inbox' end,
                                    (new.received_at at time zone 'UTC')::date, 1);
        end if;
        return null;
      end $$;`);
    this.addSql(`
      create or replace function count_deleted_submissions() returns trigger language plpgsql as $$
      begin
        insert into form_folder_counts (form_id, folder, day, shard, n)
        select form_id, case when status = 'spam' then 'spam' else 'inbox' end, (received_at at time zone 'UTC')::date,
               1 + pg_backend_pid() % 1023, -count(*)
          from deleted group by 1, 2, 3
        on conflict (form_id, folder, day, shard) do update set n = form_folder_counts.n + excluded.n;
        return null;
      end $$;`);
  }
}
