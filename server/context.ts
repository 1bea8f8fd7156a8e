import type { MikroORM } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { AiProvider } from './ai/provider.ts';
import type { Config } from './config.ts';
import type { Queue } from './jobs/queue.ts';
import type { Mailer } from './mail/mailer.ts';
import type { ObjectStorage } from './storage/object-storage.ts';

/** What domain functions, handlers and jobs share: built once by the composition root. */
export type AppContext = {
  config: Config;
  orm: MikroORM;
  /** Raw pg pool for hot paths and transactions that also enqueue jobs. */
  pool: Pool;
  log: Logger;
  storage: ObjectStorage;
  queue: Queue;
  mailer: Mailer;
  ai: AiProvider;
  secretKey: Buffer;
};
