import { Migration } from '@mikro-orm/migrations';

/**
 * The statements that insert submissions or change their status count their folders and release unique keys
 * themselves (countingChanges in queries/submissions.ts, the accepting statements in
 * queries/submission-inserts.ts), as deletes do since migration 0030, and the statements that learn field
 * names count and cap them (learningNames in queries/forms.ts): the row triggers that did it wrote other
 * tables from each shard on Citus (docs/scaling.md).
 */
export class Migration0032CountedChanges extends Migration {
  override name = '0032-counted-changes';

  override up(): void {
    this.addSql(`
      do $$
      begin
        if exists (select 1 from pg_extension where extname = 'citus') then
          perform set_config('citus.enable_unsafe_triggers', 'on', true);
          perform set_config('citus.multi_shard_modify_mode', 'sequential', true);
        end if;
        drop trigger submissions_count_inserts on submissions;
        drop trigger submissions_count_folder_moves on submissions;
        drop trigger submissions_release_keys_on_spam on submissions;
        drop function count_submission_folders();
        drop function release_unique_keys();
        drop function bump_folder_count(text, text, text, date, integer);
        drop trigger form_fields_limit on form_fields;
        drop function learn_form_field();
      end $$;`);
  }
}
