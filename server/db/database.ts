import { stripVTControlCharacters } from 'node:util';
import pg from 'pg';
import { MikroORM, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import type { Config } from '../config.ts';
import { entities } from './entities.ts';
import { migrations } from './migrations/index.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.ts';

export type Database = { orm: MikroORM; pool: pg.Pool; url: string; embedded: EmbeddedPostgres | null; close(): Promise<void> };

/** DATABASE_URL when set, otherwise the embedded Postgres in the data dir. */
export async function openDatabase(config: Config, log: (msg: string) => void = () => {}): Promise<Database> {
  const embedded = config.databaseUrl ? null : await startEmbeddedPostgres(config.dataDir, log);
  const url = config.databaseUrl ?? embedded!.url;
  const orm = await MikroORM.init({
    driver: PostgreSqlDriver,
    clientUrl: url,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: migrations, tableName: 'intake_migrations', transactional: true, allOrNothing: true, snapshot: false },
    pool: { min: 0, max: config.databasePoolSize },
    allowGlobalContext: false,
    debug: false,
    logger: (message: string) => log(stripVTControlCharacters(message)),
  });
  const pool = new pg.Pool({ connectionString: url, max: config.databasePoolSize });
  pool.on('error', () => {}); // idle-client errors (e.g. server restart) surface on the next query instead
  return {
    orm,
    pool,
    url,
    embedded,
    async close() {
      await pool.end();
      await orm.close(true);
      await embedded?.stop();
    },
  };
}

export async function migrate(db: Database): Promise<string[]> {
  // Serialise concurrent `intake migrate` / `serve` starts on one database with a session lock
  // held on a connection of its own.
  const lock = new pg.Client({ connectionString: db.url });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock(781234)');
    const done = await db.orm.migrator.up();
    return done.map((m) => m.name);
  } finally {
    await lock.end();
  }
}
