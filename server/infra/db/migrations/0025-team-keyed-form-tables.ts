import { Migration } from '@mikro-orm/migrations';

/** The tables keyed by form (or by a submission's key) that had no team, and what fills it. */
const TABLES = [
  { table: 'form_fields', key: ['form_id', 'name'], from: 'forms' },
  { table: 'form_folder_counts', key: ['form_id', 'folder', 'day', 'shard'], from: 'forms' },
  { table: 'idempotency_keys', key: ['form_id', 'key'], from: 'forms' },
  { table: 'autoresponse_sends', key: ['form_id', 'address_hash'], from: 'forms' },
  { table: 'notification_digests', key: ['form_id'], from: 'forms' },
  { table: 'submission_unique_keys', key: ['key'], from: 'submissions' },
] as const;

/** Of those, the ones whose rows go with their form (the folder counters and unique keys have no key to it). */
const WITH_THEIR_FORM = ['form_fields', 'idempotency_keys', 'autoresponse_sends', 'notification_digests'];

/**
 * Every tenant table carries `team_id`, in its primary key and in its key to its form: a table sharded by team
 * (docs/decisions.md, "Sharding by team") can only hold a row whose team it knows. The team comes last in each
 * key, so the same lookups by form use it; a form has one team, so each key means what it meant.
 */
export class Migration0025TeamKeyedFormTables extends Migration {
  override name = '0025-team-keyed-form-tables';

  override up(): void {
    for (const { table, key, from } of TABLES) {
      this.addSql(`alter table ${table} add column team_id text;`);
      this.addSql(
        from === 'forms'
          ? `update ${table} t set team_id = f.team_id from forms f where f.id = t.form_id;`
          : `update ${table} t set team_id = s.team_id from submissions s where s.id = t.submission_id;`,
      );
      // A row whose form or submission is gone belongs to no one (a key of a deleted submission would hold forever).
      this.addSql(`delete from ${table} where team_id is null;`);
      this.addSql(`alter table ${table} alter column team_id set not null;`);
      this.addSql(`alter table ${table} drop constraint ${table}_pkey, add primary key (${key.join(', ')}, team_id);`);
    }
    for (const table of WITH_THEIR_FORM) {
      this.addSql(
        `alter table ${table} drop constraint ${table}_form_id_fkey, add constraint ${table}_form_team_fkey ` +
          `foreign key (form_id, team_id) references forms (id, team_id) on delete cascade;`,
      );
    }

    // The triggers that write these tables name the team.
    this.addSql(`drop function bump_folder_count(text, text, date, integer);`);
    this.addSql(`
      create function bump_folder_count(p_team text, p_form text, p_folder text, p_day date, p_by integer) returns void
      language plpgsql as $$
      declare
        s smallint := 1 + pg_backend_pid() % 1023;
      begin
        update form_folder_counts set n = n + p_by
         where form_id = p_form and folder = p_folder and day = p_day and shard = s and team_id = p_team;
        if not found then
          insert into form_folder_counts (team_id, form_id, folder, day, shard, n) values (p_team, p_form, p_folder, p_day, s, p_by)
          on conflict (form_id, folder, day, shard, team_id) do update set n = form_folder_counts.n + excluded.n;
        end if;
      end $$;`);
    this.addSql(`
      create or replace function count_submission_folders() returns trigger language plpgsql as $$
      begin
        if tg_op in ('DELETE', 'UPDATE') then
          perform bump_folder_count(old.team_id, old.form_id, case when old.status = 'spam' then 'spam' else 'inbox' end,
                                    (old.received_at at time zone 'UTC')::date, -1);
        end if;
        if tg_op in ('INSERT', 'UPDATE') then
          perform bump_folder_count(new.team_id, new.form_id, case when new.status = 'spam' then 'spam' else 'inbox' end,
                                    (new.received_at at time zone 'UTC')::date, 1);
        end if;
        return null;
      end $$;`);
    this.addSql(`
      create or replace function count_deleted_submissions() returns trigger language plpgsql as $$
      begin
        insert into form_folder_counts (team_id, form_id, folder, day, shard, n)
        select team_id, form_id, case when status = 'spam' then 'spam' else 'inbox' end, (received_at at time zone 'UTC')::date,
               1 + pg_backend_pid() % 1023, -count(*)
          from deleted group by 1, 2, 3, 4
        on conflict (form_id, folder, day, shard, team_id) do update set n = form_folder_counts.n + excluded.n;
        return null;
      end $$;`);
    this.addSql(`
      create or replace function learn_form_field() returns trigger language plpgsql as $$
      declare learned integer;
      begin
        update forms set field_count = field_count + 1
         where id = new.form_id and team_id = new.team_id and field_count < 500
        returning field_count into learned;
        if learned is null then
          update forms set fields_overflow = true where id = new.form_id and team_id = new.team_id and not fields_overflow;
          return null;
        end if;
        return new;
      end $$;`);
    this.addSql(`
      create or replace function release_unique_keys() returns trigger language plpgsql as $$
      begin
        delete from submission_unique_keys where submission_id = new.id and team_id = new.team_id;
        return null;
      end $$;`);
    this.addSql(`
      create or replace function release_deleted_unique_keys() returns trigger language plpgsql as $$
      begin
        delete from submission_unique_keys k using deleted d where k.submission_id = d.id and k.team_id = d.team_id;
        return null;
      end $$;`);
  }
}
