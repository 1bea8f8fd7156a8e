/**
 * The deliveries benchmark's baseline: the least a webhook sender does, as a child process.
 * Claims pending rows of `bench_deliveries` with `FOR UPDATE SKIP LOCKED` (as many as free slots), POSTs each
 * body signed (HMAC-SHA256) with undici over keep-alive at the same concurrency as Intake's, and records the
 * status — the same pool size, connections and TLS as Intake's worker. Exits once no row is pending.
 * Env: DATABASE_URL, RECEIVER_URL, CONCURRENCY, DATABASE_POOL_SIZE (NODE_EXTRA_CA_CERTS trusts the receiver).
 */
import { createHmac } from 'node:crypto';
import pg from 'pg';
import { Agent, request } from 'undici';

const concurrency = Number(process.env.CONCURRENCY ?? 50);
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
});
const agent = new Agent({ connections: concurrency, keepAliveTimeout: 30_000, allowH2: false });
const url = process.env.RECEIVER_URL!;
const key = Buffer.alloc(32, 7);

let inFlight = 0;
let done = false;

async function send(row: { id: string; body: string }) {
  const ts = String(Math.floor(Date.now() / 1000));
  const signature = `v1=${createHmac('sha256', key).update(`${ts}.${row.body}`).digest('hex')}`;
  let status: number | null;
  try {
    const res = await request(url, {
      method: 'POST',
      dispatcher: agent,
      headers: {
        'content-type': 'application/json',
        'x-service-timestamp': ts,
        'x-service-signature': signature,
        'webhook-id': row.id,
      },
      body: row.body,
      signal: AbortSignal.timeout(15_000),
    });
    status = res.statusCode;
    await res.body.text();
  } catch {
    status = null;
  }
  await pool.query(
    `update bench_deliveries set status = $2, http_status = $3, attempts = attempts + 1, updated_at = now() where id = $1`,
    [row.id, status !== null && status < 300 ? 'succeeded' : 'failed', status],
  );
}

async function pump(): Promise<void> {
  while (!done) {
    const free = concurrency - inFlight;
    if (free <= 0) return;
    const { rows } = await pool.query<{ id: string; body: string }>(
      `update bench_deliveries set status = 'sending' where id in (
         select id from bench_deliveries where status = 'pending' order by id limit $1 for update skip locked)
       returning id, body`,
      [free],
    );
    if (!rows.length) {
      if (inFlight === 0) done = true;
      return;
    }
    for (const row of rows) {
      inFlight += 1;
      void send(row).finally(() => {
        inFlight -= 1;
        void pump();
      });
    }
  }
}

await pump();
while (!done) {
  await new Promise((r) => setTimeout(r, 20));
  await pump();
}
await agent.close();
await pool.end();
