import { Migration } from '@mikro-orm/migrations';

/** Tenant tables this migration adds (distributed like migration 0029's on Citus). */
export const STREAM_TABLES = ['stream_heads'];

/**
 * Stream positions as a per-form sequence (docs/listen.md): the statement that makes a submission an event
 * takes the next number of its form's `stream_heads` row and holds that row until it commits, so the numbers
 * of a form commit in order and mean the same on any node, after any shard move. Events already made are
 * numbered in their transactions' order. `stream_xid` stays on them, read only to resume from an event id or
 * a webhook's spam position of the snapshot kind (positionOfSnapshot, queries/submission-stream.ts).
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
    // On Citus the table is split by team before its key to forms can exist (a local table cannot reference
    // a distributed one); the trigger below is dropped on every shard too.
    this.addSql(`
      do $$
      begin
        if exists (select 1 from pg_extension where extname = 'citus') then
          perform set_config('citus.enable_unsafe_triggers', 'on', true);
          perform set_config('citus.multi_shard_modify_mode', 'sequential', true);
          perform create_distributed_table('stream_heads', 'team_id', colocate_with => 'teams');
        end if;
      end $$;`);
    this.addSql(
      `alter table stream_heads add foreign key (form_id, team_id) references forms (id, team_id) on delete cascade;`,
    );
    this.addSql(`alter table submissions add column stream_seq bigint;`);
    this.addSql(`
      update submissions s set stream_seq = n.seq
        from (select id, team_id, row_number() over (partition by team_id, form_id order by stream_xid, id) as seq
                from submissions where stream_xid is not null) n
       where s.id = n.id and s.team_id = n.team_id;`);
    this.addSql(`
      insert into stream_heads (form_id, team_id, position)
      select form_id, team_id, max(stream_seq) from submissions where stream_seq is not null group by form_id, team_id;`);
    this.addSql(
      `create index submissions_stream_seq on submissions (form_id, stream_seq, id) where stream_seq is not null;`,
    );
    // Door spam is numbered by the accepting statement.
    this.addSql(`drop trigger submissions_stream_spam on submissions;`);
    this.addSql(`drop function mark_spam_stream_event();`);
  }
}
