import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from './config.ts';

/** What domain functions, handlers and jobs share: built once by the composition root. */
export type AppContext = {
  config: Config;
  orm: MikroORM;
  log: Logger;
};
