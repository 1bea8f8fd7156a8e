import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import supertest from 'supertest';
import { afterAll, inject } from 'vitest';
import type { Ability } from '../../contract/abilities.ts';
import { loadConfig, type Config } from '../../server/config.ts';
import type { AppContext } from '../../server/context.ts';
import type { Database } from '../../server/infra/db/database.ts';
import { boot } from '../../server/main.ts';
import { createApp } from '../../server/transports/http/app.ts';
import { createTeam } from '../../server/domain/accounts/teams.ts';
import { issueToken } from '../../server/domain/accounts/tokens.ts';
import { addMember } from '../../server/domain/accounts/users.ts';
import { pino, type Level } from 'pino';
import { loadSecretKey } from '../../server/infra/secret-key.ts';
import { capturedLogFile } from './processes.ts';
import { rememberSecrets } from './secret-scan.ts';

export type TestApp = {
  ctx: AppContext;
  app: Express;
  http: ReturnType<typeof supertest>;
  db: Database;
  config: Config;
  /** Where the app's log goes (pino's JSON lines). */
  logFile: string;
};

/** Environment for a test app: the run's database and storage, response validation on. */
export function testEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: inject('databaseUrl'),
    STORAGE_URL: inject('storageUrl'),
    STORAGE_BUCKET: 'intake-test',
    INTAKE_DATA_DIR: inject('scratchDir'),
    INTAKE_VALIDATE_RESPONSES: 'true',
    // Notification addresses confirm first in production; tests of that turn it on (notification-addresses.test.ts).
    INTAKE_VERIFY_NOTIFICATION_EMAILS: 'false',
    INTAKE_BASE_URL: 'http://intake.test',
    LOG_LEVEL: 'silent',
    // Every test client is 127.0.0.1, and the authorization tests send thousands of bad tokens a minute;
    // test/http/auth-failures.test.ts sets the bound it tests.
    INTAKE_AUTH_FAILURE_LIMIT: '1000000',
    // Search tests run dozens of searches in a second; test/submissions/search-budget.test.ts sets the budget it tests.
    INTAKE_SEARCH_TEAM_RATE_LIMIT: '1000000',
    INTAKE_SEARCH_TEAM_TIME_MS: '100000000',
    // Replay tests send thousands of deliveries in seconds; test/webhooks/replay-pace.test.ts sets the pace it tests.
    INTAKE_REPLAY_TEAM_RATE: '100000',
    ...extra,
  };
}

/**
 * The app's logger: debug level (what an operator at debug would see) into a file of the run's captured
 * logs, which are scanned for secrets at the end of the run; with TEST_LOG_LEVEL, also on stdout.
 */
function testLogger(logFile: string) {
  const file = pino.destination({ dest: logFile, sync: true });
  const shown = process.env.TEST_LOG_LEVEL;
  if (!shown || shown === 'silent') return pino({ level: 'debug' }, file);
  return pino(
    { level: shown === 'trace' ? 'trace' : 'debug' },
    pino.multistream([
      { level: 'debug', stream: file },
      { level: shown as Level, stream: process.stdout },
    ]),
  );
}

/**
 * A real app on the run's Postgres and S3 server, closed after the file's tests. With `worker: true`
 * it also consumes background jobs, as `intake serve` does.
 */
export async function startTestApp(
  extra: Record<string, string> = {},
  opts: { worker?: boolean } = {},
): Promise<TestApp> {
  const env = testEnv(extra);
  const config = loadConfig(env);
  const logFile = capturedLogFile('app');
  const rt = await boot(config, {
    http: false,
    worker: opts.worker ?? false,
    services: true,
    log: testLogger(logFile),
  });
  rememberSecrets(inject('scratchDir'), { secretKeys: [loadSecretKey(config)], env });
  const app = createApp(rt.ctx);
  afterAll(() => rt.close());
  return { ctx: rt.ctx, app, http: supertest(app), db: rt.db, config, logFile };
}

export type TestMember = { teamId: string; userId: string; role: string; token: string; tokenId: string };

const unique = () => randomBytes(5).toString('hex');

/** A fresh team with an owner holding a token with every ability the role allows. */
export async function makeTeam(t: TestApp, opts: { plan?: string; role?: string } = {}): Promise<TestMember> {
  const team = await createTeam(t.ctx, { name: `Team ${unique()}`, plan: opts.plan ?? 'team' });
  return makeMember(t, team.id, opts.role ?? 'owner');
}

export async function makeMember(t: TestApp, teamId: string, role: string, abilities?: Ability[]): Promise<TestMember> {
  const { user } = await addMember(t.ctx, { email: `u-${unique()}@example.test`, name: 'Test User', teamId, role });
  const created = await issueToken(t.ctx, { teamId, userId: user.id, name: 'test', abilities });
  return { teamId, userId: user.id, role, token: created.token, tokenId: created.data.id };
}

/** Another token for the same member. */
export async function makeToken(
  t: TestApp,
  member: TestMember,
  abilities?: Ability[],
): Promise<{ token: string; tokenId: string }> {
  const created = await issueToken(t.ctx, { teamId: member.teamId, userId: member.userId, name: 'extra', abilities });
  return { token: created.token, tokenId: created.data.id };
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/**
 * Runs a fixture's seeding statement without the statement timeout: tens of thousands of rows inserted at
 * once may take longer than any request may on a loaded machine, and the seed is not what a test measures.
 */
export async function seed(t: TestApp, text: string, values: unknown[] = []): Promise<void> {
  await t.ctx.db.transaction(async (tx) => {
    await tx.query('set local statement_timeout = 0');
    await tx.query(text, values);
  });
}
