/**
 * The soak ("Load with an audit"): N posts to `POST /f/{form}` from C concurrent connections on a
 * real `intake serve --no-worker`, while a real `intake worker` processes them and delivers each to a real
 * HTTPS receiver; midway the worker is SIGKILLed and a new one started. Once the queues are empty the run is
 * audited: accepted (201) = stored = delivered (one `succeeded` delivery row per submission, received signed),
 * as sets of submission ids, no duplicate, no 5xx. Used by bench/soak.ts (100,000 posts) and
 * test/platform/soak.test.ts (5,000 in `make test`).
 *
 * Client addresses: the per-address limits stay at their defaults. The posts come from many visitors
 * behind a trusted proxy (`INTAKE_TRUST_PROXY=loopback`, `X-Forwarded-For` as a load balancer sets it),
 * each posting `postsPerClient` times (default 10, under the 20 a minute that would mark posts
 * `rate_limited`), so the limiter counts every post and never trips — as for a contact form's real traffic.
 *
 * The killed worker's claims: it dies holding jobs (a processing job, attempts in flight); pg-boss gives them
 * to another worker once their claim expires (3 minutes for attempts, 5 for processing) and its
 * supervisor's next pass (≤ 1 minute) sees it. `claims: 'expire'` waits for that in real time (the bench);
 * `claims: 'lapse'` (the test, which has 90 s) shortens those jobs' expiry to one second in pg-boss's own
 * table and runs pg-boss's supervision pass, as test/webhooks/deliveries.test.ts does — the same recovery path,
 * without the wait.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino, type Logger } from 'pino';
import { Pool } from 'undici';
import { loadConfig } from '../../server/config.ts';
import type { Caller } from '../../server/domain/accounts/caller.ts';
import { createForm, publishForm } from '../../server/domain/forms/forms.ts';
import { createTeam } from '../../server/domain/accounts/teams.ts';
import { addMember } from '../../server/domain/accounts/users.ts';
import { createWebhook } from '../../server/domain/webhooks/webhooks.ts';
import { deliverWebhook, processSubmission } from '../../server/infra/queue/definitions.ts';
import { boot, type Runtime } from '../../server/main.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../test/support/https-receiver.ts';
import { serverProcessEnv } from '../../test/support/tls.ts';
import { BROWSER_HEADERS, contactFormBodies } from './contact-form.ts';
import { freePort, startChild, waitForHttp, type Child } from './processes.ts';
import { auditSoak, ReceiptTally, type SoakAudit, type StoredFacts } from './soak-audit.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const INTAKE = path.join(ROOT, 'cli', 'intake');
const QUEUES = [processSubmission.name, deliverWebhook.name];

export type SoakOptions = {
  posts: number;
  /** Connections posting at once (each waits for its answer before the next post). */
  concurrency: number;
  postsPerClient: number;
  /** SIGKILL the worker once this many posts have been sent (default: half). */
  restartAfter?: number;
  claims: 'expire' | 'lapse';
  /** Time the queues have to empty once the last post is answered. */
  drainTimeoutMs: number;
  databaseUrl: string;
  storageUrl: string;
  bucket: string;
  dataDir: string;
  /** Extra environment for the `intake` child processes (LOG_LEVEL, …). */
  env?: Record<string, string>;
  /** Sees each child process as it starts (the tests keep their logs for the secret scan). */
  onProcess?: (name: string, proc: ChildProcess, env: NodeJS.ProcessEnv) => void;
  /** Logger of the in-process runtime that sets up the account and reads the audit (default silent). */
  appLog?: Logger;
  log: (msg: string) => void;
  echo?: boolean;
};

export type SoakReport = {
  benchmark: 'soak';
  at: string;
  posts: number;
  concurrency: number;
  postsPerClient: number;
  clients: number;
  claims: SoakOptions['claims'];
  /** Settings given to the intake processes beyond the soak's own. */
  settings: Record<string, string>;
  load: {
    seconds: number;
    /** Answered posts per second over the load (2xx and not). */
    postsPerSecond: number;
    latencyMs: { p50: number; p90: number; p99: number; max: number };
    statuses: Record<string, number>;
    fiveXx: number;
    /** Posts with no HTTP answer (socket errors, timeouts). */
    errors: number;
    errorSamples: string[];
  };
  restart: {
    afterPosts: number;
    killedPid: number;
    exit: string;
    /** Jobs the killed worker held when it died. */
    heldAtKill: { processing: number; deliveries: number };
    /** From the SIGKILL to the receiver getting a delivery from the new worker (null: none within 120 s). */
    deliveriesResumedMs: number | null;
  };
  /** From the last answer to empty queues (everything processed and delivered). */
  drainSeconds: number;
  drained: boolean;
  /** From the first soak post to the last delivery received. */
  deliveredWithinSeconds: number;
  receipts: number;
  audit: SoakAudit;
  wallSeconds: number;
  machine: { cpus: number; loadavg: number[] };
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function quantile(sorted: Float64Array, q: number): number {
  if (!sorted.length) return NaN;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10;
}

/** The address of simulated visitor `n` (10.0.0.1 on), one per `postsPerClient` posts. */
function clientAddress(n: number): string {
  const v = n + 1;
  return `10.${(v >> 16) & 255}.${(v >> 8) & 255}.${v & 255}`;
}

/** What the audit must find; each line names an invariant the run broke. Empty: the soak passed. */
export function soakProblems(r: SoakReport): string[] {
  const problems: string[] = [];
  const a = r.audit;
  if (!r.drained) problems.push(`the queues did not empty within the drain timeout`);
  if (r.load.fiveXx) problems.push(`${r.load.fiveXx} posts answered 5xx`);
  if (a.accepted !== r.posts)
    problems.push(
      `${r.posts - a.accepted} of ${r.posts} posts not accepted (statuses ${JSON.stringify(r.load.statuses)}, ${r.load.errors} errors)`,
    );
  for (const [what, n] of Object.entries(a.lost))
    if (n) problems.push(`${n} ${what} (e.g. ${a.lostSamples[what as keyof SoakAudit['lost']].join(', ')})`);
  if (a.accepted !== a.stored || a.stored !== a.delivered)
    problems.push(`accepted ${a.accepted}, stored ${a.stored}, delivered ${a.delivered}`);
  if (a.duplicates)
    problems.push(`${a.duplicates} submissions delivered more than once: ${a.duplicateSamples.join('; ')}`);
  if (a.unexplainedRedeliveries.length)
    problems.push(
      `deliveries received twice that the killed worker did not hold: ${a.unexplainedRedeliveries.join(', ')}`,
    );
  if (a.strayReceipts) problems.push(`${a.strayReceipts} receipts of no accepted submission's delivery`);
  if (a.badSignatures) problems.push(`${a.badSignatures} receipts failed signature verification`);
  return problems;
}

/** Runs the soak and returns its report; everything it started is stopped before it returns or throws. */
export async function runSoak(opts: SoakOptions): Promise<SoakReport> {
  const wallStart = Date.now();
  const { log } = opts;
  const restartAfter = opts.restartAfter ?? Math.floor(opts.posts / 2);
  const stops: Array<() => Promise<unknown>> = [];
  try {
    const receiver: HttpsReceiver = await startHttpsReceiver();
    stops.push(() => receiver.close());
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      DATABASE_URL: opts.databaseUrl,
      STORAGE_URL: opts.storageUrl,
      STORAGE_BUCKET: opts.bucket,
      INTAKE_DATA_DIR: opts.dataDir,
      INTAKE_SECRET_KEY: `soak-${randomBytes(16).toString('hex')}`,
      INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true',
      INTAKE_TRUST_PROXY: 'loopback',
      INTAKE_VERIFY_NOTIFICATION_EMAILS: 'false',
      LOG_LEVEL: 'warn',
      ...serverProcessEnv(),
      ...opts.env,
    };

    // The account through the domain functions, in a runtime of our own that also reads the audit back.
    const rt: Runtime = await boot(loadConfig({ ...env, DATABASE_POOL_SIZE: '4' }), {
      http: false,
      worker: false,
      services: true,
      log: opts.appLog ?? pino({ level: 'silent' }),
    });
    stops.push(() => rt.close());
    const db = rt.ctx.db;
    const team = await createTeam(rt.ctx, { name: 'Soak team', plan: 'scale' });
    const { user } = await addMember(rt.ctx, {
      email: `owner-${randomBytes(4).toString('hex')}@soak.example`,
      name: 'Soak Owner',
      teamId: team.id,
      role: 'owner',
    });
    const caller: Caller = { userId: user.id, teamId: team.id, role: 'owner', tokenId: 'soak', abilities: [] };
    const hooked = async (name: string, hookPath: string) => {
      const form = await createForm(rt.ctx, caller, { name, notification_emails: [] });
      await publishForm(rt.ctx, caller, form.id);
      const hook = await createWebhook(rt.ctx, caller, form.id, {
        label: 'Soak receiver',
        url: `${receiver.url}${hookPath}`,
        provider: 'webhook',
        config: {},
        events: ['submission.created'],
        active: true,
      });
      return { formId: form.id, webhookId: hook.data.id, secret: hook.secret };
    };
    const soak = await hooked('Soak contact form', '/soak');
    // Canaries go to a form of their own, so the audited form holds exactly the soak's posts.
    const canaryForm = await hooked('Soak canaries', '/canary');

    const tally = new ReceiptTally(soak.secret);
    let canariesReceived = 0;
    const drainReceiver = () => {
      const got = receiver.requests.splice(0);
      tally.add(got.filter((r) => r.path === '/soak'));
      canariesReceived += got.filter((r) => r.path === '/canary').length;
    };
    const draining = setInterval(drainReceiver, 200);
    stops.push(async () => clearInterval(draining));

    const start = (name: string, args: string[], extra: NodeJS.ProcessEnv = {}): Child => {
      const childEnv = { ...env, ...extra };
      return startChild(name, INTAKE, args, {
        env: childEnv,
        echo: opts.echo,
        onSpawn: (proc) => opts.onProcess?.(name, proc, childEnv),
      });
    };
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const server = start('serve', ['serve', '--no-worker'], {
      PORT: String(port),
      HOST: '127.0.0.1',
      INTAKE_BASE_URL: origin,
    });
    stops.push(() => server.stop());
    await waitForHttp(server, `${origin}/healthz`);

    const pool = new Pool(origin, { connections: opts.concurrency, headersTimeout: 30_000, bodyTimeout: 30_000 });
    stops.push(() => pool.close());

    /** Posts a canary and waits for its delivery: the worker that is running is taking jobs. */
    let canaries = 0;
    const canary = async (worker: Child) => {
      const want = ++canaries;
      const res = await pool.request({
        path: `/f/${canaryForm.formId}`,
        method: 'POST',
        headers: { ...BROWSER_HEADERS, 'x-forwarded-for': '192.0.2.1' },
        body: `message=canary+${want}`,
      });
      const text = await res.body.text();
      if (res.statusCode !== 201) throw new Error(`canary post answered ${res.statusCode}: ${text}`);
      const canaryId = (JSON.parse(text) as { id: string }).id;
      const deadline = Date.now() + 120_000;
      while (canariesReceived < want) {
        if (!worker.alive()) throw new Error(`${worker.name} exited (${await worker.exited}):\n${worker.output()}`);
        if (Date.now() > deadline) {
          const { rows } = await db.query(
            `select s.status, d.status as delivery, d.attempts, d.error, d.http_status, (select json_agg(json_build_object('name', j.name, 'state', j.state))
               from pgboss.job j where j.data->>'submissionId' = s.id or j.data->>'deliveryId' = d.id) as jobs
               from submissions s left join deliveries d on d.submission_id = s.id where s.id = $1`,
            [canaryId],
          );
          throw new Error(
            `${worker.name} did not deliver a canary within 120 s (${JSON.stringify(rows)}):\n${worker.output()}`,
          );
        }
        await sleep(20);
      }
    };
    let workers = 0;
    const startWorker = () => {
      const w = start(`worker ${++workers}`, ['worker']);
      stops.push(() => w.stop());
      return w;
    };
    let worker = startWorker();
    await canary(worker);
    log(`serve and worker up; posting ${opts.posts} from ${opts.concurrency} connections`);

    // The restart: SIGKILL, read what the dead worker held, start the next one.
    const heldAtKill: string[] = [];
    const restart = async (): Promise<SoakReport['restart']> => {
      const killed = worker;
      const killedAt = Date.now();
      process.kill(killed.pid, 'SIGKILL');
      const exit = await killed.exited;
      // No other process consumes jobs now: every active job of these queues is the dead worker's.
      const { rows: held } = await db.query<{
        id: string;
        name: string;
        key: string;
        expire_seconds: number;
        retry_delay: number;
      }>(
        `select id::text, name, coalesce(data->>'deliveryId', data->>'submissionId') as key, expire_seconds, retry_delay
           from pgboss.job where name = any($1::text[]) and state = 'active'`,
        [QUEUES],
      );
      if (opts.claims === 'lapse' && held.length) await lapseClaims(rt, held);
      worker = startWorker();
      const heldDeliveries = held.filter((h) => h.name === deliverWebhook.name);
      heldAtKill.push(...heldDeliveries.map((h) => h.key));
      // Deliveries resume: the receiver gets a request from the new worker.
      drainReceiver();
      const before = tally.receipts;
      const deadline = Date.now() + 120_000;
      while (tally.receipts === before && Date.now() < deadline && worker.alive()) await sleep(20);
      const info = {
        afterPosts: restartAfter,
        killedPid: killed.pid,
        exit,
        heldAtKill: { processing: held.length - heldDeliveries.length, deliveries: heldDeliveries.length },
        deliveriesResumedMs: tally.receipts > before ? Date.now() - killedAt : null,
      };
      log(
        `worker ${killed.pid} killed (${exit}) holding ${JSON.stringify(info.heldAtKill)}; deliveries resumed ${info.deliveriesResumedMs} ms after the kill`,
      );
      return info;
    };

    // The load: each connection posts, waits for the answer, posts again, until N posts are sent.
    const bodies = contactFormBodies(200);
    const latencies = new Float64Array(opts.posts);
    const accepted = new Set<string>();
    const statuses: Record<string, number> = {};
    const errorSamples: string[] = [];
    let errors = 0;
    let next = 0;
    let answered = 0;
    let restarting: Promise<SoakReport['restart']> | null = null;
    const loadStart = performance.now();
    const loadStartWall = Date.now();
    const progress = setInterval(() => {
      log(
        `  ${Math.round((performance.now() - loadStart) / 1000)} s: ${answered} answered, ${accepted.size} accepted, ${tally.bySubmission.size} delivered`,
      );
    }, 5_000);
    stops.push(async () => clearInterval(progress));
    const connection = async () => {
      for (;;) {
        const seq = next++;
        if (seq >= opts.posts) return;
        if (seq === restartAfter) restarting = restart();
        const body = `${bodies[seq % bodies.length]}&ref=soak-${seq}`;
        const started = performance.now();
        try {
          const res = await pool.request({
            path: `/f/${soak.formId}`,
            method: 'POST',
            headers: { ...BROWSER_HEADERS, 'x-forwarded-for': clientAddress(Math.floor(seq / opts.postsPerClient)) },
            body,
          });
          const text = await res.body.text();
          latencies[seq] = performance.now() - started;
          statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
          if (res.statusCode === 201) accepted.add((JSON.parse(text) as { id: string }).id);
          else if (errorSamples.length < 20) errorSamples.push(`post ${seq}: ${res.statusCode} ${text.slice(0, 200)}`);
        } catch (err) {
          latencies[seq] = performance.now() - started;
          errors += 1;
          if (errorSamples.length < 20) errorSamples.push(`post ${seq}: ${(err as Error).message}`);
        }
        answered += 1;
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency }, connection));
    const loadSeconds = (performance.now() - loadStart) / 1000;
    const loadEnd = Date.now();
    clearInterval(progress);
    if (!restarting)
      throw new Error(`the worker restart was never triggered (restartAfter ${restartAfter} of ${opts.posts} posts)`);
    const restartInfo = await (restarting as Promise<SoakReport['restart']>);
    log(`load done: ${opts.posts} posts in ${loadSeconds.toFixed(1)} s; waiting for the queues to empty`);

    // Drained: nothing received unprocessed, no attempt pending or failed-and-retrying, no job left in the two queues.
    const deadline = Date.now() + opts.drainTimeoutMs;
    let drained = false;
    let lastShown = Date.now();
    for (;;) {
      const { rows } = await db.query<{ received: number; unsettled: number; queued: number }>(
        `select (select count(*) from submissions where form_id = $1 and status = 'received')::int as received,
                (select count(*) from deliveries where webhook_id = $2 and status in ('pending', 'failed'))::int as unsettled,
                (select count(*) from pgboss.job where name = any($3::text[]) and state < 'completed')::int as queued`,
        [soak.formId, soak.webhookId, QUEUES],
      );
      const s = rows[0]!;
      if (!s.received && !s.unsettled && !s.queued) {
        drained = true;
        break;
      }
      if (Date.now() > deadline) {
        log(`not drained after ${opts.drainTimeoutMs / 1000} s: ${JSON.stringify(s)}`);
        break;
      }
      if (Date.now() - lastShown >= 5_000) {
        lastShown = Date.now();
        drainReceiver();
        log(
          `  draining: ${s.received} submissions not processed, ${s.unsettled} deliveries not settled, ${s.queued} jobs queued; ${tally.bySubmission.size} delivered`,
        );
      }
      if (!worker.alive()) throw new Error(`${worker.name} exited (${await worker.exited}):\n${worker.output()}`);
      await sleep(500);
    }
    const drainSeconds = (Date.now() - loadEnd) / 1000;
    // A receipt still on the wire when the last outcome committed.
    await sleep(500);
    drainReceiver();

    const { rows: subs } = await db.query<{ id: string; status: string }>(
      'select id, status from submissions where form_id = $1',
      [soak.formId],
    );
    const { rows: dels } = await db.query<{
      id: string;
      submission_id: string | null;
      status: string;
      attempts: number;
    }>('select id, submission_id, status, attempts from deliveries where webhook_id = $1', [soak.webhookId]);
    const stored: StoredFacts = {
      submissions: new Map(subs.map((s) => [s.id, s.status])),
      deliveries: dels.map((d) => ({
        id: d.id,
        submissionId: d.submission_id,
        status: d.status,
        attempts: d.attempts,
      })),
    };
    const audit = auditSoak(accepted, stored, tally, new Set(heldAtKill));

    const sorted = latencies.slice().sort();
    const fiveXx = Object.entries(statuses)
      .filter(([code]) => code.startsWith('5'))
      .reduce((n, [, c]) => n + c, 0);
    return {
      benchmark: 'soak',
      at: new Date(wallStart).toISOString(),
      posts: opts.posts,
      concurrency: opts.concurrency,
      postsPerClient: opts.postsPerClient,
      clients: Math.ceil(opts.posts / opts.postsPerClient),
      claims: opts.claims,
      settings: opts.env ?? {},
      load: {
        seconds: Math.round(loadSeconds * 100) / 100,
        postsPerSecond: Math.round(opts.posts / loadSeconds),
        latencyMs: {
          p50: quantile(sorted, 0.5),
          p90: quantile(sorted, 0.9),
          p99: quantile(sorted, 0.99),
          max: quantile(sorted, 1),
        },
        statuses,
        fiveXx,
        errors,
        errorSamples,
      },
      restart: restartInfo,
      drainSeconds: Math.round(drainSeconds * 10) / 10,
      drained,
      deliveredWithinSeconds: tally.lastAt ? Math.round((tally.lastAt - loadStartWall) / 100) / 10 : 0,
      receipts: tally.receipts,
      audit,
      wallSeconds: Math.round((Date.now() - wallStart) / 100) / 10,
      machine: { cpus: os.cpus().length, loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100) },
    };
  } finally {
    for (const stop of stops.reverse()) {
      await stop().catch((err: unknown) => log(`soak: stopping failed: ${(err as Error).message}`));
    }
  }
}

/**
 * pg-boss's recovery of a dead worker's claims, made quick: their expiry is set to one second and, once it
 * has passed, pg-boss's supervision pass (the one the workers run every minute) puts them back for a retry,
 * at once. A queue is supervised at most once a monitor interval and the dead worker may just have done so:
 * that mark is cleared first, as test/webhooks/deliveries.test.ts does. Then the jobs get their own expiry
 * and retry delay back, so the next worker's claims on them are the ordinary ones.
 */
async function lapseClaims(
  rt: Runtime,
  held: Array<{ id: string; expire_seconds: number; retry_delay: number }>,
): Promise<void> {
  const ids = held.map((h) => h.id);
  await rt.ctx.db.query(
    `update pgboss.job set expire_seconds = 1, retry_delay = 0 where id = any($1::uuid[]) and state = 'active'`,
    [ids],
  );
  await sleep(1_100);
  const deadline = Date.now() + 30_000;
  for (;;) {
    for (const queue of QUEUES) {
      await rt.ctx.db.query('update pgboss.queue set monitor_claim_on = null, monitor_on = null where name = $1', [
        queue,
      ]);
      await rt.ctx.queue.boss.supervise(queue);
    }
    const { rowCount } = await rt.ctx.db.query(
      `select 1 from pgboss.job where id = any($1::uuid[]) and state = 'active'`,
      [ids],
    );
    if (!rowCount) break;
    if (Date.now() > deadline)
      throw new Error(`${rowCount} claims of the killed worker still active 30 s after they lapsed`);
    await sleep(200);
  }
  await rt.ctx.db.query(
    `update pgboss.job j set expire_seconds = h.expire_seconds, retry_delay = h.retry_delay
       from jsonb_to_recordset($1::jsonb) as h(id uuid, expire_seconds int, retry_delay int) where j.id = h.id`,
    [JSON.stringify(held.map(({ id, expire_seconds, retry_delay }) => ({ id, expire_seconds, retry_delay })))],
  );
}
