import { Migration } from '@mikro-orm/migrations';

/**
 * The submission stream (docs/listen.md). `stream_xid` is the transaction that made a submission an event;
 * a stream reads the events committed since its last snapshot (`pg_visible_in_snapshot`), so a late commit is
 * never missed. `submission_streams` holds one unlogged lease per open stream, counted by every process.
 */
export class Migration0012SubmissionStream extends Migration {
  override name = '0012-submission-stream';

  override up(): void {
    this.addSql(`alter table submissions add column stream_xid xid8;`);
    this.addSql(
      `create index submissions_stream on submissions (form_id, stream_xid, id) where stream_xid is not null;`,
    );
    // Posts judged spam at the door never pass processing: their insert marks them.
    this.addSql(`
      create function mark_spam_stream_event() returns trigger language plpgsql as $$
      begin
        new.stream_xid := pg_current_xact_id();
        return new;
      end $$;`);
    this.addSql(
      `create trigger submissions_stream_spam before insert on submissions for each row when (new.status = 'spam') execute function mark_spam_stream_event();`,
    );
    this.addSql(`
      create unlogged table submission_streams (
        id text primary key,
        team_id text not null,
        token_id text not null,
        form_id text not null,
        opened_at timestamptz not null default now(),
        expires_at timestamptz not null
      );`);
    this.addSql(`create index submission_streams_team on submission_streams (team_id, expires_at);`);
    this.addSql(`create index submission_streams_expiry on submission_streams (expires_at);`);
  }

  override down(): void {
    this.addSql(`drop table submission_streams;`);
    this.addSql(`drop trigger submissions_stream_spam on submissions;`);
    this.addSql(`drop function mark_spam_stream_event();`);
    this.addSql(`drop index submissions_stream;`);
    this.addSql(`alter table submissions drop column stream_xid;`);
  }
}
