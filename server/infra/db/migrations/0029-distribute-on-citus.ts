import { Migration } from '@mikro-orm/migrations';

/** Shared by every team, small and read on every request: a copy on every Citus node. */
export const REFERENCE_TABLES = ['plans', 'users', 'api_token_teams', 'form_teams'];

/** Split by team across Citus nodes, each team's rows on the shard of its `teams` row. */
export const TENANT_TABLES = [
  'forms',
  'memberships',
  'api_tokens',
  'subscriptions',
  'invoices',
  'usage_counters',
  'submissions',
  'form_fields',
  'form_folder_counts',
  'idempotency_keys',
  'submission_files',
  'submission_events',
  'webhooks',
  'deliveries',
  'jobs',
  'insights',
  'insight_locks',
  'autoresponse_sends',
  'notification_addresses',
  'erasure_requests',
  'notification_digests',
  'submission_streams',
  'export_leases',
  'submission_unique_keys',
  'submission_notes',
  'form_rules',
];

/**
 * On a database with the Citus extension (docs/scaling.md), distributes the schema by team: `teams` by its
 * id, every tenant table by `team_id` co-located with it, the shared lookups as reference tables. The
 * process-coordination tables (`rate_limit_windows`, the migration log, pg-boss's schema) stay on the
 * coordinator. Foreign keys and triggers are set aside while the tables move and put back as they were. Rows
 * already present move to the shards. On plain Postgres it does nothing.
 */
export class Migration0029DistributeOnCitus extends Migration {
  override name = '0029-distribute-on-citus';

  override up(): void {
    this.addSql(`
      do $$
      declare
        fk record;
        t text;
      begin
        if not exists (select 1 from pg_extension where extname = 'citus') then return; end if;
        -- The counting, learning and key-releasing triggers run on each shard (docs/scaling.md).
        perform set_config('citus.enable_unsafe_triggers', 'on', true);
        -- Distributing in a transaction that has already written needs one connection per node.
        perform set_config('citus.multi_shard_modify_mode', 'sequential', true);
        create temp table distributed_fks on commit drop as
          select conrelid::regclass::text as tbl, conname, pg_get_constraintdef(oid) as def
            from pg_constraint where contype = 'f' and connamespace = 'public'::regnamespace;
        for fk in select * from distributed_fks loop
          execute format('alter table %s drop constraint %I', fk.tbl, fk.conname);
        end loop;
        -- Rows already present are copied to the shards: triggers set aside too, so nothing counts them twice.
        create temp table distributed_triggers on commit drop as
          select tgrelid::regclass::text as tbl, tgname, pg_get_triggerdef(oid) as def
            from pg_trigger where not tgisinternal and tgrelid in (select oid from pg_class where relnamespace = 'public'::regnamespace);
        for fk in select * from distributed_triggers loop
          execute format('drop trigger %I on %s', fk.tgname, fk.tbl);
        end loop;
        foreach t in array array[${REFERENCE_TABLES.map((t) => `'${t}'`).join(', ')}] loop
          perform create_reference_table(t);
          perform truncate_local_data_after_distributing_table(t);
        end loop;
        perform create_distributed_table('teams', 'id');
        perform truncate_local_data_after_distributing_table('teams');
        foreach t in array array[${TENANT_TABLES.map((t) => `'${t}'`).join(', ')}] loop
          perform create_distributed_table(t, 'team_id', colocate_with => 'teams');
          perform truncate_local_data_after_distributing_table(t);
        end loop;
        for fk in select * from distributed_fks loop
          execute format('alter table %s add constraint %I %s', fk.tbl, fk.conname, fk.def);
        end loop;
        for fk in select * from distributed_triggers loop
          execute fk.def;
        end loop;
      end $$;`);
  }
}
