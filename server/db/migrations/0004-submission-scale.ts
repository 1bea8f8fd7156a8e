import { Migration } from '@mikro-orm/migrations';

export class Migration0004SubmissionScale extends Migration {
  override name = '0004-submission-scale';

  override up(): void {
    // The list indexes again, ascending: a btree serves `order by received_at desc, id desc` just as
    // well backwards, and submissions arrive in received_at order. Descending, every new entry goes to
    // the left edge of its form's range, where page splits leave both halves half full: the indexes of
    // a form with 1,000,000 submissions were 155 MB instead of 87, and a deep page (an index-only scan
    // over the skipped entries) read twice the pages. Ascending, the new entries go to the right edge,
    // which the btree packs full.
    for (const [name, columns, where] of [
      ['submissions_inbox', 'form_id, received_at, id', `where status <> 'spam'`],
      ['submissions_spam', 'form_id, received_at, id', `where status = 'spam'`],
      ['submissions_all', 'form_id, received_at, id', ''],
      ['submissions_team_category', 'form_id, category, received_at, id', ''],
    ]) {
      this.addSql(`drop index ${name};`);
      this.addSql(`create index ${name} on submissions (${columns}) ${where};`);
    }

    // A form's files: the export's "which submissions have files" set, its file count, and the storage
    // keys collected when a form is erased (all were sequential scans of submission_files).
    this.addSql(`create index submission_files_form on submission_files (form_id);`);

    // Folder counters on delete, once per statement instead of once per row. The row trigger upserts one
    // of 16 counter rows per deleted submission; inside one transaction every upsert walks the counter
    // row's version chain, which grows with each update, so deleting n rows cost O(n²): erasing a form
    // with 100,000 submissions (the cascade deletes them in one statement) took minutes, with 1,000,000
    // hours. Summed over the statement's transition table it is one upsert per form and folder.
    // Inserts keep the row trigger: ingest inserts one row per statement, where a row trigger is cheaper.
    this.addSql(`
      create function count_deleted_submissions() returns trigger language plpgsql as $$
      begin
        insert into form_folder_counts (form_id, folder, shard, n)
        select form_id, case when status = 'spam' then 'spam' else 'inbox' end, floor(random() * 16)::int, -count(*)
          from deleted group by 1, 2
        on conflict (form_id, folder, shard) do update set n = form_folder_counts.n + excluded.n;
        return null;
      end $$;`);
    this.addSql(`drop trigger submissions_count_folders on submissions;`);
    this.addSql(`
      create trigger submissions_count_inserts after insert on submissions
      for each row execute function count_submission_folders();`);
    this.addSql(`
      create trigger submissions_count_deletes after delete on submissions
      referencing old table as deleted for each statement execute function count_deleted_submissions();`);
  }
}
