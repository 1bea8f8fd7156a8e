/**
 * The ingest baseline (issue #3): a bare express endpoint that parses the urlencoded post and, in one
 * transaction through `pg`, inserts a ~1 KB JSONB row plus an outbox row, then answers 201 JSON.
 * Run by bench/ingest.ts as a child process: PORT, DATABASE_URL, POOL_SIZE. Tables: see BASELINE_SCHEMA.
 */
import { randomUUID } from 'node:crypto';
import express from 'express';
import pg from 'pg';

export const BASELINE_SCHEMA = `
  create schema if not exists bench_baseline;
  create table if not exists bench_baseline.submissions (
    id text primary key,
    data jsonb not null,
    created_at timestamptz not null default now()
  );
  create table if not exists bench_baseline.outbox (
    id bigserial primary key,
    topic text not null,
    payload jsonb not null,
    created_at timestamptz not null default now()
  );`;

function main() {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) });
  pool.on('error', () => {});
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => void res.json({ ok: true }));
  app.post('/submit', express.urlencoded({ extended: false, limit: '1mb' }), async (req, res, next) => {
    const id = randomUUID();
    // What a submission row carries: the fields plus request metadata (about 1 KB of JSON in all).
    const data = {
      payload: req.body,
      metadata: {
        ip: req.ip,
        user_agent: req.headers['user-agent'] ?? null,
        referrer: req.headers.referer ?? null,
        origin: req.headers.origin ?? null,
        content_type: req.headers['content-type'] ?? null,
        received_at: new Date().toISOString(),
      },
    };
    let client: pg.PoolClient | undefined;
    try {
      client = await pool.connect();
      await client.query('begin');
      await client.query('insert into bench_baseline.submissions (id, data) values ($1, $2)', [
        id,
        JSON.stringify(data),
      ]);
      await client.query('insert into bench_baseline.outbox (topic, payload) values ($1, $2)', [
        'submission.created',
        JSON.stringify({ submission_id: id }),
      ]);
      await client.query('commit');
      res.status(201).json({ ok: true, id });
    } catch (err) {
      await client?.query('rollback').catch(() => {});
      next(err);
    } finally {
      client?.release();
    }
  });
  const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
  const stop = () => {
    server.close(() => void pool.end().then(() => process.exit(0)));
    server.closeAllConnections();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (import.meta.main) main();
