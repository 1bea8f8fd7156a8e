import { Migration } from '@mikro-orm/migrations';

/** Tenant tables this migration adds (distributed like migration 0029's on Citus). */
export const STREAM_TABLES = ['stream_heads', 'stream_numbers'];

/**
 * Stream positions as a per-form sequence (docs/listen.md): the statement that makes a submission an event
 * (the last of its transaction) takes the next number of its form's `stream_heads` row, which stays locked until
 * the commit, and records it in `stream_numbers`: a form's numbers commit in order and mean the same on any node,
 * after any shard move. Events already made are numbered in their transactions' order. `stream_xid` stays on
 * them, read only to resume from an event id or a webhook's spam position of the snapshot kind
 * (positionOfSnapshot, queries/submission-stream.ts).
 */
export class Migration0031StreamPositions extends Migration {
  override name = '0031-stream-positions';

  override up(): void {
    this.addSql(`
      create table stream_heads (
        form_id text not null,
        team_id text not null,
        position bigint not null,
        primary key (form_id, team_id)
      );`);
    this.addSql(`
      create table stream_numbers (
        submission_id text not null,
        team_id text not null,
        form_id text not null,
        seq bigint not null,
        primary key (submission_id, team_id)
      );`);
    // On Citus the tables are split by team before their keys can exist (a local table cannot reference a
    // distributed one); the trigger below is dropped on every shard too.
    this.addSql(`
      do $$
      begin
        if exists (select 1 from pg_extension where extname = 'citus') then
          perform set_config('citus.enable_unsafe_triggers', 'on', true);
          perform set_config('citus.multi_shard_modify_mode', 'sequential', true);
          perform create_distributed_table('stream_heads', 'team_id', colocate_with => 'teams');
          perform create_distributed_table('stream_numbers', 'team_id', colocate_with => 'teams');
        end if;
      end $$;`);
    this.addSql(
      `alter table stream_heads add foreign key (form_id, team_id) references forms (id, team_id) on delete cascade;`,
    );
    this.addSql(
      `alter table stream_numbers add foreign key (submission_id, team_id) references submissions (id, team_id) on delete cascade;`,
    );
    this.addSql(`
      insert into stream_numbers (submission_id, team_id, form_id, seq)
      select id, team_id, form_id, row_number() over (partition by team_id, form_id order by stream_xid, id)
        from submissions where stream_xid is not null;`);
    this.addSql(`
      insert into stream_heads (form_id, team_id, position)
      select form_id, team_id, max(seq) from stream_numbers group by form_id, team_id;`);
    this.addSql(`create index stream_numbers_form on stream_numbers (form_id, seq, submission_id);`);
    // Door spam is numbered by the accepting statement.
    this.addSql(`drop trigger submissions_stream_spam on submissions;`);
    this.addSql(`drop function mark_spam_stream_event();`);
  }
}
