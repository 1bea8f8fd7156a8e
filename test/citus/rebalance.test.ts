import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startCitusNode } from '../support/citus-node.ts';
import { onCitus } from '../support/citus-app.ts';
import { makePublishedForm } from '../support/forms.ts';
import { makeTeam, startTestApp } from '../support/harness.ts';
import { privateDatabaseUrl, tempDataDir } from '../support/processing.ts';

/**
 * Growing the cluster while posts flow (docs/scaling.md, "Adding a worker"): a third worker joins and the shards
 * are rebalanced onto it; every post answered 201 is stored, once. Skipped on plain Postgres.
 */
const citus = onCitus;
const url = citus ? await privateDatabaseUrl() : '';
const t = citus ? await startTestApp({ DATABASE_URL: url, INTAKE_DATA_DIR: tempDataDir() }) : null!;

async function sql<T extends object>(at: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: at });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe.runIf(citus)('on Citus, a worker added while posts flow', { timeout: 240_000 }, () => {
  it('takes its share of the shards, and every accepted post is stored once', async () => {
    const teams = await Promise.all([1, 2, 3, 4].map(() => makeTeam(t)));
    const forms = await Promise.all(teams.map((team) => makePublishedForm(t, team)));

    const accepted = new Map<string, string>();
    const refused: number[] = [];
    let posting = true;
    const poster = async (n: number) => {
      for (let i = 0; posting; i++) {
        const form = forms[(n + i) % forms.length]!;
        const res = await t.http
          .post(form.endpoint)
          .set('Accept', 'application/json')
          .send({ email: `p${n}-${i}@example.com` });
        if (res.status === 201) accepted.set(res.body.id as string, form.id);
        else refused.push(res.status);
      }
    };
    const posters = Array.from({ length: 6 }, (_, n) => poster(n));

    const node = await startCitusNode();
    const name = new URL(url).pathname.slice(1);
    const nodeAdmin = `postgres://postgres@${node.host}:${node.port}/postgres`;
    await sql(nodeAdmin, `create database "${name}"`);
    await sql(`postgres://postgres@${node.host}:${node.port}/${name}`, 'create extension citus');
    await sql(url, 'select citus_add_node($1, $2)', [node.host, node.port]);
    const before = accepted.size;
    // In this session (the background rebalancer needs a worker process per database, of which a test cluster
    // has few). Without logical replication (wal_level = replica) a shard's writes wait while it moves.
    await sql(url, `select rebalance_table_shards(shard_transfer_mode => 'block_writes')`);
    const during = accepted.size - before;
    await new Promise((r) => setTimeout(r, 500));
    posting = false;
    await Promise.all(posters);

    const placed = await sql<{ n: number }>(
      url,
      `select count(*)::int as n from pg_dist_placement p join pg_dist_node d using (groupid) where d.nodeport = $1`,
      [node.port],
    );
    console.log(
      `rebalance: ${accepted.size} posts accepted (${during} while shards moved), ${refused.length} refused, ` +
        `${placed[0]!.n} shard placements on the new worker`,
    );
    expect(placed[0]!.n).toBeGreaterThan(0);
    expect(refused).toEqual([]);
    expect(during).toBeGreaterThan(0);

    const stored = await sql<{ id: string; form_id: string }>(
      url,
      'select id, form_id from submissions where team_id = any($1::text[])',
      [teams.map((x) => x.teamId)],
    );
    expect(stored.length).toBe(accepted.size);
    expect(new Map(stored.map((r) => [r.id, r.form_id]))).toEqual(accepted);
  });
});
