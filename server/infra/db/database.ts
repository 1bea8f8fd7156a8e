import { stripVTControlCharacters } from 'node:util';
import pg from 'pg';
import { CompiledQuery, PostgresDialect, type Transaction } from 'kysely';
import { MikroORM, PostgreSqlDriver, type EntityManager } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import type { Config } from '../../config.ts';
import { entities } from './entities.ts';
import { migrations } from './migrations/index.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.ts';
import { rowTypes } from './row-types.ts';

export type QueryResult<T> = { rows: T[]; rowCount: number };

/**
 * Parameterised SQL: `$1, $2…` placeholders, values sent apart from the text (never inlined), rows typed
 * by the caller's row type. `name` prepares the statement once per connection (hot statements only).
 */
export interface Sql {
  query<T extends object = Record<string, unknown>>(text: string, values?: readonly unknown[], name?: string): Promise<QueryResult<T>>;
}

/**
 * One transaction: the same connection serves raw SQL (`query`), MikroORM (inside server/db, through
 * `entityManagerOf`) and pg-boss (`Queue.send` with `{ tx }`), so a write and the jobs it causes commit or
 * roll back together.
 */
export interface Tx extends Sql {
  /** Runs `fn` once this transaction has committed (never if it rolls back). */
  afterCommit(fn: () => void): void;
}

/** One pooled connection held by its user: SQL on it, and the client itself for COPY and cursors. */
export interface Session extends Sql {
  readonly client: pg.PoolClient;
  /** Back to the pool; `destroy` closes it instead (which ends a query still running on it). */
  release(destroy?: boolean): void;
}

/** How many connections streams hold now, of how many they may, and how many wait for one. */
export type StreamSlots = { readonly limit: number; readonly inUse: number; readonly waiting: number };

/** The one database handle a process has: one pool, shared by SQL, the ORM and the job queue. */
export interface Db extends Sql {
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * A connection for long-lived work (an export's chunk, the event streams' LISTEN session); the caller
   * releases it. Streams together hold at most `streams.limit` of the pool — half of it — so ordinary
   * requests always find a connection: past that, this waits for a slot (and fails like a busy pool).
   */
  connect(): Promise<Session>;
  readonly streams: StreamSlots;
  readonly pool: pg.Pool;
}

export type Database = {
  db: Db;
  orm: MikroORM;
  url: string;
  embedded: EmbeddedPostgres | null;
  close(): Promise<void>;
};

const CLOSE_GRACE_MS = 5_000;
const CONNECT_TIMEOUT_MS = 10_000;

export type OpenOptions = {
  /** The process's whole budget of Postgres connections (DATABASE_POOL_SIZE). */
  connections: number;
  /** Connections of the budget kept out of the pool for a dedicated session (the job queue's LISTEN). */
  reserved?: number;
  /** Shown in pg_stat_activity: which process kind holds a connection. */
  applicationName?: string;
  log?: (msg: string) => void;
};

/**
 * Each handle's ORM unit of work, kept off the `Db` and `Tx` types: what the domain is handed shows SQL
 * functions and transactions only, and the ORM is reached by server/db's query modules alone.
 */
const unitsOfWork = new WeakMap<Db | Tx, () => EntityManager>();

/**
 * The ORM's unit of work on a handle. In a transaction it is the transaction's own, so its reads see the
 * transaction's writes and its flushes commit or roll back with it; on the process's handle, a fresh one
 * per call, so nothing a request loaded lingers into another's.
 */
export function entityManagerOf(on: Db | Tx): EntityManager {
  const unit = unitsOfWork.get(on);
  if (!unit) throw new Error('not a handle of openDatabase: it has no ORM unit of work');
  return unit();
}

class TxHandle implements Tx {
  readonly hooks: Array<() => void> = [];
  readonly #trx: Transaction<unknown>;
  constructor(em: EntityManager) {
    unitsOfWork.set(this, () => em);
    this.#trx = em.getTransactionContext() as Transaction<unknown>;
  }
  /** Statement names are not used here: Kysely sends a transaction's statements unnamed. */
  async query<T extends object>(text: string, values: readonly unknown[] = []): Promise<QueryResult<T>> {
    const result = await this.#trx.executeQuery<T>(CompiledQuery.raw(text, [...values]));
    return { rows: [...result.rows], rowCount: result.numAffectedRows === undefined ? result.rows.length : Number(result.numAffectedRows) };
  }
  afterCommit(fn: () => void): void {
    this.hooks.push(fn);
  }
}

async function run<T extends object>(on: pg.Pool | pg.PoolClient, text: string, values: readonly unknown[], name?: string): Promise<QueryResult<T>> {
  const results: pg.QueryResult<T> | Array<pg.QueryResult<T>> = await on.query<T>({ text, values: [...values], ...(name ? { name } : {}) });
  // A text of several statements (pg-boss's schema migrations) answers one result each: the last one counts.
  const result = Array.isArray(results) ? results[results.length - 1]! : results;
  return { rows: result.rows ?? [], rowCount: result.rowCount ?? result.rows?.length ?? 0 };
}

/** A pooled connection as a Session, released once. */
async function checkout(pool: pg.Pool, onRelease: () => void = () => {}): Promise<Session> {
  const client = await pool.connect();
  let released = false;
  return {
    client,
    query: <T extends object>(text: string, values: readonly unknown[] = [], name?: string) => run<T>(client, text, values, name),
    release(destroy = false) {
      if (released) return;
      released = true;
      client.release(destroy || undefined);
      onRelease();
    },
  };
}

/**
 * A counting semaphore over the connections streams hold. Waiters are served in order; one that waits
 * longer than the pool's own connect timeout fails with the pool's message, so it is answered as a busy
 * database (503, see outages.ts) rather than queued without end.
 */
class Slots implements StreamSlots {
  inUse = 0;
  readonly limit: number;
  readonly #queue: Array<{ grant: () => void }> = [];
  readonly #timeoutMs: number;
  constructor(limit: number, timeoutMs: number) {
    this.limit = limit;
    this.#timeoutMs = timeoutMs;
  }
  get waiting(): number {
    return this.#queue.length;
  }
  acquire(): Promise<void> {
    if (this.inUse < this.limit && this.#queue.length === 0) {
      this.inUse += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          clearTimeout(timer);
          this.inUse += 1;
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.#queue.splice(this.#queue.indexOf(waiter), 1);
        reject(new Error('timeout exceeded when trying to connect (every stream connection of this process is in use)'));
      }, this.#timeoutMs);
      this.#queue.push(waiter);
    });
  }
  release(): void {
    this.inUse -= 1;
    this.#queue.shift()?.grant();
  }
}

function handle(pool: pg.Pool, orm: MikroORM, slots: Slots): Db {
  const db: Db = {
    pool,
    streams: slots,
    query: <T extends object>(text: string, values: readonly unknown[] = [], name?: string) => run<T>(pool, text, values, name),
    async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      let tx: TxHandle | undefined;
      const result = await orm.em.fork().transactional(async (em) => {
        tx = new TxHandle(em);
        return fn(tx);
      });
      for (const hook of tx!.hooks) hook();
      return result;
    },
    async connect() {
      await slots.acquire();
      try {
        return await checkout(pool, () => slots.release());
      } catch (err) {
        slots.release();
        throw err;
      }
    },
  };
  unitsOfWork.set(db, () => orm.em.fork());
  return db;
}

/**
 * DATABASE_URL when set, otherwise the embedded Postgres in the data dir. One pg pool serves everything
 * of the process — MikroORM runs on it through a Kysely dialect, SQL and pg-boss through `Db` — so the
 * process never opens more than `connections` (the pool's size plus the `reserved` sessions).
 */
export async function openDatabase(config: Config, opts: OpenOptions): Promise<Database> {
  const log = opts.log ?? (() => {});
  const embedded = config.databaseUrl ? null : await startEmbeddedPostgres(config.dataDir, log);
  const url = config.databaseUrl ?? embedded!.url;
  const max = opts.connections - (opts.reserved ?? 0);
  if (max < 2) throw new Error(`DATABASE_POOL_SIZE=${opts.connections} leaves ${max} pooled connection(s); at least 2 are needed`);
  const pool = new pg.Pool({
    connectionString: url,
    max,
    idleTimeoutMillis: 30_000,
    // Waiting for a connection (the pool is busy, or Postgres does not answer) ends in an error that
    // becomes a 503, instead of a request that hangs.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: opts.applicationName ?? 'intake',
    // Every statement of every pooled session runs under these (0 turns one off): a runaway query or a
    // transaction its holder forgot cannot keep a connection from everyone else. Work that is long by
    // design raises its own limit for its transaction (`set local statement_timeout`: migrations, export chunks).
    statement_timeout: config.databaseStatementTimeoutMs || undefined,
    idle_in_transaction_session_timeout: config.databaseIdleInTransactionTimeoutMs || undefined,
    // Timestamps stay text (microseconds kept: cursors and the ORM both need them); see row-types.ts.
    types: rowTypes,
  });
  pool.on('error', () => {}); // an idle client's error (a server restart) surfaces on the next query instead
  // A checked-out client can be closed by the server between statements (idle_in_transaction_session_timeout,
  // a terminated backend): its next query fails, and the pool drops it on release — but the 'error' event
  // it emits at once, with no query to receive it, would otherwise crash the process.
  pool.on('connect', (client) => client.on('error', () => {}));
  const orm = await MikroORM.init({
    driver: PostgreSqlDriver,
    clientUrl: url, // names the database for MikroORM; connections come from the pool below
    driverOptions: new PostgresDialect({ pool }),
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: migrations, tableName: 'intake_migrations', transactional: true, allOrNothing: true, snapshot: false },
    allowGlobalContext: false,
    debug: false,
    logger: (message: string) => log(stripVTControlCharacters(message)),
  });
  return {
    db: handle(pool, orm, new Slots(Math.max(1, Math.floor(max / 2)), CONNECT_TIMEOUT_MS)),
    orm,
    url,
    embedded,
    async close() {
      let grace: NodeJS.Timeout | undefined;
      try {
        // Ends the pool (MikroORM's Kysely owns it). pool.end() waits for connections still checked out;
        // one stuck in a query must not keep the embedded Postgres from being stopped.
        await Promise.race([orm.close(true), new Promise((resolve) => (grace = setTimeout(resolve, CLOSE_GRACE_MS)))]);
      } finally {
        // The grace is a bound, not a wait: a pending timer would hold a process that has nothing left to
        // do (an admin command) for the whole of it.
        clearTimeout(grace);
        await embedded?.stop();
      }
    },
  };
}

/**
 * Applies pending migrations in one transaction. Concurrent `intake migrate` / `serve` starts on one
 * database are serialised by a transaction lock taken first in that transaction, so a process needs two
 * pooled connections at most (the transaction, and the one the migrator checks its table on): a worker's
 * pool may be that small.
 */
export async function migrate(database: Database): Promise<string[]> {
  const connection = database.orm.em.getConnection();
  const done = await connection.transactional(async (trx) => {
    // Waiting for another process's migrations, and running them, may take longer than an ordinary
    // statement is allowed (a migration that rewrites a big table): neither has a time limit.
    await connection.execute('set local statement_timeout = 0', [], 'run', trx);
    await connection.execute('select pg_advisory_xact_lock(781234)', [], 'run', trx);
    return database.orm.migrator.up({ transaction: trx });
  });
  return done.map((m) => m.name);
}
