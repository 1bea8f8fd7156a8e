import { Migration } from '@mikro-orm/migrations';

/**
 * The triage filters answer from their indexes alone: the stage and assignee indexes carry the other filter's
 * column and the status (the folder), and tagged submissions have a time-ordered index carrying their tags, so a
 * list filtered by tag, stage or assignee (and its capped count) reads index entries, not heap rows, until the
 * page. Each index is partial: a new submission (no tag, stage `new`, no assignee) adds no entry.
 */
export class Migration0024TriageFilterIndexes extends Migration {
  override name = '0024-triage-filter-indexes';

  override up(): void {
    this.addSql(`drop index submissions_stage;`);
    this.addSql(
      `create index submissions_stage on submissions (form_id, stage, received_at, id) include (status, assignee_id) where stage <> 'new';`,
    );
    this.addSql(`drop index submissions_assignee;`);
    this.addSql(
      `create index submissions_assignee on submissions (form_id, assignee_id, received_at, id) include (status, stage) where assignee_id is not null;`,
    );
    this.addSql(
      `create index submissions_tagged on submissions (form_id, received_at, id) include (status, tags) where tags <> '{}';`,
    );
  }

  override down(): void {
    this.addSql(`drop index submissions_tagged;`);
    this.addSql(`drop index submissions_assignee;`);
    this.addSql(
      `create index submissions_assignee on submissions (form_id, assignee_id, received_at, id) where assignee_id is not null;`,
    );
    this.addSql(`drop index submissions_stage;`);
    this.addSql(
      `create index submissions_stage on submissions (form_id, stage, received_at, id) include (status) where stage <> 'new';`,
    );
  }
}
