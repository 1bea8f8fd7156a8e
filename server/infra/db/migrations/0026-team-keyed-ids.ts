import { Migration } from '@mikro-orm/migrations';

/** Tenant tables keyed by their id alone until now (forms keep their unique `(id, team_id)` index as the key). */
const ID_KEYED = [
  'api_tokens',
  'deliveries',
  'erasure_requests',
  'export_leases',
  'form_rules',
  'insights',
  'invoices',
  'jobs',
  'submission_events',
  'submission_files',
  'submission_notes',
  'submission_streams',
  'submissions',
  'subscriptions',
  'webhooks',
];

/** Keys between tenant tables that named the parent's id alone: each now carries the team. */
const KEYS = [
  { table: 'form_rules', column: 'form_id', parent: 'forms' },
  { table: 'insights', column: 'form_id', parent: 'forms' },
  { table: 'submission_files', column: 'form_id', parent: 'forms' },
  { table: 'webhooks', column: 'form_id', parent: 'forms' },
  { table: 'idempotency_keys', column: 'submission_id', parent: 'submissions' },
  { table: 'submission_files', column: 'submission_id', parent: 'submissions' },
  { table: 'submission_events', column: 'submission_id', parent: 'submissions' },
  { table: 'submission_notes', column: 'submission_id', parent: 'submissions' },
  { table: 'deliveries', column: 'webhook_id', parent: 'webhooks' },
];

/**
 * Every tenant table's primary key is `(id, team_id)`, and every key between tenant tables carries the team
 * (docs/decisions.md, "Sharding by team"). Lookups by id use the same index; an id has one team, so each key
 * means what it meant.
 */
export class Migration0026TeamKeyedIds extends Migration {
  override name = '0026-team-keyed-ids';

  override up(): void {
    for (const { table, column } of KEYS) this.addSql(`alter table ${table} drop constraint ${table}_${column}_fkey;`);
    this.addSql(`alter table forms drop constraint forms_pkey;`);
    this.addSql(`alter table forms add constraint forms_pkey primary key using index forms_id_team;`);
    for (const table of ID_KEYED)
      this.addSql(`alter table ${table} drop constraint ${table}_pkey, add primary key (id, team_id);`);
    for (const { table, column, parent } of KEYS) {
      this.addSql(
        `alter table ${table} add constraint ${table}_${column.replace(/_id$/, '')}_team_fkey ` +
          `foreign key (${column}, team_id) references ${parent} (id, team_id) on delete cascade;`,
      );
    }
    this.addSql(`alter table form_rules drop constraint form_rules_position;`);
    this.addSql(
      `alter table form_rules add constraint form_rules_position unique (form_id, position, team_id) deferrable;`,
    );
    this.addSql(`drop index deliveries_replay_once;`);
    this.addSql(
      `create unique index deliveries_replay_once on deliveries (replay_job_id, replay_of, team_id) where replay_job_id is not null;`,
    );
  }
}
