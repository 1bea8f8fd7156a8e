import type { Logger } from 'pino';
import type { AiProvider } from './ai/provider.ts';
import type { CaptchaVerifier } from './captcha/siteverify.ts';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import type { Queue } from './jobs/queue.ts';
import type { Mailer } from './mail/mailer.ts';
import type { Keys } from './secret-key.ts';
import type { ObjectStorage } from './storage/object-storage.ts';

/** What domain functions, handlers and jobs share: built once by the composition root. */
export type AppContext = {
  config: Config;
  /** The process's one database handle: SQL, MikroORM and job sends share its pool and transactions. */
  db: Db;
  log: Logger;
  storage: ObjectStorage;
  queue: Queue;
  mailer: Mailer;
  /** The configured AI provider (OpenAI or compatible when OPENAI_API_KEY is set, else the local one). */
  ai: AiProvider;
  /** What plans without AI features get: the local provider, rule-based and without network. */
  localAi: AiProvider;
  /** Asks a CAPTCHA provider about a widget's token (server/captcha/siteverify.ts). */
  verifyCaptcha: CaptchaVerifier;
  /** Keys derived per purpose from INTAKE_SECRET_KEY (server/secret-key.ts). */
  keys: Keys;
};
