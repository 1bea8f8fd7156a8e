/**
 * The walks a list makes read index entries only (migration 0033): a page's ids, at any offset and in every
 * folder, and the capped counts of the tag, stage, assignee and category filters. Every statement names the
 * team, so an index without `team_id` would read a heap row for each entry it walks. Here, after a vacuum, a
 * walk fetches no heap block of `submissions` beyond the page's own rows. A private database: no other file's
 * writes clear its visibility map.
 */
import { describe, expect, it } from 'vitest';
import type { Tx } from '../../server/infra/db/database.ts';
import { countMatching, listPage, type ListFilter } from '../../server/infra/db/queries/submissions.ts';
import { makePublishedForm } from '../support/forms.ts';
import { makeTeam } from '../support/harness.ts';
import { startProcessingApp } from '../support/processing.ts';
import { recountFolders } from '../support/team-records.ts';

const t = await startProcessingApp({}, { worker: false });
const owner = await makeTeam(t);
const form = await makePublishedForm(t, owner);
const ROWS = 4_000;

// Stored in random order, so heap order is not index order and each heap row a walk reads shows.
await t.ctx.db.query(
  `insert into submissions (id, team_id, form_id, status, payload, received_at, category, tags, stage, assignee_id)
   select 'subm_' || lpad(i::text, 26, '0'), $1, $2, case when i % 5 = 0 then 'spam' else 'processed' end,
          jsonb_build_object('n', i), now() - i * interval '1 minute',
          case when i % 4 = 0 then 'sales' end,
          case when i % 10 = 2 then '{vip}'::text[] when i % 10 = 1 then '{follow-up}'::text[] else '{}'::text[] end,
          case when i % 7 = 0 then 'in_progress' else 'new' end,
          case when i % 3 = 0 then $3 end
     from generate_series(1, $4::int) i order by random()`,
  [owner.teamId, form.id, owner.userId, ROWS],
);
await recountFolders(t.ctx.db, owner.teamId, form.id);
await t.ctx.db.query('vacuum analyze submissions');

/** Heap blocks of `submissions` that `fn` fetched, with the planner kept to index walks (the table is small). */
async function heapBlocks(fn: (tx: Tx) => Promise<unknown>): Promise<number> {
  return t.ctx.db.transaction(async (tx) => {
    await tx.query('set local enable_seqscan = off');
    await tx.query('set local enable_bitmapscan = off');
    const fetched = async () =>
      (await tx.query<{ n: number }>("select pg_stat_get_xact_blocks_fetched('submissions'::regclass)::int as n"))
        .rows[0]!.n;
    const before = await fetched();
    await fn(tx);
    return (await fetched()) - before;
  });
}

const all = { teamId: owner.teamId, formId: form.id };

describe('list walks are index-only', () => {
  it.each([
    ['inbox', { folder: 'inbox' }],
    ['spam', { folder: 'spam' }],
    ['all', { folder: 'all' }],
    ['tag', { folder: 'inbox', tags: ['vip'] }],
    ['stage and assignee', { folder: 'inbox', stage: 'in_progress', assigneeId: owner.userId }],
    ['category', { folder: 'inbox', category: 'sales' }],
  ] as Array<[string, Partial<ListFilter>]>)('%s: a deep page reads only its own 25 rows', async (_, filter) => {
    const f = { ...all, ...filter } as ListFilter;
    let rows = 0;
    const blocks = await heapBlocks(async (tx) => {
      rows = (await listPage(tx, f, { limit: 25, offset: 100 })).length;
    });
    expect(rows).toBe(25);
    // The page's rows, each read by its id, and the visibility map; not the 100 entries walked before them.
    expect(blocks).toBeLessThanOrEqual(25 + 10);
  });

  it.each([
    ['tag', { folder: 'inbox', tags: ['vip'] }],
    ['stage and assignee', { folder: 'inbox', stage: 'in_progress', assigneeId: owner.userId }],
    ['assignee', { folder: 'all', assigneeId: owner.userId }],
    ['category', { folder: 'inbox', category: 'sales' }],
  ] as Array<[string, Partial<ListFilter>]>)('%s: the capped count reads no heap row', async (_, filter) => {
    let counted = 0;
    const blocks = await heapBlocks(async (tx) => {
      counted = await countMatching(tx, { ...all, ...filter } as ListFilter, 1000);
    });
    expect(counted).toBeGreaterThan(50);
    expect(blocks).toBeLessThanOrEqual(1); // the visibility map's page
  });
});
