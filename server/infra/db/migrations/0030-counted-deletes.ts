import { Migration } from '@mikro-orm/migrations';

/**
 * Deleting submissions counts its folders and releases its unique keys in the deleting statement itself
 * (deletingSubmissions in queries/submissions.ts): the statement-level triggers that did it read a transition
 * table, which Citus cannot give a trigger on a shard (docs/scaling.md). A form's erasure takes its counters
 * with it; its submissions' keys hold its id, so no later post of another form meets them.
 */
export class Migration0030CountedDeletes extends Migration {
  override name = '0030-counted-deletes';

  override up(): void {
    this.addSql(`
      do $$
      begin
        if exists (select 1 from pg_extension where extname = 'citus') then
          -- Dropped on every shard too, over one connection per node (the functions are distributed objects).
          perform set_config('citus.enable_unsafe_triggers', 'on', true);
          perform set_config('citus.multi_shard_modify_mode', 'sequential', true);
        end if;
        drop trigger submissions_count_deletes on submissions;
        drop trigger submissions_release_keys_on_delete on submissions;
        drop function count_deleted_submissions();
        drop function release_deleted_unique_keys();
      end $$;`);
  }
}
