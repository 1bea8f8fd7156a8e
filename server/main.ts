import { pino, type Logger } from 'pino';
import { LocalProvider } from './infra/ai/local-provider.ts';
import { OpenAiProvider } from './infra/ai/openai-provider.ts';
import type { AiProvider } from './infra/ai/provider.ts';
import { loadConfig, type Config } from './config.ts';
import type { AppContext } from './context.ts';
import { migrate, openDatabase, type Database } from './infra/db/database.ts';
import { createApp } from './transports/http/app.ts';
import { listenHttp, type HttpServer } from './transports/http/http-server.ts';
import { startMetrics } from './transports/http/metrics.ts';
import { VERSION } from './version.ts';
import {
  allJobs,
  compactFolderCounts,
  deliveriesMaintenance,
  embeddableJobs,
  notificationDigests,
  retentionSweep,
  weeklyInsights,
} from './infra/queue/definitions.ts';
import { SWEEP_CRON } from './domain/lifecycle/retention.ts';
import { closeSubmissionStreams } from './domain/submissions/stream.ts';
import { startDeliveryRunner } from './domain/delivery/runner.ts';
import { startQueue, type Queue } from './infra/queue/queue.ts';
import { workers } from './workers/handlers.ts';
import { createMailer } from './infra/mail/mailer.ts';
import { siteverify } from './infra/captcha/siteverify.ts';
import { deriveKeys, loadSecretKey } from './infra/secret-key.ts';
import { startEmbeddedS3 } from './infra/storage/embedded-s3.ts';
import { connectStorage, type ObjectStorage } from './infra/storage/object-storage.ts';
import { countedAi } from './infra/metrics/ai-calls.ts';

export type Runtime = {
  ctx: AppContext;
  db: Database;
  url: string | null;
  /** The HTTP server, in a process that serves HTTP (its shutdown drains it first). */
  http: HttpServer | null;
  /** SIGINT/SIGTERM that came while boot ran, in a process that runs until one: runUntilSignal acts on them. */
  signalsWhileStarting: NodeJS.Signals[];
  close(): Promise<void>;
};

export function createLogger(config: Config): Logger {
  return pino({ level: config.logLevel, base: { service: 'intake' } });
}

/** The configured provider, and the local one that plans without AI features get (and OpenAI falls back to). */
export function createAiProviders(config: Config, log: Logger): { ai: AiProvider; localAi: AiProvider } {
  const localAi = new LocalProvider();
  if (!config.openaiApiKey) return { ai: countedAi(localAi), localAi: countedAi(localAi) };
  const openAi = new OpenAiProvider({
    apiKey: config.openaiApiKey,
    baseUrl: config.openaiBaseUrl,
    model: config.openaiModel,
    fallback: localAi,
    log,
  });
  return { ai: countedAi(openAi), localAi: countedAi(localAi) };
}

/** Stand-in for parts a process did not start (admin commands need neither storage nor a queue). */
function unavailable<T extends object>(what: string): T {
  return new Proxy({} as T, {
    get: () => {
      throw new Error(`${what} is not started in this process`);
    },
  });
}

type BootOptions = {
  http: boolean;
  /** Consume jobs (and run pg-boss maintenance). */
  worker: boolean;
  /** Storage and the job queue; off for admin commands that only touch accounts. */
  services: boolean;
  log?: Logger;
  /** Signals the caller held before boot could (the CLI's, while Node loaded the server): handled as if they came while starting. */
  signalsBeforeBoot?: () => NodeJS.Signals[];
};

/**
 * Postgres connections a process opens, all within DATABASE_POOL_SIZE: the pool shared by SQL, the ORM and
 * pg-boss, plus (in a process that consumes jobs) one LISTEN session taken from that budget.
 */
export const LISTEN_CONNECTIONS = 1;

/** What pg_stat_activity shows a process as (with its pid): serve, api (serve --no-worker), worker, admin. */
export function processKind(options: Pick<BootOptions, 'http' | 'worker' | 'services'>): string {
  if (!options.services) return 'admin';
  if (options.http) return options.worker ? 'serve' : 'api';
  return options.worker ? 'worker' : 'admin';
}

/** The composition root: config → database (+ migrations) → storage → queue → http → workers. */
export async function boot(config: Config, options: BootOptions): Promise<Runtime> {
  const log = options.log ?? createLogger(config);
  // A signal that comes while serve or worker starts is held until the start is complete, then stops them
  // as usual, rather than killing Node half-way through migrations.
  const signalsWhileStarting: NodeJS.Signals[] = [];
  const holdSignal = (signal: NodeJS.Signals) => {
    signalsWhileStarting.push(signal);
    log.info({ signal }, 'signal received while starting; stopping once started');
  };
  const holdsSignals = options.http || options.worker;
  if (holdsSignals) {
    process.on('SIGINT', holdSignal);
    process.on('SIGTERM', holdSignal);
    for (const signal of options.signalsBeforeBoot?.() ?? []) holdSignal(signal);
  }
  const closers: Array<[string, () => Promise<unknown>]> = [];
  const close = async () => {
    for (const [name, fn] of closers.reverse()) {
      log.debug(`stopping ${name}`);
      await fn().catch((err: unknown) => log.warn({ err }, `stopping ${name} failed`));
    }
    closers.length = 0;
  };
  try {
    const consume = options.services && options.worker;
    const applicationName = `intake ${processKind(options)} ${process.pid}`;
    const db = await openDatabase(config, {
      connections: config.databasePoolSize,
      reserved: consume ? LISTEN_CONNECTIONS : 0,
      applicationName,
      log: (msg) => log.info(msg),
    });
    closers.push(['database', () => db.close()]);
    const applied = await migrate(db);
    if (applied.length) log.info({ applied }, 'migrations applied');

    let storage = unavailable<ObjectStorage>('object storage');
    let queue = unavailable<Queue>('the job queue');
    if (options.services) {
      let storageUrl = config.storageUrl;
      if (!storageUrl) {
        const embedded = await startEmbeddedS3(config.dataDir, config.storageBucket);
        closers.push(['embedded storage', () => embedded.stop()]);
        storageUrl = embedded.url;
      }
      storage = connectStorage(storageUrl, config.storageBucket);
      await storage.ping();
      const q = await startQueue(db.db, log, allJobs, {
        consume,
        pollSeconds: config.queuePollSeconds,
        keepFinishedSeconds: config.queueKeepFinishedSeconds,
        listen: consume ? { url: db.url, applicationName } : null,
        embeddable: embeddableJobs,
      });
      closers.push(['queue', () => q.stop()]);
      queue = q;
    }
    const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, dataDir: config.dataDir });
    closers.push(['mailer', async () => mailer.close()]);

    const ctx: AppContext = {
      config,
      db: db.db,
      log,
      storage,
      queue,
      mailer,
      ...createAiProviders(config, log),
      verifyCaptcha: siteverify(config),
      keys: deriveKeys(loadSecretKey(config)),
    };
    closers.push([
      'metrics',
      await startMetrics(
        { host: config.host, port: config.metrics.port, log },
        { db: db.db, queue: options.services ? queue : null },
      ),
    ]);
    if (options.worker) {
      await queue.work(ctx, workers(ctx));
      await queue.schedule(deliveriesMaintenance, '*/5 * * * *');
      await queue.schedule(weeklyInsights, '0 6 * * 1');
      await queue.schedule(retentionSweep, SWEEP_CRON);
      await queue.schedule(compactFolderCounts, '20 0 * * *');
      await queue.schedule(notificationDigests, '0 * * * *');
      const runner = startDeliveryRunner(ctx, { version: VERSION });
      closers.push(['webhook deliveries', () => runner.stop()]);
    }

    let url: string | null = null;
    let http: HttpServer | null = null;
    if (options.http) {
      const server = await listenHttp(createApp(ctx), config);
      http = server;
      url = server.url;
      // Of the shutdown budget left after the drain, in-flight requests get half; the workers' jobs, the rest.
      closers.push(['http', () => server.close((config.shutdownTimeoutMs - config.shutdownDrainMs) / 2)]);
      log.info({ url }, 'http listening');
    }
    // Open event streams would keep the HTTP server from closing: they end first (closers run in reverse).
    closers.push(['submission streams', () => closeSubmissionStreams(ctx)]);
    return { ctx, db, url, http, signalsWhileStarting, close };
  } catch (err) {
    await close();
    throw err;
  } finally {
    if (holdsSignals) {
      process.off('SIGINT', holdSignal);
      process.off('SIGTERM', holdSignal);
    }
  }
}

/**
 * Runs until SIGINT/SIGTERM, then shuts down in reverse order of start. A process-group signal arrives twice,
 * so only a third forces the exit. SIGTERM to an HTTP process drains it first (/readyz 503 while connections
 * are still taken), so a load balancer takes it out of rotation; SIGINT stops at once.
 */
export async function runUntilSignal(runtime: Runtime): Promise<void> {
  const first = await new Promise<NodeJS.Signals>((resolve) => {
    let received = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      received += 1;
      if (received === 1) return resolve(signal);
      if (received === 2) return runtime.ctx.log.warn({ signal }, 'shutdown under way; signal once more to force it');
      runtime.ctx.log.warn({ signal }, 'forcing exit');
      void (runtime.db.embedded?.stop() ?? Promise.resolve()).finally(() => process.exit(1));
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    for (const signal of runtime.signalsWhileStarting) onSignal(signal);
  });
  const { log, config } = runtime.ctx;
  log.info('shutting down');
  // Shutdown awaits sockets and child processes; a timer keeps Node from exiting half-way if they go quiet.
  const keepAlive = setInterval(() => {}, 1000);
  // Past the budget the process exits anyway (a supervisor's SIGKILL would come soon after): jobs still
  // held go back to the queue when their lease expires, and nothing accepted is lost.
  const deadline = setTimeout(() => {
    log.warn({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown took too long; exiting');
    void (runtime.db.embedded?.stop() ?? Promise.resolve()).finally(() => process.exit(1));
  }, config.shutdownTimeoutMs);
  try {
    if (first === 'SIGTERM' && runtime.http && config.shutdownDrainMs > 0) {
      runtime.http.drain();
      log.info(
        { drainMs: config.shutdownDrainMs },
        'draining: /readyz answers 503; connections are still taken until the drain ends',
      );
      await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs));
    }
    await runtime.close();
  } finally {
    clearInterval(keepAlive);
    clearTimeout(deadline);
  }
  // Everything the process owns is closed; a handler whose job was given back to the queue may still wait
  // on a slow server, and must not hold the exit.
  log.info('stopped');
  process.exit(0);
}

export { loadConfig };
