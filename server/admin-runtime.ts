import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { migrate, openDatabase } from './infra/db/database.ts';
import { clusterDir } from './infra/db/embedded-postgres.ts';
import { deriveKeys, loadSecretKey } from './infra/secret-key.ts';

/**
 * The composition root of an admin command: the migrated database and nothing else, so a command costs its
 * few statements, not a server's start.
 */
export type AdminRuntime = { ctx: AppContext; close(): Promise<void> };

/** An admin command's context: database, config, log and keys; touching anything else throws, naming the part. */
function adminContext(parts: Pick<AppContext, 'config' | 'db' | 'log' | 'keys'>): AppContext {
  return new Proxy(parts, {
    get(target, prop) {
      if (typeof prop === 'symbol' || prop in target) return Reflect.get(target, prop);
      throw new Error(`ctx.${prop} is not started in an admin command`);
    },
  }) as AppContext;
}

/** True when opening will create the database: no DATABASE_URL and no embedded cluster for the data dir yet. */
export function adminDatabaseMissing(config: Config): boolean {
  return !config.databaseUrl && !fs.existsSync(path.join(clusterDir(config.dataDir), 'PG_VERSION'));
}

export async function openAdminRuntime(config: Config): Promise<AdminRuntime> {
  const log = pino({ level: config.logLevel, base: { service: 'intake' } });
  const database = await openDatabase(config, {
    connections: config.databasePoolSize,
    applicationName: `intake admin ${process.pid}`,
    log: (msg) => log.info(msg),
  });
  try {
    const applied = await migrate(database);
    if (applied.length) log.info({ applied }, 'migrations applied');
    const ctx = adminContext({ config, db: database.db, log, keys: deriveKeys(loadSecretKey(config)) });
    return { ctx, close: () => database.close() };
  } catch (err) {
    await database.close();
    throw err;
  }
}
