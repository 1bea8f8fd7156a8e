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
 * The database handle every query function takes: parameterised SQL (`$1, $2…`, values sent apart from the
 * text), rows typed by the caller. `name` prepares a hot statement once per connection. A handle is the
 * process's pool (`Db`), one transaction (`Tx`) or one held connection (`Connection`).
 */
export interface Sql {
  query<T extends object = Record<string, unknown>>(
    text: string,
    values?: readonly unknown[],
    name?: string,
  ): Promise<QueryResult<T>>;
  /**
   * On a Citus cluster (the `citus` extension is there): tables are sharded by team (docs/scaling.md), and a
   * statement writing a tenant table inserts VALUES, never rows of a SELECT (docs/decisions.md, "Inserts on Citus").
   */
  readonly distributed: boolean;
}

/** One transaction: SQL, MikroORM (`entityManagerOf`) and pg-boss share its connection, so a write and its jobs commit together. */
export interface Tx extends Sql {
  /** Runs `fn` once this transaction has committed (never if it rolls back). */
  afterCommit(fn: () => void): void;
}

/** One pooled connection held by its user: SQL on it, and the client itself for COPY and cursors. */
export interface Connection extends Sql {
  readonly client: pg.PoolClient;
  /** Back to the pool; `destroy` closes it instead (which ends a query still running on it). */
  release(destroy?: boolean): void;
}

/** How many connections streams hold now, of how many they may, and how many wait for one. */
export type StreamSlots = { readonly limit: number; readonly inUse: number; readonly waiting: number };

/** The process's pool: shared by SQL, the ORM and the job queue; it opens transactions and lends connections. */
export interface Db extends Sql {
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * A connection for long-lived work (an export chunk, a LISTEN session); the caller releases it. Streams hold
   * at most half the pool, so ordinary requests always find a connection; past that this waits for a slot.
   */
  connect(): Promise<Connection>;
  readonly streams: StreamSlots;
  readonly pool: pg.Pool;
}

/** An opened database: the pool, the ORM over it, and the embedded server when it runs one. */
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

/** Each handle's ORM unit of work, kept off the `Db` and `Tx` types so only the query modules reach the ORM. */
const unitsOfWork = new WeakMap<Sql, () => EntityManager>();

/** The ORM's unit of work on a handle: a transaction's own, or a fresh one per call so nothing lingers between requests. */
export function entityManagerOf(on: Sql): EntityManager {
  const unit = unitsOfWork.get(on);
  if (!unit) throw new Error('not a handle of openDatabase: it has no ORM unit of work');
  return unit();
}

class TxHandle implements Tx {
  readonly hooks: Array<() => void> = [];
  readonly #trx: Transaction<unknown>;
  readonly distributed: boolean;
  constructor(em: EntityManager, distributed: boolean) {
    this.distributed = distributed;
    unitsOfWork.set(this, () => em);
    this.#trx = em.getTransactionContext() as Transaction<unknown>;
  }
  /** Statement names are not used here: Kysely sends a transaction's statements unnamed. */
  async query<T extends object>(text: string, values: readonly unknown[] = []): Promise<QueryResult<T>> {
    const result = await this.#trx.executeQuery<T>(CompiledQuery.raw(text, [...values]));
    return {
      rows: [...result.rows],
      rowCount: result.numAffectedRows === undefined ? result.rows.length : Number(result.numAffectedRows),
    };
  }
  afterCommit(fn: () => void): void {
    this.hooks.push(fn);
  }
}

async function run<T extends object>(
  on: pg.Pool | pg.PoolClient,
  text: string,
  values: readonly unknown[],
  name?: string,
): Promise<QueryResult<T>> {
  const results: pg.QueryResult<T> | Array<pg.QueryResult<T>> = await on.query<T>({
    text,
    values: [...values],
    ...(name ? { name } : {}),
  });
  // A text of several statements (pg-boss's schema migrations) answers one result each: the last one counts.
  const result = Array.isArray(results) ? results[results.length - 1]! : results;
  return { rows: result.rows ?? [], rowCount: result.rowCount ?? result.rows?.length ?? 0 };
}

/** A pooled connection, released once. */
async function checkout(pool: pg.Pool, distributed: boolean, onRelease: () => void = () => {}): Promise<Connection> {
  const client = await pool.connect();
  let released = false;
  return {
    client,
    distributed,
    query: <T extends object>(text: string, values: readonly unknown[] = [], name?: string) =>
      run<T>(client, text, values, name),
    release(destroy = false) {
      if (released) return;
      released = true;
      client.release(destroy || undefined);
      onRelease();
    },
  };
}

/**
 * A counting semaphore over the connections streams hold. A waiter past the pool's connect timeout fails with
 * the pool's message, so it is answered as a busy database (503) rather than queued without end.
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
        reject(
          new Error('timeout exceeded when trying to connect (every stream connection of this process is in use)'),
        );
      }, this.#timeoutMs);
      this.#queue.push(waiter);
    });
  }
  release(): void {
    this.inUse -= 1;
    this.#queue.shift()?.grant();
  }
}

function handle(pool: pg.Pool, orm: MikroORM, slots: Slots, distributed: boolean): Db {
  const db: Db = {
    pool,
    streams: slots,
    distributed,
    query: <T extends object>(text: string, values: readonly unknown[] = [], name?: string) =>
      run<T>(pool, text, values, name),
    async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      let tx: TxHandle | undefined;
      const result = await orm.em.fork().transactional(async (em) => {
        tx = new TxHandle(em, distributed);
        return fn(tx);
      });
      for (const hook of tx!.hooks) hook();
      return result;
    },
    async connect() {
      await slots.acquire();
      try {
        return await checkout(pool, distributed, () => slots.release());
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
 * DATABASE_URL when set, otherwise the embedded Postgres in the data dir. One pg pool serves MikroORM (through
 * a Kysely dialect), SQL and pg-boss, so the process never opens more than `connections`.
 */
export async function openDatabase(config: Config, opts: OpenOptions): Promise<Database> {
  const log = opts.log ?? (() => {});
  const embedded = config.databaseUrl ? null : await startEmbeddedPostgres(config.dataDir, log);
  const url = config.databaseUrl ?? embedded!.url;
  const max = opts.connections - (opts.reserved ?? 0);
  if (max < 2)
    throw new Error(`DATABASE_POOL_SIZE=${opts.connections} leaves ${max} pooled connection(s); at least 2 are needed`);
  const pool = new pg.Pool({
    connectionString: url,
    max,
    idleTimeoutMillis: 30_000,
    // A wait for a connection ends in an error (a 503) rather than a hung request.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: opts.applicationName ?? 'intake',
    // A runaway query or forgotten transaction cannot keep a connection from everyone (0 turns one off);
    // work long by design sets its own `set local statement_timeout`.
    statement_timeout: config.databaseStatementTimeoutMs || undefined,
    idle_in_transaction_session_timeout: config.databaseIdleInTransactionTimeoutMs || undefined,
    // Timestamps stay text (microseconds kept: cursors and the ORM both need them); see row-types.ts.
    types: rowTypes,
  });
  pool.on('error', () => {}); // an idle client's error (a server restart) surfaces on the next query instead
  // A checked-out client the server closes between statements emits 'error' with no query to receive it,
  // which would crash the process; its next query fails instead and the pool drops it on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  const orm = await MikroORM.init({
    driver: PostgreSqlDriver,
    clientUrl: url, // names the database for MikroORM; connections come from the pool below
    driverOptions: new PostgresDialect({ pool }),
    entities,
    extensions: [Migrator],
    migrations: {
      migrationsList: migrations,
      tableName: 'intake_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
    },
    allowGlobalContext: false,
    debug: false,
    logger: (message: string) => log(stripVTControlCharacters(message)),
  });
  const { rows } = await pool.query<{ citus: boolean }>(
    `select exists (select 1 from pg_extension where extname = 'citus') as citus`,
  );
  return {
    db: handle(pool, orm, new Slots(Math.max(1, Math.floor(max / 2)), CONNECT_TIMEOUT_MS), rows[0]!.citus),
    orm,
    url,
    embedded,
    async close() {
      let grace: NodeJS.Timeout | undefined;
      try {
        // Ends the pool (MikroORM's Kysely owns it); a connection stuck in a query must not keep the
        // embedded Postgres from stopping.
        await Promise.race([orm.close(true), new Promise((resolve) => (grace = setTimeout(resolve, CLOSE_GRACE_MS)))]);
      } finally {
        // The grace is a bound, not a wait: a pending timer would hold an idle process open.
        clearTimeout(grace);
        await embedded?.stop();
      }
    },
  };
}

/**
 * Applies pending migrations in one transaction, serialised across processes by an advisory lock taken inside
 * it, so a process needs at most two pooled connections.
 */
export async function migrate(database: Database): Promise<string[]> {
  const connection = database.orm.em.getConnection();
  const done = await connection.transactional(async (trx) => {
    // Waiting for another process's migrations, or rewriting a big table, has no time limit.
    await connection.execute('set local statement_timeout = 0', [], 'run', trx);
    await connection.execute('select pg_advisory_xact_lock(781234)', [], 'run', trx);
    return database.orm.migrator.up({ transaction: trx });
  });
  return done.map((m) => m.name);
}
