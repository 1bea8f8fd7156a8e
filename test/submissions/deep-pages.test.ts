/**
 * Deep page numbers (issue 7: page 10,000 of a 1,000,000-submission form). From DAY_SKIP_FROM on, an
 * unfiltered page starts from the day that holds its first row, found by summing the per-day folder
 * counters, and skips at most that day's entries. So every page here is checked against the same
 * `order by received_at desc, id desc offset … limit …` over the table itself, in every folder, while
 * rows move between folders, are deleted, arrive, and while the daily
 * compaction folds the counters under concurrent writers. Migration 0013 recounts an existing database.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { migrate, openDatabase } from '../../server/infra/db/database.ts';
import { DAY_SKIP_FROM, deleteSubmissions, setStatus } from '../../server/infra/db/queries/submissions.ts';
import { compactFolderCounts } from '../../server/domain/submissions/submissions.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, startTestApp, type TestMember } from '../support/harness.ts';
import { privateDatabaseUrl, tempDataDir } from '../support/processing.ts';
import { recountFolders } from '../support/team-records.ts';

const t = await startTestApp({ INTAKE_API_RATE_LIMIT: '1000000', INTAKE_API_TEAM_RATE_LIMIT: '1000000' });
/** An empty database of its own for the migration test (dropped after the file). */
const m13 = { url: await privateDatabaseUrl(), dataDir: tempDataDir() };

type Folder = 'inbox' | 'spam' | 'all';
const FOLDERS: Folder[] = ['inbox', 'spam', 'all'];
const WHERE: Record<Folder, string> = { inbox: "status <> 'spam'", spam: "status = 'spam'", all: 'true' };
const PER_PAGE = 100;
const ROWS = 16_000;
const BASE = '2026-01-01T00:00:00Z';

/**
 * `rows` submissions over 50 days from BASE, 400 a day on 40 of them (every fifth day is empty), two
 * rows on every timestamp (the id breaks the tie), 40 % spam: both folders reach past DAY_SKIP_FROM.
 */
async function seed(teamId: string, formId: string, rows: number, sql = t.ctx.db, counted = true): Promise<void> {
  const tag = randomBytes(3).toString('hex'); // ids of this seed only (other files seed the same database)
  for (let from = 1; from <= rows; from += 4000) {
    await sql.query(
      `insert into submissions (id, team_id, form_id, status, spam_reason, payload, received_at)
       select 'subm_' || $6 || lpad(i::text, 20, '0'), $1, $2, case when i % 5 < 2 then 'spam' else 'processed' end,
              case when i % 5 < 2 then 'honeypot_filled' end, jsonb_build_object('n', i),
              $5::timestamptz + ((i / 400) + (i / 400) / 4) * interval '1 day' + ((i % 400) / 2) * interval '3 minutes'
         from generate_series($3::int, $4::int) i`,
      [teamId, formId, from, Math.min(rows, from + 3999), BASE, tag],
    );
  }
  // As the accepting statements count them (before migration 0013, the triggers of then did).
  if (counted) await recountFolders(sql, teamId, formId);
}

let owner: TestMember;
let formId: string;

async function truth(folder: Folder, offset: number, limit: number): Promise<string[]> {
  const { rows } = await t.ctx.db.query<{ id: string }>(
    `select id from submissions where form_id = $1 and ${WHERE[folder]} order by received_at desc, id desc offset $2 limit $3`,
    [formId, offset, limit],
  );
  return rows.map((r) => r.id);
}

async function apiPage(query: string): Promise<{ ids: string[]; total: number }> {
  const res = await t.http.get(`/v1/forms/${formId}/submissions?${query}`).set(bearer(owner.token));
  expect(res.status, query).toBe(200);
  return { ids: res.body.data.map((s: { id: string }) => s.id), total: res.body.meta.total };
}

/** Every page from the first deep one to one past the last, in each folder, is the table's own page. */
async function expectDeepPagesRight(label: string): Promise<number> {
  let checked = 0;
  for (const folder of FOLDERS) {
    const { rows } = await t.ctx.db.query<{ n: number }>(
      `select count(*)::int as n from submissions where form_id = $1 and ${WHERE[folder]}`,
      [formId],
    );
    const total = rows[0]!.n;
    for (let page = Math.floor(DAY_SKIP_FROM / PER_PAGE) + 1; (page - 2) * PER_PAGE < total; page++) {
      const got = await apiPage(`folder=${folder}&per_page=${PER_PAGE}&page=${page}`);
      expect(got.total, `${label}: ${folder} total`).toBe(total);
      expect(got.ids, `${label}: ${folder} page ${page}`).toEqual(await truth(folder, (page - 1) * PER_PAGE, PER_PAGE));
      checked++;
    }
    // A page size that does not divide a day: pages start mid-day and run across day boundaries.
    for (const page of [Math.ceil(DAY_SKIP_FROM / 7) + 1, Math.ceil(DAY_SKIP_FROM / 7) + 57, Math.floor(total / 7)]) {
      const got = await apiPage(`folder=${folder}&per_page=7&page=${page}`);
      expect(got.ids, `${label}: ${folder} page ${page} of 7`).toEqual(await truth(folder, (page - 1) * 7, 7));
    }
  }
  return checked;
}

/** The counters, per folder and day, are exactly the rows. */
async function expectCountersExact(label: string): Promise<void> {
  const counted = await t.ctx.db.query(
    `select folder, to_char(day, 'YYYY-MM-DD') as day, sum(n)::int as n from form_folder_counts where form_id = $1
      group by 1, 2 having sum(n) <> 0 order by 1, 2`,
    [formId],
  );
  const actual = await t.ctx.db.query(
    `select case when status = 'spam' then 'spam' else 'inbox' end as folder, to_char((received_at at time zone 'UTC')::date, 'YYYY-MM-DD') as day,
            count(*)::int as n from submissions where form_id = $1 group by 1, 2 order by 1, 2`,
    [formId],
  );
  expect(counted.rows, label).toEqual(actual.rows);
}

const idsOn = async (day: number, folder: Folder, n: number): Promise<string[]> =>
  (
    await t.ctx.db.query<{ id: string }>(
      `select id from submissions where form_id = $1 and ${WHERE[folder]} and (received_at at time zone 'UTC')::date = $2::date + $3::int
        order by id limit $4`,
      [formId, BASE.slice(0, 10), day, n],
    )
  ).rows.map((r) => r.id);

const bulk = (ids: string[], action: string) =>
  t.http.post(`/v1/forms/${formId}/submissions/bulk`).set(bearer(owner.token)).send({ ids, action });

describe('deep page numbers', () => {
  it('are the pages ORDER BY … OFFSET gives, in every folder, to one past the last page', async () => {
    owner = await makeTeam(t);
    formId = (await makePublishedForm(t, owner)).id;
    await seed(owner.teamId, formId, ROWS);
    await expectCountersExact('seeded');
    expect(await expectDeepPagesRight('seeded')).toBeGreaterThan(150);
    // A filtered list is counted by its filter, never by the folder's days.
    const filtered = await apiPage(
      `since=${encodeURIComponent('2026-01-20T00:00:00Z')}&per_page=${PER_PAGE}&page=${DAY_SKIP_FROM / PER_PAGE + 2}`,
    );
    const { rows } = await t.ctx.db.query<{ id: string }>(
      `select id from submissions where form_id = $1 and status <> 'spam' and received_at > '2026-01-20T00:00:00Z'
        order by received_at desc, id desc offset $2 limit $3`,
      [formId, (DAY_SKIP_FROM / PER_PAGE + 1) * PER_PAGE, PER_PAGE],
    );
    expect(filtered.ids).toEqual(rows.map((r) => r.id));
  }, 120_000);

  it('stay right as rows move between folders, are deleted, and arrive', async () => {
    // Old rows to spam and back, through bulk and single updates.
    expect((await bulk(await idsOn(3, 'inbox', 150), 'mark_spam')).status).toBe(200);
    expect((await bulk(await idsOn(30, 'spam', 120), 'mark_not_spam')).status).toBe(200);
    const [single] = await idsOn(12, 'inbox', 1);
    expect(
      (await t.http.put(`/v1/forms/${formId}/submissions/${single}`).set(bearer(owner.token)).send({ status: 'spam' }))
        .status,
    ).toBe(200);
    await expectCountersExact('moved');
    await expectDeepPagesRight('moved');

    // Deleted one by one and in bulk, a whole day included.
    for (const id of await idsOn(20, 'inbox', 3)) {
      expect((await t.http.delete(`/v1/forms/${formId}/submissions/${id}`).set(bearer(owner.token))).status).toBe(200);
    }
    expect((await bulk(await idsOn(6, 'all', 400), 'delete')).body.affected).toBe(400);
    await expectCountersExact('deleted');
    await expectDeepPagesRight('deleted');

    // Posted today through the public endpoint: counted by the accepting statement, they shift every deeper page.
    for (let i = 0; i < 3; i++) {
      const res = await t.http
        .post(`/f/${formId}`)
        .set('Accept', 'application/json')
        .send({ name: `now${i}` });
      expect(res.status).toBe(201);
    }
    await expectCountersExact('posted');
    await expectDeepPagesRight('posted');
  }, 180_000);

  it('compaction folds each finished day into one row, keeps today’s shards, drops empty days; pages unchanged', async () => {
    // Today's arrivals, through the public endpoint.
    for (let i = 0; i < 5; i++) {
      const res = await t.http
        .post(`/f/${formId}`)
        .set('Accept', 'application/json')
        .type('form')
        .send(`name=today${i}`);
      expect(res.status).toBe(201);
    }
    const spreadBefore = await t.ctx.db.query<{ n: number }>(
      `select count(*)::int as n from form_folder_counts where form_id = $1 and shard <> 0 and day < (now() at time zone 'UTC')::date`,
      [formId],
    );
    expect(spreadBefore.rows[0]!.n).toBeGreaterThan(40);
    // Small batches: the run goes on from the last day of each batch (key order) until none is left.
    const done = await compactFolderCounts(t.ctx, { batch: 7 });
    expect(done.days).toBeGreaterThanOrEqual(80); // 40 days, both folders
    const rows = await t.ctx.db.query<{ past: boolean; shard: number; n: number; rows: number }>(
      `select day < (now() at time zone 'UTC')::date as past, min(shard)::int as shard, min(n)::int as n, count(*)::int as rows
         from form_folder_counts where form_id = $1 group by folder, day`,
      [formId],
    );
    for (const r of rows.rows.filter((x) => x.past)) {
      expect(r).toMatchObject({ shard: 0, rows: 1 });
      expect(r.n).toBeGreaterThan(0); // the deleted day left no row
    }
    expect(rows.rows.filter((x) => !x.past).every((r) => r.shard > 0)).toBe(true);
    expect(rows.rows.filter((x) => !x.past).length).toBeGreaterThan(0);
    await expectCountersExact('compacted');
    await expectDeepPagesRight('compacted');
    // Nothing of this form is left to fold (other files' forms share the database and the job).
    await compactFolderCounts(t.ctx);
    const spreadAfter = await t.ctx.db.query<{ n: number }>(
      `select count(*)::int as n from form_folder_counts where form_id = $1 and shard <> 0 and day < (now() at time zone 'UTC')::date`,
      [formId],
    );
    expect(spreadAfter.rows[0]!.n).toBe(0);
  }, 120_000);

  it('compaction never waits for a writer, and loses nothing to writers running beside it', async () => {
    // A shard row an open transaction holds (as a writer's upsert holds it) is left for the next run.
    await bulk(await idsOn(15, 'inbox', 10), 'mark_spam');
    const holder = await t.ctx.db.connect();
    try {
      await holder.query('begin');
      const held = await holder.query(
        `select shard from form_folder_counts where form_id = $1 and day = $2::date + 15 and shard <> 0 for update`,
        [formId, BASE.slice(0, 10)],
      );
      expect(held.rowCount).toBeGreaterThan(0);
      const started = performance.now();
      await compactFolderCounts(t.ctx);
      expect(performance.now() - started).toBeLessThan(5000);
      const left = await t.ctx.db.query<{ n: number }>(
        `select count(*)::int as n from form_folder_counts where form_id = $1 and day = $2::date + 15 and shard <> 0`,
        [formId, BASE.slice(0, 10)],
      );
      expect(left.rows[0]!.n).toBe(held.rowCount);
    } finally {
      await holder.query('rollback');
      holder.release();
    }
    await compactFolderCounts(t.ctx);
    await expectCountersExact('after the held run');

    // A form being erased (its row locked first, as erasure does) is skipped whole: a fold committed
    // under the erasure would leave counters of a form that is gone.
    await bulk(await idsOn(16, 'inbox', 10), 'mark_spam');
    const spread = `select count(*)::int as n from form_folder_counts where form_id = $1 and shard <> 0 and day < (now() at time zone 'UTC')::date`;
    const before = (await t.ctx.db.query<{ n: number }>(spread, [formId])).rows[0]!.n;
    expect(before).toBeGreaterThan(0);
    const eraser = await t.ctx.db.connect();
    try {
      await eraser.query('begin');
      await eraser.query('select 1 from forms where id = $1 for update', [formId]);
      const started = performance.now();
      await compactFolderCounts(t.ctx);
      expect(performance.now() - started).toBeLessThan(5000);
      expect((await t.ctx.db.query<{ n: number }>(spread, [formId])).rows[0]!.n).toBe(before);
    } finally {
      await eraser.query('rollback');
      eraser.release();
    }
    await compactFolderCounts(t.ctx);
    expect((await t.ctx.db.query<{ n: number }>(spread, [formId])).rows[0]!.n).toBe(0);

    // Writers moving and deleting old rows on many days while compaction runs again and again.
    const writers = Array.from({ length: 12 }, async (_, w) => {
      for (let round = 0; round < 4; round++) {
        const day = 1 + w * 4 + round; // each writer its own days
        const ids = await idsOn(day, 'all', 12);
        if (!ids.length) continue;
        const res = await bulk(ids, round % 3 === 2 ? 'delete' : round % 2 ? 'mark_spam' : 'mark_not_spam');
        expect(res.status).toBe(200);
      }
    });
    let runs = 0;
    let writing = true;
    const compacting = (async () => {
      while (writing) {
        await compactFolderCounts(t.ctx);
        runs++;
      }
    })();
    await Promise.all(writers).finally(() => (writing = false));
    await compacting;
    expect(runs).toBeGreaterThan(1);
    await expectCountersExact('compacted beside writers');
    await compactFolderCounts(t.ctx);
    await expectCountersExact('compacted after writers');
    await expectDeepPagesRight('compacted beside writers');
  }, 180_000);
});

describe('migration 0013', () => {
  it('recounts an existing database per day, and the statements that change submissions keep counting', async () => {
    const db = await openDatabase(loadConfig({ DATABASE_URL: m13.url, INTAKE_DATA_DIR: m13.dataDir }), {
      connections: 3,
    });
    onTestFinished(() => db.close());
    await db.orm.migrator.up({ to: '0012-submission-stream' });
    await db.db.query(`insert into teams (id, name, plan_id) values ('team_m13', 'M13', 'free')`);
    await db.db.query(
      `insert into forms (id, team_id, name, status) values ('frm_m13', 'team_m13', 'Old', 'published')`,
    );
    await seed('team_m13', 'frm_m13', 3000, db.db, false);
    // Later migrations run too; 0013 is the first pending one.
    expect((await migrate(db))[0]).toBe('0013-folder-count-days');
    const counted = await db.db.query(
      `select folder, to_char(day, 'YYYY-MM-DD') as day, sum(n)::int as n from form_folder_counts group by 1, 2 order by 1, 2`,
    );
    expect(counted.rows).toHaveLength(16); // 8 days, 2 folders
    expect(counted.rows[0]).toEqual({ folder: 'inbox', day: '2026-01-01', n: 240 });
    expect(counted.rows.reduce((s, r) => s + (r.n as number), 0)).toBe(3000);
    const moved = await db.db.query<{ id: string }>(`select id from submissions where id like '%00003'`);
    await setStatus(
      db.db,
      'team_m13',
      moved.rows.map((r) => r.id),
      'spam',
      'manual',
    );
    const gone = await db.db.query<{ id: string }>(`select id from submissions where id like '%02999'`);
    await deleteSubmissions(
      db.db,
      'team_m13',
      gone.rows.map((r) => r.id),
    );
    const after = await db.db.query<{ folder: string; n: number }>(
      `select folder, sum(n)::int as n from form_folder_counts group by 1 order by 1`,
    );
    const actual = await db.db.query<{ folder: string; n: number }>(
      `select case when status = 'spam' then 'spam' else 'inbox' end as folder, count(*)::int as n from submissions group by 1 order by 1`,
    );
    expect(after.rows).toEqual(actual.rows);
  }, 60_000);
});
