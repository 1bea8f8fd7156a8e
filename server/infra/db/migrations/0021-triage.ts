import { Migration } from '@mikro-orm/migrations';

/**
 * Triage: tags, a stage and an assignee on each submission, and notes. Constant defaults, so adding the
 * columns rewrites nothing. The indexes are partial, so a new submission (no tag, no assignee, the default
 * first stage `new`) adds no entry to them and ingest writes what it wrote before; a form whose first stage
 * has another key has its new submissions in the stage index. Assignees and note authors are users by id, without
 * a foreign key (no check on the ingest path): a user no longer there reads as none.
 */
export class Migration0021Triage extends Migration {
  override name = '0021-triage';

  override up(): void {
    this.addSql(`alter table submissions add column tags text[] not null default '{}';`);
    this.addSql(`alter table submissions add column stage text not null default 'new';`);
    this.addSql(`alter table submissions add column assignee_id text;`);
    this.addSql(`alter table submissions add column notes_count integer not null default 0;`);
    this.addSql(`create index submissions_tags on submissions using gin (form_id, tags) where tags <> '{}';`);
    this.addSql(
      `create index submissions_stage on submissions (form_id, stage, received_at, id) include (status) where stage <> 'new';`,
    );
    this.addSql(
      `create index submissions_assignee on submissions (form_id, assignee_id, received_at, id) where assignee_id is not null;`,
    );
    this.addSql(`
      create table submission_notes (
        id text primary key,
        team_id text not null references teams(id) on delete cascade,
        submission_id text not null references submissions(id) on delete cascade,
        author_user_id text,
        author_token_id text,
        body text not null,
        created_at timestamptz not null default now()
      );`);
    this.addSql(`create index submission_notes_submission on submission_notes (submission_id, created_at, id);`);
  }

  override down(): void {
    this.addSql(`drop table submission_notes;`);
    this.addSql(`drop index submissions_assignee;`);
    this.addSql(`drop index submissions_stage;`);
    this.addSql(`drop index submissions_tags;`);
    this.addSql(`alter table submissions drop column notes_count;`);
    this.addSql(`alter table submissions drop column assignee_id;`);
    this.addSql(`alter table submissions drop column stage;`);
    this.addSql(`alter table submissions drop column tags;`);
  }
}
