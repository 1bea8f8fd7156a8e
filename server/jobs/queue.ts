import { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';

/**
 * pg-boss over the same Postgres: every background job lives here, so any number of `intake worker`
 * processes share the work. Queues are registered by the capabilities that own them.
 */
export async function startQueue(databaseUrl: string, log: Logger): Promise<PgBoss> {
  const boss = new PgBoss({ connectionString: databaseUrl, schema: 'pgboss', max: 4 });
  boss.on('error', (err) => log.error({ err }, 'queue error'));
  await boss.start();
  return boss;
}
