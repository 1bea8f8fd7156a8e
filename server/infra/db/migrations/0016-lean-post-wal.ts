import { Migration } from '@mikro-orm/migrations';

/**
 * Less WAL per accepted post (issue 30, bench/README.md "Where each post's WAL goes"); every count stays
 * exact and every constraint that guards data stays.
 *
 * - The folder counters' trigger updates its shard row first and inserts only when there is none (a shard's
 *   first post of the day). `insert … on conflict do update` logs a row lock, and a speculative insert and its
 *   confirmation when the row is new, before its update: three records where one does. The shard is the
 *   writing backend's (its pid), not a random one of 1,023: a backend runs one transaction at a time, so two
 *   posts meet on a row only when two backends' pids share a shard — no more often than random shards met —
 *   and each backend's row keeps being updated on the same page (HOT, pruned in place) instead of spreading
 *   a day's posts over 1,023 rows, each first written (inserted, indexed) per day and after each checkpoint
 *   its page logged whole again. Shard 0 stays the daily compaction's.
 * - `submissions.team_id` loses its foreign key to `teams`: each insert logged a share lock on the team row
 *   (and a multixact when posts overlapped). The team is the form's — `form_id` keeps its key to `forms`,
 *   whose rows cascade from their team, so a team's deletion still takes its submissions with it.
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
