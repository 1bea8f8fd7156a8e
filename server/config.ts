import path from 'node:path';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1');
/** A flag that is on unless set to false or 0. */
const boolOn = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => v !== 'false' && v !== '0');

/** Every environment variable Intake reads, parsed once. Nothing else reads process.env. */
const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().optional(),
  INTAKE_BASE_URL: z.string().url().optional(),
  INTAKE_DATA_DIR: z.string().default('./.intake'),
  DATABASE_URL: z.string().optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).default(10),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(0).default(60_000),
  STORAGE_URL: z.string().url().optional(),
  STORAGE_BUCKET: z.string().default('intake'),
  INTAKE_SECRET_KEY: z.string().optional(),
  INTAKE_API_RATE_LIMIT: z.coerce.number().int().min(1).default(120),
  INTAKE_SUBMIT_TOKEN_RATE_LIMIT: z.coerce.number().int().min(1).default(600),
  INTAKE_API_TEAM_RATE_LIMIT: z.coerce.number().int().min(1).default(600),
  INTAKE_AUTH_FAILURE_LIMIT: z.coerce.number().int().min(1).default(60),
  INTAKE_AUTH_FAILURE_DELAY_MS: z.coerce.number().int().min(0).max(30_000).default(1_000),
  INTAKE_SEARCH_TEAM_RATE_LIMIT: z.coerce.number().int().min(6).default(60),
  INTAKE_SEARCH_TEAM_TIME_MS: z.coerce.number().int().min(1).default(1_000),
  INTAKE_TRUST_PROXY: z.string().default(''),
  INTAKE_VALIDATE_RESPONSES: bool,
  INTAKE_ALLOW_PRIVATE_WEBHOOKS: bool,
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('Intake <notifications@intake.local>'),
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_BASE_URL: z.string().url().optional(),
  OPENAI_MODEL: z.string().default('gpt-4o-mini'),
  INTAKE_INGEST_RATE_LIMIT: z.coerce.number().int().min(1).default(20),
  INTAKE_INGEST_FLOOD_LIMIT: z.coerce.number().int().min(1).default(120),
  INTAKE_WORKER_CONCURRENCY: z.coerce.number().int().min(1).default(4),
  INTAKE_QUEUE_POLL_SECONDS: z.coerce.number().min(0.5).default(2),
  INTAKE_QUEUE_KEEP_FINISHED_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 86_400)
    .default(60),
  INTAKE_DELIVERY_SCHEDULE: z
    .string()
    .default('0,5,300,1800,7200,18000,36000')
    .transform((v) => v.split(',').map((s) => Number(s.trim())))
    .refine(
      (a) => a.length >= 1 && a.length <= 20 && a.every((n) => Number.isFinite(n) && n >= 0),
      'a comma-separated list of 1 to 20 delays in seconds',
    ),
  INTAKE_DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(50),
  INTAKE_DELIVERY_CONCURRENCY_PER_WEBHOOK: z.coerce.number().int().min(1).max(1000).default(10),
  INTAKE_BULK_DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(4),
  INTAKE_BULK_DELIVERY_RATE: z.coerce.number().min(1).max(100_000).default(50),
  INTAKE_REPLAY_TEAM_RATE: z.coerce.number().min(0.5).max(100_000).default(10),
  INTAKE_DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  INTAKE_DELIVERY_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
  INTAKE_WEBHOOK_DISABLE_AFTER_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(5 * 24 * 3600),
  INTAKE_VERIFY_NOTIFICATION_EMAILS: boolOn,
  INTAKE_TURNSTILE_VERIFY_URL: z.string().url().default('https://challenges.cloudflare.com/turnstile/v0/siteverify'),
  INTAKE_HCAPTCHA_VERIFY_URL: z.string().url().default('https://api.hcaptcha.com/siteverify'),
  INTAKE_RECAPTCHA_VERIFY_URL: z.string().url().default('https://www.google.com/recaptcha/api/siteverify'),
  INTAKE_CAPTCHA_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(5_000),
  INTAKE_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).max(120_000).default(10_000),
  INTAKE_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(300_000),
  INTAKE_MIN_BODY_RATE: z.coerce.number().int().min(0).default(100),
  INTAKE_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
  INTAKE_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(5_000),
  INTAKE_EXPORTS_PER_TEAM: z.coerce.number().int().min(1).max(1000).default(2),
  INTAKE_TEAM_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(4),
  INTAKE_TEAM_QUEUE: z.coerce.number().int().min(0).max(100_000).default(64),
  INTAKE_TEAM_QUEUE_WAIT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  INTAKE_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(25_000),
  INTAKE_SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(300_000).default(5_000),
  INTAKE_MCP_SESSIONS_PER_TOKEN: z.coerce.number().int().min(1).max(10_000).default(20),
  INTAKE_MCP_SESSIONS_PER_TEAM: z.coerce.number().int().min(1).max(100_000).default(100),
  INTAKE_MCP_SESSIONS_MAX: z.coerce.number().int().min(1).max(1_000_000).default(1000),
  INTAKE_MCP_SESSION_IDLE_MS: z.coerce.number().int().min(1000).max(86_400_000).default(600_000),
  INTAKE_METRICS_TOKEN: z
    .string()
    .optional()
    .refine(
      (v) => !v || v.length >= 16,
      'at least 16 characters (a scraper sends it; it guards every figure of the service)',
    ),
  INTAKE_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Config = {
  port: number;
  host: string;
  /** HOST was given (dev then honours it instead of 127.0.0.1). */
  hostSet: boolean;
  baseUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** Postgres cancels an ordinary statement after this long (0: never); see server/infra/db/database.ts. */
  databaseStatementTimeoutMs: number;
  /** Postgres closes a session left idle inside a transaction this long (0: never). */
  databaseIdleInTransactionTimeoutMs: number;
  storageUrl: string | undefined;
  storageBucket: string;
  secretKey: string | undefined;
  apiRateLimit: number;
  /** Server-side submits per token per minute (`POST /v1/forms/{form}/submissions`). */
  submitTokenRateLimit: number;
  /** The same budget for all of a team's tokens together: a member who mints tokens does not multiply it. */
  apiTeamRateLimit: number;
  /** Requests failing authentication per client address and minute, in each process; past it 429 and the connection is cut. */
  authFailureLimit: number;
  /** How long a request refused past that bound is held, unread, before its 429. */
  authFailureDelayMs: number;
  /** Searches (`q=`) per minute per team, every token and transport together, counted in 10-second windows. */
  searchTeamRateLimit: number;
  /** Milliseconds of search statements per minute per team, every token and transport together, per one-minute window. */
  searchTeamTimeMs: number;
  /** Express's `trust proxy`: whose X-Forwarded-For decides the client address. */
  trustProxy: boolean | number | string;
  validateResponses: boolean;
  allowPrivateWebhooks: boolean;
  smtpUrl: string | undefined;
  mailFrom: string;
  openaiApiKey: string | undefined;
  openaiBaseUrl: string | undefined;
  openaiModel: string;
  ingestRateLimit: number;
  ingestFloodLimit: number;
  workerConcurrency: number;
  queuePollSeconds: number;
  /** How long the queue keeps a finished job; Intake's own tables record every outcome. */
  queueKeepFinishedSeconds: number;
  /** Delay in seconds before each delivery attempt (the first is the delay after processing): its length is the attempt count. */
  deliverySchedule: number[];
  /** Webhook requests in flight per worker process. */
  deliveryConcurrency: number;
  /** Of those, at most this many to one webhook (never more than deliveryConcurrency). */
  deliveryConcurrencyPerWebhook: number;
  /** Of those, at most this many bulk-replay attempts (never more than deliveryConcurrency). */
  bulkDeliveryConcurrency: number;
  /** Bulk-replay attempts a worker process starts per second, all teams together (their turns share it). */
  bulkDeliveryRate: number;
  /** Deliveries a team's bulk replays queue per second, all its replay jobs and every process together. */
  replayTeamRate: number;
  deliveryTimeoutMs: number;
  deliveryRetentionDays: number;
  /** A webhook whose every attempt has failed for this long is deactivated (its owners are told). */
  webhookDisableAfterSeconds: number;
  /** Notification addresses receive nothing until they confirm by an e-mailed link (off for development). */
  verifyNotificationEmails: boolean;
  /** INTAKE_VERIFY_NOTIFICATION_EMAILS was given (dev then honours it instead of turning verification off). */
  verifyNotificationEmailsSet: boolean;
  /** Each CAPTCHA provider's siteverify endpoint (reCAPTCHA v2 and v3 share one). */
  captchaVerifyUrls: { turnstile: string; hcaptcha: string; recaptcha: string };
  captchaTimeoutMs: number;
  /** How slow a client may be (slowloris): see server/transports/http/http-server.ts. */
  http: {
    /** Time to receive a request's headers. */
    headersTimeoutMs: number;
    /** Time to receive a whole request, body included. */
    requestTimeoutMs: number;
    /** Bytes per second a request body must keep up (measured over 10 s); 0 turns the check off. */
    minBodyRate: number;
    /** A connection with no traffic either way this long is closed (a client that stopped reading). */
    idleTimeoutMs: number;
    keepAliveTimeoutMs: number;
  };
  /** Exports of one team running at once, over every process (the next one answers 429). */
  exportsPerTeam: number;
  /** A team's operations in this process: `running` at once, `waiting` in line for at most `waitMs`, then 429. */
  teamOperations: { running: number; waiting: number; waitMs: number };
  /** Time a SIGTERM'd process has to finish in-flight work before it exits anyway. */
  shutdownTimeoutMs: number;
  /** After SIGTERM, how long an HTTP process still listens while /readyz answers 503, so a load balancer notices. */
  shutdownDrainMs: number;
  /** MCP sessions over HTTP, held in this process's memory (docs/mcp.md "Limits"). */
  mcp: { sessionsPerToken: number; sessionsPerTeam: number; sessionsMax: number; sessionIdleMs: number };
  /** GET /metrics, off unless set: `token` serves it on the API's port to its bearer; `port` on its own listener (0: any free port). */
  metrics: { token: string | undefined; port: number | undefined };
  logLevel: z.infer<typeof Env>['LOG_LEVEL'];
};

/**
 * INTAKE_TRUST_PROXY in express's syntax: unset or `false` trusts no proxy (the peer is the client);
 * `true` trusts every hop; a number trusts that many hops; otherwise a list of addresses, subnets or
 * the names `loopback`, `linklocal`, `uniquelocal`.
 */
function trustProxy(value: string): boolean | number | string {
  const v = value.trim();
  if (v === '' || v === 'false') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  return v;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    // `serve` listens on every interface by default (a server); `make dev` only on this machine (see cli/main.ts).
    host: e.HOST ?? '0.0.0.0',
    hostSet: e.HOST !== undefined,
    baseUrl: (e.INTAKE_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    dataDir: path.resolve(e.INTAKE_DATA_DIR),
    databaseUrl: e.DATABASE_URL || undefined,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databaseStatementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    databaseIdleInTransactionTimeoutMs: e.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    storageUrl: e.STORAGE_URL || undefined,
    storageBucket: e.STORAGE_BUCKET,
    secretKey: e.INTAKE_SECRET_KEY || undefined,
    apiRateLimit: e.INTAKE_API_RATE_LIMIT,
    submitTokenRateLimit: e.INTAKE_SUBMIT_TOKEN_RATE_LIMIT,
    apiTeamRateLimit: e.INTAKE_API_TEAM_RATE_LIMIT,
    authFailureLimit: e.INTAKE_AUTH_FAILURE_LIMIT,
    authFailureDelayMs: e.INTAKE_AUTH_FAILURE_DELAY_MS,
    searchTeamRateLimit: e.INTAKE_SEARCH_TEAM_RATE_LIMIT,
    searchTeamTimeMs: e.INTAKE_SEARCH_TEAM_TIME_MS,
    trustProxy: trustProxy(e.INTAKE_TRUST_PROXY),
    validateResponses: e.INTAKE_VALIDATE_RESPONSES,
    allowPrivateWebhooks: e.INTAKE_ALLOW_PRIVATE_WEBHOOKS,
    smtpUrl: e.SMTP_URL || undefined,
    mailFrom: e.MAIL_FROM,
    openaiApiKey: e.OPENAI_API_KEY || undefined,
    openaiBaseUrl: e.OPENAI_BASE_URL || undefined,
    openaiModel: e.OPENAI_MODEL,
    ingestRateLimit: e.INTAKE_INGEST_RATE_LIMIT,
    ingestFloodLimit: e.INTAKE_INGEST_FLOOD_LIMIT,
    workerConcurrency: e.INTAKE_WORKER_CONCURRENCY,
    queuePollSeconds: e.INTAKE_QUEUE_POLL_SECONDS,
    queueKeepFinishedSeconds: e.INTAKE_QUEUE_KEEP_FINISHED_SECONDS,
    deliverySchedule: e.INTAKE_DELIVERY_SCHEDULE,
    deliveryConcurrency: e.INTAKE_DELIVERY_CONCURRENCY,
    deliveryConcurrencyPerWebhook: Math.min(e.INTAKE_DELIVERY_CONCURRENCY_PER_WEBHOOK, e.INTAKE_DELIVERY_CONCURRENCY),
    bulkDeliveryConcurrency: Math.min(e.INTAKE_BULK_DELIVERY_CONCURRENCY, e.INTAKE_DELIVERY_CONCURRENCY),
    bulkDeliveryRate: e.INTAKE_BULK_DELIVERY_RATE,
    replayTeamRate: e.INTAKE_REPLAY_TEAM_RATE,
    deliveryTimeoutMs: e.INTAKE_DELIVERY_TIMEOUT_MS,
    deliveryRetentionDays: e.INTAKE_DELIVERY_RETENTION_DAYS,
    webhookDisableAfterSeconds: e.INTAKE_WEBHOOK_DISABLE_AFTER_SECONDS,
    verifyNotificationEmails: e.INTAKE_VERIFY_NOTIFICATION_EMAILS,
    verifyNotificationEmailsSet:
      env.INTAKE_VERIFY_NOTIFICATION_EMAILS !== undefined && env.INTAKE_VERIFY_NOTIFICATION_EMAILS !== '',
    captchaVerifyUrls: {
      turnstile: e.INTAKE_TURNSTILE_VERIFY_URL,
      hcaptcha: e.INTAKE_HCAPTCHA_VERIFY_URL,
      recaptcha: e.INTAKE_RECAPTCHA_VERIFY_URL,
    },
    captchaTimeoutMs: e.INTAKE_CAPTCHA_TIMEOUT_MS,
    http: {
      headersTimeoutMs: e.INTAKE_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.INTAKE_REQUEST_TIMEOUT_MS,
      minBodyRate: e.INTAKE_MIN_BODY_RATE,
      idleTimeoutMs: e.INTAKE_IDLE_TIMEOUT_MS,
      keepAliveTimeoutMs: e.INTAKE_KEEP_ALIVE_TIMEOUT_MS,
    },
    exportsPerTeam: e.INTAKE_EXPORTS_PER_TEAM,
    teamOperations: {
      running: e.INTAKE_TEAM_CONCURRENCY,
      waiting: e.INTAKE_TEAM_QUEUE,
      waitMs: e.INTAKE_TEAM_QUEUE_WAIT_MS,
    },
    shutdownTimeoutMs: e.INTAKE_SHUTDOWN_TIMEOUT_MS,
    shutdownDrainMs: Math.min(e.INTAKE_SHUTDOWN_DRAIN_MS, e.INTAKE_SHUTDOWN_TIMEOUT_MS / 2),
    mcp: {
      sessionsPerToken: e.INTAKE_MCP_SESSIONS_PER_TOKEN,
      sessionsPerTeam: e.INTAKE_MCP_SESSIONS_PER_TEAM,
      sessionsMax: e.INTAKE_MCP_SESSIONS_MAX,
      sessionIdleMs: e.INTAKE_MCP_SESSION_IDLE_MS,
    },
    metrics: {
      token: e.INTAKE_METRICS_TOKEN || undefined,
      port: env.INTAKE_METRICS_PORT ? e.INTAKE_METRICS_PORT : undefined,
    },
    logLevel: e.LOG_LEVEL,
  };
}
