import pg from 'pg';
import { ensureDatabase } from '../../server/infra/db/embedded-postgres.ts';

/**
 * Test databases on the server of `baseUrl`, plain Postgres or a Citus cluster (`make test-citus`). On Citus a
 * new database is a new cluster namespace: created on the coordinator and on each worker with the extension,
 * and the workers registered with it, so migration 0028 distributes into it as into the run's database.
 */

type Node = { host: string; port: number };

/** One connection to `url` for `fn`, closed after it. */
export async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function at(url: string, node: Node | null, database: string): string {
  const u = new URL(url);
  if (node) {
    u.hostname = node.host;
    u.port = String(node.port);
  }
  u.pathname = `/${database}`;
  return u.toString();
}

/** The Citus workers of the database at `url`; null when it is plain Postgres. */
export async function citusWorkers(url: string): Promise<Node[] | null> {
  return withClient(url, async (c) => {
    const { rowCount } = await c.query(`select 1 from pg_extension where extname = 'citus'`);
    if (!rowCount) return null;
    const { rows } = await c.query<{ nodename: string; nodeport: number }>(
      `select nodename, nodeport from pg_dist_node where groupid <> 0 and noderole = 'primary' order by nodeport`,
    );
    return rows.map((r) => ({ host: r.nodename, port: r.nodeport }));
  });
}

/** Creates `name` beside the database of `baseUrl` (a cluster database too when that one is), answering its URL. */
export async function createDatabase(baseUrl: string, name: string): Promise<string> {
  const workers = await citusWorkers(baseUrl);
  const url = at(baseUrl, null, name);
  await ensureDatabase(at(baseUrl, null, 'postgres'), name);
  if (!workers) return url;
  for (const w of workers) {
    await ensureDatabase(at(baseUrl, w, 'postgres'), name);
    await withClient(at(baseUrl, w, name), (c) => c.query('create extension if not exists citus'));
  }
  const coordinator = new URL(baseUrl);
  await oneAtATime(baseUrl, () =>
    withClient(url, async (c) => {
      await c.query('create extension if not exists citus');
      await c.query('select citus_set_coordinator_host($1, $2)', [coordinator.hostname, Number(coordinator.port)]);
      for (const w of workers) await c.query('select citus_add_node($1, $2)', [w.host, w.port]);
    }),
  );
  return url;
}

/**
 * Runs `fn` while holding a lock that every test file's registration of the workers takes. `citus_add_node`
 * alters the cluster-wide role `postgres` on each worker, and two at once fail there with "tuple concurrently
 * updated"; the lock is an advisory lock of the coordinator's `postgres` database, which every caller shares.
 */
async function oneAtATime<T>(baseUrl: string, fn: () => Promise<T>): Promise<T> {
  return withClient(at(baseUrl, null, 'postgres'), async (c) => {
    await c.query("select pg_advisory_lock(hashtext('intake-test-citus-add-node'))");
    return fn(); // the lock goes with the session
  });
}

/**
 * Drops what createDatabase made (workers first learn nothing of it: each is dropped on its own node). A drop
 * that finds the database still in use (55006: a backend it ended had not exited within Postgres's 5 s, or a
 * Citus two-phase commit not yet resolved) is tried again, for up to a minute.
 */
export async function dropDatabase(baseUrl: string, name: string, workers: Node[] | null): Promise<void> {
  const drop = async (url: string) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await withClient(url, (c) => c.query(`drop database if exists "${name}" with (force)`));
      } catch (err) {
        if ((err as { code?: string }).code !== '55006' || attempt === 30) throw err;
        await new Promise((r) => setTimeout(r, 2_000));
      }
    }
  };
  await drop(at(baseUrl, null, 'postgres'));
  for (const w of workers ?? []) await drop(at(baseUrl, w, 'postgres'));
}

/**
 * On Citus, makes the database at `url` refuse every statement that would run on more than one shard
 * (`citus.multi_task_query_log_level` = error, for each new connection): a request path that is not routed by
 * team then fails. Answers false on plain Postgres, where it does nothing.
 */
export async function refuseMultiShard(url: string): Promise<boolean> {
  if (!(await citusWorkers(url))) return false;
  const name = new URL(url).pathname.slice(1);
  await withClient(url, (c) => c.query(`alter database "${name}" set citus.multi_task_query_log_level = 'error'`));
  return true;
}
