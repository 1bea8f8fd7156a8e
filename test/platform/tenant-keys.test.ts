import { describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { migrate, openDatabase } from '../../server/infra/db/database.ts';
import {
  REFERENCE_TABLES,
  TENANT_TABLES as DISTRIBUTED_BY_0029,
} from '../../server/infra/db/migrations/0029-distribute-on-citus.ts';
import { STREAM_TABLES } from '../../server/infra/db/migrations/0031-stream-positions.ts';
import { recordFieldNames } from '../../server/infra/db/queries/forms.ts';
import { deleteSubmissions, setStatus } from '../../server/infra/db/queries/submissions.ts';
import { onCitus } from '../support/citus-app.ts';
import { startTestApp } from '../support/harness.ts';
import { privateDatabaseUrl, tempDataDir } from '../support/processing.ts';

/**
 * The schema on its way to being sharded by team (docs/decisions.md, "Sharding by team"): every tenant table
 * carries `team_id`, and its keys include it, so a table or key added without its team fails this file.
 */
const t = await startTestApp();
const citus = onCitus;
const m25 = { url: await privateDatabaseUrl(), dataDir: tempDataDir() };

/** Not one team's: the plans, the people (a user may belong to several teams), the teams themselves, the migration log, the rate windows (keyed by address). */
const SHARED = ['intake_migrations', 'plans', 'rate_limit_windows', 'teams', 'users'];

/** Shared by all teams, naming one each: the team of a token or a form, whose hash or id arrives without one. */
const LOOKUPS = ['api_token_teams', 'form_teams'];

/** Every table split by team on Citus: migration 0029's, and those added since. */
const TENANT_TABLES = [...DISTRIBUTED_BY_0029, ...STREAM_TABLES];

/** A foreign key's refusal; on Citus it comes from a shard, whose constraint (named in the message) has a suffix. */
const refusedBy = (constraint: string) => ({ code: '23503', message: expect.stringContaining(`"${constraint}`) });

const hasTeam = (key: string) => `exists (
  select 1 from unnest(${key}) k join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k where a.attname = 'team_id')`;

describe('tenant tables carry their team', () => {
  it('every table but the shared ones has a team_id that is never null', async () => {
    const { rows } = await t.ctx.db.query<{ table: string; team: boolean; not_null: boolean }>(
      `select c.relname as table, a.attname is not null as team, coalesce(a.attnotnull, false) as not_null
         from pg_class c left join pg_attribute a on a.attrelid = c.oid and a.attname = 'team_id' and not a.attisdropped
        where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') order by 1`,
    );
    expect(rows.filter((r) => !r.team).map((r) => r.table)).toEqual(SHARED);
    expect(rows.filter((r) => r.team && !r.not_null).map((r) => r.table)).toEqual([]);
    // What the migrations distribute on Citus: a table added to the schema is added to their lists.
    const tenant = rows.filter((r) => r.team && !LOOKUPS.includes(r.table)).map((r) => r.table);
    expect([...TENANT_TABLES].sort()).toEqual(tenant);
    expect([...REFERENCE_TABLES].sort()).toEqual(['plans', 'users', ...LOOKUPS].sort());
  });

  it.runIf(citus)(
    'on Citus, teams and every tenant table are split by team on co-located shards, the lookups copied to every node',
    async () => {
      const { rows } = await t.ctx.db.query<{ table: string; method: string; column: string | null; group: number }>(
        `select logicalrelid::regclass::text as table, partmethod as method, colocationid as group,
              case when partmethod = 'h' then column_to_column_name(logicalrelid, partkey) end as column
         from pg_dist_partition where logicalrelid::regclass::text not like 'pgboss.%' order by 1`,
      );
      const teams = rows.find((r) => r.table === 'teams');
      expect(teams).toMatchObject({ method: 'h', column: 'id' });
      const split = rows.filter((r) => r.method === 'h' && r.table !== 'teams');
      expect(split.map((r) => r.table)).toEqual([...TENANT_TABLES].sort());
      for (const r of split) expect(r, r.table).toMatchObject({ column: 'team_id', group: teams!.group });
      expect(rows.filter((r) => r.method === 'n').map((r) => r.table)).toEqual([...REFERENCE_TABLES].sort());
      expect(rows.length).toBe(TENANT_TABLES.length + REFERENCE_TABLES.length + 1);
    },
  );

  it('primary keys, unique keys and the keys between tenant tables include the team', async () => {
    const { rows: unique } = await t.ctx.db.query<{ table: string; index: string }>(
      `select c.relname as table, i.indexrelid::regclass::text as index
         from pg_index i join pg_class c on c.oid = i.indrelid
        where c.relnamespace = 'public'::regnamespace and i.indisunique and c.relname <> all($1)
          and not exists (select 1 from unnest(i.indkey) k join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k
                           where a.attname = 'team_id')
        order by 2`,
      [[...SHARED, ...LOOKUPS]],
    );
    expect(unique.map((r) => r.index)).toEqual([]);
    const { rows: foreign } = await t.ctx.db.query<{ key: string }>(
      `select c.conrelid::regclass::text || ' → ' || c.confrelid::regclass::text as key from pg_constraint c
        where c.connamespace = 'public'::regnamespace and c.contype = 'f' and not ${hasTeam('c.conkey')}
          and c.confrelid::regclass::text <> all($1)
        order by 1`,
      [[...SHARED, ...LOOKUPS]],
    );
    expect(foreign.map((r) => r.key)).toEqual([]);
  });
});

describe('migrations 0025 to 0027', () => {
  it("gives existing rows their form's team and drops rows of no one's; later statements write the team", async () => {
    const db = await openDatabase(loadConfig({ DATABASE_URL: m25.url, INTAKE_DATA_DIR: m25.dataDir }), {
      connections: 3,
    });
    onTestFinished(() => db.close());
    await db.orm.migrator.up({ to: '0024-triage-filter-indexes' });
    const q = (text: string) => db.db.query(text);
    await q(`insert into teams (id, name, plan_id) values ('team_a', 'A', 'free'), ('team_b', 'B', 'free')`);
    await q(`insert into forms (id, team_id, name, status) values
               ('frm_a', 'team_a', 'A', 'published'), ('frm_b', 'team_b', 'B', 'published')`);
    await q(`insert into submissions (id, team_id, form_id, status, payload, metadata, received_at) values
               ('subm_a', 'team_a', 'frm_a', 'processed', '{"email": "a@example.com"}', '{}', '2026-01-02T10:00:00Z'),
               ('subm_b', 'team_b', 'frm_b', 'processed', '{"email": "b@example.com"}', '{}', '2026-01-02T10:00:00Z')`);
    await q(`insert into form_fields (form_id, name) values ('frm_a', 'email'), ('frm_b', 'email')`);
    await q(
      `insert into idempotency_keys (form_id, key, submission_id) values ('frm_a', 'k1', 'subm_a'), ('frm_b', 'k1', 'subm_b')`,
    );
    await q(
      `insert into autoresponse_sends (form_id, address_hash, submission_id, sent_at) values ('frm_b', 'h', 'subm_b', now())`,
    );
    await q(`insert into notification_digests (form_id, sent_until) values ('frm_a', now())`);
    await q(
      `insert into submission_unique_keys (key, submission_id) values ('ka', 'subm_a'), ('kb', 'subm_b'), ('gone', 'subm_gone')`,
    );
    await q(`insert into users (id, email, name) values ('user_a', 'a@example.com', 'A')`);
    await q(`insert into api_tokens (id, team_id, user_id, name, abilities, token_hash, last4)
               values ('tok_a', 'team_a', 'user_a', 'CI', '{}', 'hash_a', 'abcd')`);

    expect(await migrate(db)).toEqual([
      '0025-team-keyed-form-tables',
      '0026-team-keyed-ids',
      '0027-token-teams',
      '0028-form-teams',
      '0029-distribute-on-citus',
      '0030-counted-deletes',
      '0031-stream-positions',
      '0032-counted-changes',
      '0033-list-indexes-carry-team',
    ]);

    const teams = async (table: string, column: string) =>
      (await db.db.query(`select ${column} as row, team_id from ${table} order by 1`)).rows;
    expect(await teams('form_fields', 'form_id')).toEqual([
      { row: 'frm_a', team_id: 'team_a' },
      { row: 'frm_b', team_id: 'team_b' },
    ]);
    expect(await teams('form_folder_counts', `form_id || '/' || folder`)).toEqual([
      { row: 'frm_a/inbox', team_id: 'team_a' },
      { row: 'frm_b/inbox', team_id: 'team_b' },
    ]);
    expect(await teams('idempotency_keys', 'form_id')).toEqual([
      { row: 'frm_a', team_id: 'team_a' },
      { row: 'frm_b', team_id: 'team_b' },
    ]);
    expect(await teams('autoresponse_sends', 'form_id')).toEqual([{ row: 'frm_b', team_id: 'team_b' }]);
    expect(await teams('notification_digests', 'form_id')).toEqual([{ row: 'frm_a', team_id: 'team_a' }]);
    // A token's hash and id find its team.
    expect((await db.db.query(`select token_hash, token_id, team_id from api_token_teams`)).rows).toEqual([
      { token_hash: 'hash_a', token_id: 'tok_a', team_id: 'team_a' },
    ]);
    // The key of a submission that no longer exists is gone with the migration; the others are their submission's team's.
    expect(await teams('submission_unique_keys', 'key')).toEqual([
      { row: 'ka', team_id: 'team_a' },
      { row: 'kb', team_id: 'team_b' },
    ]);

    // A form's team must be the team of what is keyed to it.
    await expect(
      q(
        `insert into idempotency_keys (team_id, form_id, key, submission_id) values ('team_b', 'frm_a', 'k2', 'subm_a')`,
      ),
    ).rejects.toMatchObject(refusedBy('idempotency_keys_form_team_fkey'));
    await expect(
      q(
        `insert into idempotency_keys (team_id, form_id, key, submission_id) values ('team_a', 'frm_a', 'k3', 'subm_b')`,
      ),
    ).rejects.toMatchObject(refusedBy('idempotency_keys_submission_team_fkey'));

    // The statements that learn a name and change a status count, learn and release with the team.
    await recordFieldNames(db.db, 'team_a', 'frm_a', ['email', 'phone']);
    await setStatus(db.db, 'team_a', ['subm_a'], 'spam', 'manual');
    const counts = await db.db.query(
      `select team_id, folder, sum(n)::int as n from form_folder_counts where form_id = 'frm_a' group by 1, 2 order by 2`,
    );
    expect(counts.rows).toEqual([
      { team_id: 'team_a', folder: 'inbox', n: 0 },
      { team_id: 'team_a', folder: 'spam', n: 1 },
    ]);
    expect((await db.db.query(`select field_count from forms where id = 'frm_a'`)).rows).toEqual([{ field_count: 2 }]);
    expect(await teams('submission_unique_keys', 'key')).toEqual([{ row: 'kb', team_id: 'team_b' }]);
    // A delete releases them (and counts) in its own statement.
    expect(await deleteSubmissions(db.db, 'team_b', ['subm_b'])).toEqual([]);
    expect(await teams('submission_unique_keys', 'key')).toEqual([]);
    expect(
      (
        await db.db.query(
          `select team_id, folder, sum(n)::int as n from form_folder_counts where form_id = 'frm_b' group by 1, 2`,
        )
      ).rows,
    ).toEqual([{ team_id: 'team_b', folder: 'inbox', n: 0 }]);
  }, 60_000);
});
