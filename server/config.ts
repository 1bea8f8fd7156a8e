import path from 'node:path';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1');

/** Every environment variable Intake reads, parsed once. Nothing else reads process.env. */
const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  INTAKE_BASE_URL: z.string().url().optional(),
  INTAKE_DATA_DIR: z.string().default('./.intake'),
  DATABASE_URL: z.string().optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).default(10),
  STORAGE_URL: z.string().url().optional(),
  STORAGE_BUCKET: z.string().default('intake'),
  INTAKE_SECRET_KEY: z.string().optional(),
  INTAKE_API_RATE_LIMIT: z.coerce.number().int().min(1).default(120),
  INTAKE_VALIDATE_RESPONSES: bool,
  INTAKE_ALLOW_PRIVATE_WEBHOOKS: bool,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Config = {
  port: number;
  host: string;
  baseUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  storageUrl: string | undefined;
  storageBucket: string;
  secretKey: string | undefined;
  apiRateLimit: number;
  validateResponses: boolean;
  allowPrivateWebhooks: boolean;
  logLevel: z.infer<typeof Env>['LOG_LEVEL'];
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl: (e.INTAKE_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    dataDir: path.resolve(e.INTAKE_DATA_DIR),
    databaseUrl: e.DATABASE_URL || undefined,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    storageUrl: e.STORAGE_URL || undefined,
    storageBucket: e.STORAGE_BUCKET,
    secretKey: e.INTAKE_SECRET_KEY || undefined,
    apiRateLimit: e.INTAKE_API_RATE_LIMIT,
    validateResponses: e.INTAKE_VALIDATE_RESPONSES,
    allowPrivateWebhooks: e.INTAKE_ALLOW_PRIVATE_WEBHOOKS,
    logLevel: e.LOG_LEVEL,
  };
}
