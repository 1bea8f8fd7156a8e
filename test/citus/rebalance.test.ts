import { describe, expect, it } from 'vitest';
import { onCitus } from '../support/citus-app.ts';
import { addCitusNode } from '../support/citus-node.ts';
import {
  deliveredCount,
  expectStoredAndDeliveredOnce,
  postContinuously,
  startDeliveringApp,
} from '../support/citus-traffic.ts';
import { withClient } from '../support/databases.ts';

/**
 * Growing the cluster while posts and deliveries flow (docs/scaling.md, "Adding a worker"): a third worker joins
 * and the shards are rebalanced onto it while six teams post (a client each) and an `intake worker` processes
 * and delivers; every post answered 201 is stored once and delivered once. Skipped on plain Postgres.
 */
const citus = onCitus;
const t = citus ? await startDeliveringApp() : null!;

describe.runIf(citus)('on Citus, a worker added while posts and deliveries flow', { timeout: 240_000 }, () => {
  it('takes its share of the shards, and every accepted post is stored once and delivered once', async () => {
    const forms = await Promise.all([1, 2, 3, 4, 5, 6].map(() => t.hookedForm()));
    const worker = t.startWorker();
    const traffic = postContinuously(t, forms);

    const node = await addCitusNode(t.databaseUrl);
    const before = { posts: traffic.accepted.size, deliveries: deliveredCount(forms) };
    // In this session (the background rebalancer needs a worker process per database, of which a test cluster
    // has few). Without logical replication (wal_level = replica) a shard's writes wait while it moves.
    await withClient(t.databaseUrl, (c) =>
      c.query(`select rebalance_table_shards(shard_transfer_mode => 'block_writes')`),
    );
    const during = {
      posts: traffic.accepted.size - before.posts,
      deliveries: deliveredCount(forms) - before.deliveries,
    };
    await new Promise((r) => setTimeout(r, 500));
    await traffic.stop();

    const { rows: placed } = await withClient(t.databaseUrl, (c) =>
      c.query<{ n: number }>(
        `select count(*)::int as n from pg_dist_placement p join pg_dist_node d using (groupid) where d.nodeport = $1`,
        [node.port],
      ),
    );
    expect(traffic.refused).toEqual([]);
    const delivered = await expectStoredAndDeliveredOnce(t, worker, forms, traffic.accepted);
    console.log(
      `rebalance: ${traffic.accepted.size} posts accepted (${during.posts} while shards moved), ` +
        `${traffic.refused.length} refused, ${delivered} delivered once each (${during.deliveries} while shards ` +
        `moved), ${placed[0]!.n} shard placements on the new worker`,
    );
    expect(placed[0]!.n).toBeGreaterThan(0);
    expect(during.posts).toBeGreaterThan(0);
    expect(during.deliveries).toBeGreaterThan(0);
  });
});
