/**
 * VALUES lists (server/infra/db/values.ts), which every insert into a tenant table uses: split under Postgres's
 * 65,535 parameters per statement, each item in exactly one list, each list a statement Postgres runs.
 */
import { describe, expect, inject, it } from 'vitest';
import { withClient } from '../support/databases.ts';
import { valuesLists } from '../../server/infra/db/values.ts';

describe('valuesLists', () => {
  it('splits 50,000 rows of 3 values (and 2 fixed) into statements Postgres takes, each row once, in order', async () => {
    const items = Array.from({ length: 50_000 }, (_, i) => ({ n: i, label: `row ${i}` }));
    const lists = valuesLists(items, (it, p) => `(${p(it.n)}::int, ${p(it.label)}, ${p(it.n * 2)}::int, $1, $2)`, [
      'fixed',
      7,
    ]);
    expect(lists).toHaveLength(3);
    for (const list of lists) {
      expect(list.values.length).toBeLessThanOrEqual(65_535);
      expect(list.values.slice(0, 2)).toEqual(['fixed', 7]);
    }
    expect(lists[0]!.values.length).toBe(2 + 3 * 21_844); // full: one more row would pass the limit
    const seen = await withClient(inject('databaseUrl'), async (c) => {
      const rows: number[] = [];
      for (const list of lists) {
        const r = await c.query<{ n: number; label: string; twice: number; a: string; b: string }>(
          `select * from (values ${list.rows}) v(n, label, twice, a, b)`,
          list.values,
        );
        for (const row of r.rows) {
          expect([row.label, row.twice, row.a, row.b]).toEqual([`row ${row.n}`, row.n * 2, 'fixed', '7']);
          rows.push(row.n);
        }
      }
      return rows;
    });
    expect(seen).toEqual(items.map((i) => i.n));
  });

  it('answers no list for no rows', () => {
    expect(valuesLists([], (n, p) => `(${p(n)})`, ['x'])).toEqual([]);
  });
});
