/**
 * Group commit (server/infra/group-commit.ts), behind the ingest's inserts and the delivery outcomes: batches while
 * one is running, and items that can wait (a bulk replay's outcomes) ride along with the next batch rather
 * than paying for a commit of their own.
 */
import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../server/infra/group-commit.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function recorder(writeMs: number) {
  const batches: string[][] = [];
  const commit = new GroupCommit<string>(
    async (batch) => {
      batches.push(batch);
      await sleep(writeMs);
    },
    { maxRunning: 1, maxBatch: 3 },
  );
  return { batches, commit };
}

describe('GroupCommit', () => {
  it('writes an item at once when idle, and batches what arrives while a batch is running, up to maxBatch', async () => {
    const { batches, commit } = recorder(20);
    commit.add('a');
    expect(batches).toEqual([['a']]);
    for (const item of ['b', 'c', 'd', 'e']) commit.add(item);
    await commit.drained();
    expect(batches).toEqual([['a'], ['b', 'c', 'd'], ['e']]);
  });

  it('starts no batch for a deferred item: it rides along with the next one, within maxBatch', async () => {
    const { batches, commit } = recorder(5);
    commit.add('bulk-1', { deferMs: 1_000 });
    commit.add('bulk-2', { deferMs: 1_000 });
    commit.add('bulk-3', { deferMs: 1_000 });
    await sleep(30);
    expect(batches).toEqual([]);
    commit.add('fresh');
    expect(batches).toEqual([['fresh', 'bulk-1', 'bulk-2']]);
    await commit.drained();
    expect(batches).toEqual([['fresh', 'bulk-1', 'bulk-2'], ['bulk-3']]);
  });

  it('writes deferred items once they have waited deferMs, and at once when drained', async () => {
    const { batches, commit } = recorder(5);
    const started = Date.now();
    commit.add('bulk-1', { deferMs: 60 });
    commit.add('bulk-2', { deferMs: 60 });
    while (!batches.length) await sleep(5);
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
    expect(batches).toEqual([['bulk-1', 'bulk-2']]);

    commit.add('bulk-3', { deferMs: 10_000 });
    await commit.drained();
    expect(batches).toEqual([['bulk-1', 'bulk-2'], ['bulk-3']]);
  });
});
