import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { LISTEN_CONNECTIONS } from '../../server/main.ts';
import { installationEnv, cliProcesses, type CliProcess } from '../support/cli.ts';
import { startProcessingApp } from '../support/processing.ts';
import { until } from '../support/until.ts';

/**
 * How many Postgres connections each kind of process opens (README, "Postgres connections"): never more
 * than DATABASE_POOL_SIZE, pg-boss included — a pool of that size, less the one LISTEN session a process
 * that consumes jobs holds outside it.
 */
// A database of this file's own: the workers started here consume jobs, and on the run's shared database
// they would process other files' submissions under them (a fuzz test saw a row change mid-request).
const t = await startProcessingApp({}, { worker: false });
const DEFAULT_TOTAL = loadConfig({}).databasePoolSize;

const processes = cliProcesses();

type Started = CliProcess & { pid: number };

/** `intake <args>` as production runs it, on this file's database and the run's storage. */
function start(args: string[], env: Record<string, string> = {}): Started {
  const p = processes.start(args, installationEnv(t, { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env }));
  return { ...p, pid: p.child.pid! };
}

const serving = (p: Started) => p.url(60_000);

async function connectionsOf(pid: number): Promise<{ total: number; listening: number }> {
  const { rows } = await t.ctx.db.query<{ total: number; listening: number }>(
    `select count(*)::int as total, count(*) filter (where query ilike 'listen %')::int as listening
       from pg_stat_activity where application_name like $1`,
    [`intake % ${pid}`],
  );
  return rows[0]!;
}

/** Enough concurrent requests that every pooled connection is needed at once. */
async function saturate(url: string): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const responses = await Promise.all(Array.from({ length: 80 }, () => fetch(`${url}/readyz`)));
    expect(responses.every((r) => r.status === 200)).toBe(true);
  }
}

describe('Postgres connections per process', { timeout: 120_000 }, () => {
  const peaks: Record<string, number> = {};

  it('intake serve: its pool and one LISTEN session, DATABASE_POOL_SIZE in all', async () => {
    const serve = start(['serve']);
    await saturate(await serving(serve));
    const seen = await connectionsOf(serve.pid);
    expect(seen).toEqual({ total: DEFAULT_TOTAL, listening: LISTEN_CONNECTIONS });
    peaks.serve = seen.total;
  });

  it('intake serve --no-worker: its pool only (it sends jobs, it does not listen for them)', async () => {
    const api = start(['serve', '--no-worker']);
    await saturate(await serving(api));
    const seen = await connectionsOf(api.pid);
    expect(seen).toEqual({ total: DEFAULT_TOTAL, listening: 0 });
    peaks.api = seen.total;
  });

  it('intake worker: within the same budget, one of them its LISTEN session', async () => {
    const worker = start(['worker']);
    const seen = await until(
      'the worker to listen',
      async () => {
        const c = await connectionsOf(worker.pid);
        return c.listening > 0 && c;
      },
      60_000,
    );
    expect(seen.listening).toBe(LISTEN_CONNECTIONS);
    expect(seen.total).toBeGreaterThanOrEqual(2);
    expect(seen.total).toBeLessThanOrEqual(DEFAULT_TOTAL);
    peaks.worker = DEFAULT_TOTAL; // its bound: the pool never grows past DATABASE_POOL_SIZE − 1
  });

  it('a smaller DATABASE_POOL_SIZE bounds a process just the same', async () => {
    const small = start(['serve'], { DATABASE_POOL_SIZE: '4' });
    await saturate(await serving(small));
    expect(await connectionsOf(small.pid)).toEqual({ total: 4, listening: 1 });
  });

  it('eight processes of any kind fit in Postgres’s default max_connections = 100 with headroom', async () => {
    const { rows } = await t.ctx.db.query<{ reserved: number }>(
      `select current_setting('superuser_reserved_connections')::int + current_setting('reserved_connections')::int as reserved`,
    );
    const worst = Math.max(peaks.serve!, peaks.api!, peaks.worker!);
    const available = 100 - rows[0]!.reserved;
    expect(8 * worst).toBeLessThanOrEqual(available - 10); // ≥ 10 left for psql, backups and migrations
  });
});
