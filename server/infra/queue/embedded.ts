import { createRequire } from 'node:module';
import type { PgBoss } from 'pg-boss';
import type { JobDefinition } from './types.ts';

/**
 * pg-boss's insert of one job, to be embedded as a CTE in a statement whose `$1` is `value`: the JSON text of
 * an array of jobs (verified at start), so the jobs of several posts can be inserted by one statement.
 */
export type EmbeddedInsert = { text: string; value: string };

export const PG_BOSS_VERSION: string = (createRequire(import.meta.url)('pg-boss/package.json') as { version: string })
  .version;

type Statement = { text: string; values: unknown[] };

/** Plans `text` embedded as a CTE with `value` as its `$1`, against the live database (queries/queue.ts). */
export type PlanEmbedded = (text: string, value: string) => Promise<unknown>;

function isJsonArrayOfOne(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) && parsed.length === 1;
  } catch {
    return false;
  }
}

/** What `boss.send` executes for one job, captured instead of run. */
async function captureSend(boss: PgBoss, name: string, payload: object): Promise<Statement[]> {
  const captured: Statement[] = [];
  const capture = {
    executeSql: async (text: string, values: unknown[] = []) => {
      captured.push({ text, values });
      return { rows: [{ id: null }] };
    },
  };
  await boss.send(name, payload, { db: capture });
  return captured;
}

/**
 * The one-statement ingest embeds pg-boss's private INSERT, checked at start against the live database, so a
 * pg-boss upgrade that changes it stops the process with a clear message rather than failing every post.
 */
export async function verifyEmbedding(
  plan: PlanEmbedded,
  boss: PgBoss,
  job: JobDefinition<unknown>,
  sample: unknown,
): Promise<string> {
  const fail = (why: string) =>
    new Error(
      `pg-boss ${PG_BOSS_VERSION}: ${why}. The one-statement ingest (server/infra/db/queries/submission-inserts.ts) embeds pg-boss's job ` +
        'insert and was built against pg-boss 12.35.0; pin that version or adapt the ingest statement.',
    );
  let captured: Statement[];
  try {
    captured = await captureSend(boss, job.name, job.payload.parse(sample) as object);
  } catch (err) {
    throw fail(`send failed while being captured (${(err as Error).message})`);
  }
  if (captured.length !== 1) throw fail(`send issued ${captured.length} statements instead of 1`);
  const [{ text, values }] = captured as [Statement];
  const placeholders = new Set(text.match(/\$\d+/g) ?? []);
  if (values.length !== 1 || placeholders.size !== 1 || !placeholders.has('$1')) {
    throw fail(
      `send's statement takes ${values.length} parameter(s) (${[...placeholders].join(', ') || 'none'}) instead of just $1`,
    );
  }
  // Batched ingest merges the jobs of several posts into one array: $1 must be the JSON text of an array.
  if (typeof values[0] !== 'string' || !isJsonArrayOfOne(values[0]))
    throw fail("send's parameter is no longer a JSON array of jobs");
  try {
    await plan(text, values[0]);
  } catch (err) {
    throw fail(`its insert no longer plans as a CTE (${(err as Error).message})`);
  }
  return text;
}

/** Verifies the embeddable jobs and returns `Queue.embeddedInsert`, refusing a statement that differs from the verified one. */
export async function embeddedInserts(
  plan: PlanEmbedded,
  boss: PgBoss,
  embeddable: Array<{ job: JobDefinition<unknown>; sample: unknown }>,
): Promise<<T>(job: JobDefinition<T>, data: T) => Promise<EmbeddedInsert>> {
  const verified = new Map<string, string>();
  for (const { job, sample } of embeddable) verified.set(job.name, await verifyEmbedding(plan, boss, job, sample));
  return async (job, data) => {
    const text = verified.get(job.name);
    if (!text) throw new Error(`${job.name} is not verified for embedding (list it in the queue's embeddable jobs)`);
    const [captured] = await captureSend(boss, job.name, job.payload.parse(data) as object);
    if (captured?.text !== text)
      throw new Error(`pg-boss ${PG_BOSS_VERSION} changed its ${job.name} insert since start`);
    return { text, value: captured.values[0] as string };
  };
}
