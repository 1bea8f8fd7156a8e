import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PgBoss } from 'pg-boss';
import { pino, type Logger } from 'pino';
import { loadConfig, type Config } from './config.ts';
import type { AppContext } from './context.ts';
import { migrate, openDatabase, type Database } from './db/database.ts';
import { createApp } from './http/app.ts';
import { startQueue } from './jobs/queue.ts';
import { startEmbeddedS3, type EmbeddedS3 } from './storage/embedded-s3.ts';
import { connectStorage, type ObjectStorage } from './storage/object-storage.ts';

export type Runtime = {
  ctx: AppContext;
  db: Database;
  storage: ObjectStorage | null;
  url: string | null;
  close(): Promise<void>;
};

export function createLogger(config: Config): Logger {
  return pino({ level: config.logLevel, base: { service: 'intake' } });
}

type BootOptions = { http: boolean; worker: boolean; storage: boolean; log?: Logger };

/** The composition root: config → database (+ migrations) → storage → queue → http → workers. */
export async function boot(config: Config, options: BootOptions): Promise<Runtime> {
  const log = options.log ?? createLogger(config);
  const closers: Array<[string, () => Promise<unknown>]> = [];
  const close = async () => {
    for (const [name, fn] of closers.reverse()) {
      log.debug(`stopping ${name}`);
      await fn().catch((err: unknown) => log.warn({ err }, `stopping ${name} failed`));
    }
    closers.length = 0;
  };
  try {
    const db = await openDatabase(config, (msg) => log.info(msg));
    closers.push(['database', () => db.close()]);
    const applied = await migrate(db);
    if (applied.length) log.info({ applied }, 'migrations applied');

    let storage: ObjectStorage | null = null;
    if (options.storage) {
      let embedded: EmbeddedS3 | null = null;
      if (!config.storageUrl) {
        embedded = await startEmbeddedS3(config.dataDir, config.storageBucket);
        closers.push(['embedded storage', () => embedded!.stop()]);
      }
      storage = connectStorage(config.storageUrl ?? embedded!.url, config.storageBucket);
      await storage.ping();
    }

    const ctx: AppContext = { config, orm: db.orm, log };

    let boss: PgBoss | null = null;
    if (options.worker) {
      boss = await startQueue(db.url, log);
      closers.push(['queue', () => boss!.stop({ graceful: true, timeout: 10_000 })]);
    }

    let url: string | null = null;
    if (options.http) {
      const server: Server = createApp(ctx).listen(config.port, config.host);
      await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
      const { port } = server.address() as AddressInfo;
      url = `http://localhost:${port}`;
      closers.push(['http', () => new Promise((resolve) => server.close(resolve))]);
      log.info({ url }, 'http listening');
    }
    return { ctx, db, storage, url, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Runs until SIGINT/SIGTERM, then shuts down in reverse order of start. */
export async function runUntilSignal(runtime: Runtime): Promise<void> {
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  runtime.ctx.log.info('shutting down');
  await runtime.close();
}

export { loadConfig };
