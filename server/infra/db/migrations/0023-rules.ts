import { Migration } from '@mikro-orm/migrations';

/**
 * Rules per form, run in `position` order (unique per form, checked at the end of each statement so a new
 * order is one update); the rules each submission met; and on forms whether any enabled rule runs on spam, so
 * the public endpoint knows, from the row it already reads, when a spam post has rules to run.
 */
export class Migration0023Rules extends Migration {
  override name = '0023-rules';

  override up(): void {
    this.addSql(`
      create table form_rules (
        id text primary key,
        team_id text not null references teams(id) on delete cascade,
        form_id text not null references forms(id) on delete cascade,
        position integer not null,
        name text not null,
        enabled boolean not null,
        on_event text not null,
        "when" jsonb not null,
        actions jsonb not null,
        stop boolean not null,
        fallback boolean not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint form_rules_position unique (form_id, position) deferrable initially immediate
      );`);
    this.addSql(`alter table submissions add column rules_applied jsonb;`);
    this.addSql(`alter table forms add column spam_rules boolean not null default false;`);
  }

  override down(): void {
    this.addSql(`alter table forms drop column spam_rules;`);
    this.addSql(`alter table submissions drop column rules_applied;`);
    this.addSql(`drop table form_rules;`);
  }
}
