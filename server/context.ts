import type { Logger } from 'pino';
import type { AiProvider } from './infra/ai/provider.ts';
import type { CaptchaVerifier } from './infra/captcha/siteverify.ts';
import type { Config } from './config.ts';
import type { Db } from './infra/db/database.ts';
import type { Queue } from './infra/queue/queue.ts';
import type { Mailer } from './infra/mail/mailer.ts';
import type { Keys } from './infra/secret-key.ts';
import type { ObjectStorage } from './infra/storage/object-storage.ts';

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
  /** Asks a CAPTCHA provider about a widget's token. */
  verifyCaptcha: CaptchaVerifier;
  /** Keys derived per purpose from INTAKE_SECRET_KEY. */
  keys: Keys;
};
