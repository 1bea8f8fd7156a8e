import { Migration } from '@mikro-orm/migrations';

/**
 * Weekly AI insights: every generation is kept, the latest served. `insight_locks` holds each team's
 * regeneration lock (`locked_until`, taken by a conditional upsert, so it holds across processes).
 */
export class Migration0008Insights extends Migration {
  override name = '0008-insights';

  override up(): void {
    this.addSql(`
      create table insights (
        id text primary key,
        team_id text not null references teams(id) on delete cascade,
        form_id text references forms(id) on delete cascade,
        period_start timestamptz not null,
        period_end timestamptz not null,
        generated_at timestamptz not null,
        provider text not null,
        data jsonb not null
      );`);
    this.addSql(`create index insights_latest on insights (team_id, form_id, generated_at desc, id desc);`);
    this.addSql(`
      create table insight_locks (
        team_id text primary key references teams(id) on delete cascade,
        locked_until timestamptz not null,
        queued_at timestamptz not null
      );`);
  }
}
