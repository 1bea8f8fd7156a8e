/**
 * What an accepted post writes to the WAL (issue 30), read back with pg_walinspect for the posts' own
 * transactions (the xmin of their submission rows), so other files writing to the same database do not
 * count: each counter a post keeps — the team's usage, the form's folder for the day — is one heap record
 * (an update of the backend's shard row, not a row lock plus an update, nor a fresh shard row inserted
 * and confirmed), and the team row is not locked (the submission's team is its form's).
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { makePublishedForm } from '../support/forms.ts';
import { makeTeam } from '../support/harness.ts';
import { startProcessingApp } from '../support/processing.ts';

// A database of its own, with no worker: on the run's shared database another file's worker processed these
// posts meanwhile, and its update of the same folder counter row made a post's update lock the row first.
const t = await startProcessingApp(
  { INTAKE_INGEST_RATE_LIMIT: '1000000', INTAKE_INGEST_FLOOD_LIMIT: '1000000' },
  { worker: false },
);

const BODY = 'name=Jane+Doe&email=jane%40example.com&message=Hello+there%2C+a+question+about+pricing.';

type Record = { xid: string; rel: string; kind: string };

/** A fresh published form (pg_walinspect installed) and a post to it that must be accepted: its id. */
async function postingForm(): Promise<() => Promise<string>> {
  await t.ctx.db.query('create extension if not exists pg_walinspect');
  const owner = await makeTeam(t, { plan: 'scale' });
  const form = await makePublishedForm(t, owner);
  return async () => {
    const res = await t.http.post(form.endpoint).type('form').set('accept', 'application/json').send(BODY);
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
}

describe('WAL of an accepted post', () => {
  it('is one heap record per counter and no lock on the team row', async () => {
    const post = await postingForm();
    // All of the pool's connections but one are held for the test, so every statement of the posts meets the
    // same backend, whose counter rows the warm-up inserts: how many fresh backends a busy machine's pool
    // would open otherwise is not what this test is about.
    const pool = t.ctx.db.pool;
    const held = await Promise.all(Array.from({ length: (pool.options.max ?? 10) - 1 }, () => pool.connect()));
    onTestFinished(() => held.forEach((c) => c.release()));
    for (let i = 0; i < 4; i++) await Promise.all(Array.from({ length: 10 }, post));

    const { rows: from } = await t.ctx.db.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn');
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await post());
    const { rows: to } = await t.ctx.db.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn');

    const { rows: xids } = await t.ctx.db.query<{ xid: string }>(
      'select xmin::text as xid from submissions where id = any($1)',
      [ids],
    );
    expect(new Set(xids.map((x) => x.xid)).size).toBe(20);
    const { rows } = await t.ctx.db.query<Record>(
      `select b.xid::text as xid, coalesce(pg_filenode_relation(0, b.relfilenode)::text, '?') as rel, b.resource_manager || '/' || b.record_type as kind
         from pg_get_wal_block_info($1::pg_lsn, $2::pg_lsn, false) b
        where b.xid::text = any($3) and b.block_id = 0 and b.resource_manager = 'Heap'
          and b.reldatabase = (select oid from pg_database where datname = current_database())`,
      [from[0]!.lsn, to[0]!.lsn, xids.map((x) => x.xid)],
    );
    const perPost = (rel: string) => xids.map((x) => rows.filter((r) => r.xid === x.xid && r.rel === rel).length);
    // Every post meets the warmed backend: one update of its shard row per counter (a post on a fresh backend
    // would insert the row instead, and check its key to `teams`), and no lock.
    expect(perPost('usage_counters'), JSON.stringify(rows.filter((r) => r.rel === 'usage_counters'))).toEqual(
      Array(20).fill(1),
    );
    expect(perPost('form_folder_counts'), JSON.stringify(rows.filter((r) => r.rel === 'form_folder_counts'))).toEqual(
      Array(20).fill(1),
    );
    expect(
      rows.filter(
        (r) => r.rel === 'usage_counters' && !r.kind.startsWith('Heap/HOT_UPDATE') && !r.kind.startsWith('Heap/UPDATE'),
      ),
    ).toEqual([]);
    expect(
      rows.filter(
        (r) => r.kind.startsWith('Heap/LOCK') && ['usage_counters', 'form_folder_counts', 'teams'].includes(r.rel),
      ),
    ).toEqual([]);
    expect(perPost('submissions')).toEqual(Array(20).fill(1));
  });
});

describe('WAL of posts committed together', () => {
  it('is one process-submission job per statement, not one per post', async () => {
    const post = await postingForm();
    // 40 posts at once, again until some of them shared a statement (else this test shows nothing): on a
    // quiet machine each may be accepted before the next arrives.
    let from: Array<{ lsn: string }> = [];
    let to: Array<{ lsn: string }> = [];
    let xids: Array<{ xid: string }> = [];
    for (let round = 0; round < 5; round++) {
      ({ rows: from } = await t.ctx.db.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn'));
      const ids = await Promise.all(Array.from({ length: 40 }, post));
      ({ rows: to } = await t.ctx.db.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn'));
      ({ rows: xids } = await t.ctx.db.query<{ xid: string }>(
        'select distinct xmin::text as xid from submissions where id = any($1)',
        [ids],
      ));
      if (xids.length < 40) break;
    }
    expect(xids.length).toBeLessThan(40);
    const { rows } = await t.ctx.db.query<{ xid: string; n: number }>(
      `select b.xid::text as xid, count(*)::int as n
         from pg_get_wal_block_info($1::pg_lsn, $2::pg_lsn, false) b
        where b.xid::text = any($3) and b.block_id = 0 and b.resource_manager = 'Heap' and b.record_type like 'INSERT%'
          and pg_filenode_relation(0, b.relfilenode) = 'pgboss.job_common'::regclass
          and b.reldatabase = (select oid from pg_database where datname = current_database())
        group by 1`,
      [from[0]!.lsn, to[0]!.lsn, xids.map((x) => x.xid)],
    );
    expect(rows.map((r) => r.n)).toEqual(xids.map(() => 1));
  });
});
