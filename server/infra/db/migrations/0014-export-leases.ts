import { Migration } from '@mikro-orm/migrations';

/**
 * One lease per running export, so every process counts the same exports per team. Unlogged: after a crash
 * the leases go with their exports; one its process stopped renewing expires.
 */
export class Migration0014ExportLeases extends Migration {
  override name = '0014-export-leases';

  override up(): void {
    this.addSql(`
      create unlogged table export_leases (
        id text primary key,
        team_id text not null,
        token_id text not null,
        form_id text not null,
        opened_at timestamptz not null default now(),
        expires_at timestamptz not null
      );`);
    this.addSql(`create index export_leases_team on export_leases (team_id, expires_at);`);
    this.addSql(`create index export_leases_expiry on export_leases (expires_at);`);
  }

  override down(): void {
    this.addSql(`drop table export_leases;`);
  }
}
