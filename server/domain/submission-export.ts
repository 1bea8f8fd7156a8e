import { Readable } from 'node:stream';
import { to as copyTo } from 'pg-copy-streams';
import QueryStream from 'pg-query-stream';
import type { z } from 'zod';
import type { ExportQuery } from '../../contract/submissions.ts';
import type { AppContext } from '../context.ts';
import type { Caller } from './caller.ts';
import { notFound } from './errors.ts';
import { EXPORT_LINK_SECONDS } from './file-links.ts';

export const META_COLUMNS = ['id', 'received_at', 'status', 'category', 'score'] as const;

export type ExportStream = { contentType: string; filename: string; stream: Readable };

/** Neutralises a cell a spreadsheet would execute (the same rule as the SQL function csv_safe). */
export function csvSafe(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * Streams a form's submissions straight from Postgres: CSV through `COPY … TO STDOUT` (Postgres does
 * the quoting; cells are neutralised by csv_safe() in SQL), JSON through a cursor of pre-rendered rows.
 * Either way only one chunk is in memory at a time, and the stream's consumer sets the pace. Destroying
 * the stream (a client that disconnects) closes the connection, which ends the query.
 */
export async function exportSubmissions(ctx: AppContext, caller: Caller, formId: string, q: z.infer<typeof ExportQuery>): Promise<ExportStream> {
  const client = await ctx.pool.connect();
  let released = false;
  const release = (destroy: boolean) => {
    if (released) return;
    released = true;
    client.release(destroy || undefined);
  };
  try {
    const form = await client.query('select id from forms where id = $1 and team_id = $2 and deleted_at is null', [formId, caller.teamId]);
    if (!form.rowCount) throw notFound('Form');
    const fields = (await client.query<{ name: string }>('select name from form_fields where form_id = $1 order by first_seen_at, ordinal, name', [formId])).rows.map((r) => r.name);
    const lit = (v: string) => client.escapeLiteral(v);
    const where = [`s.form_id = ${lit(formId)}`];
    if (q.since) where.push(`s.received_at > ${lit(q.since)}::timestamptz`);
    if (q.until) where.push(`s.received_at < ${lit(q.until)}::timestamptz`);
    const expires = Math.floor(Date.now() / 1000) + EXPORT_LINK_SECONDS;
    // Long-lived links to /d/{file}: each click mints a fresh 60-second storage URL (see file-links.ts).
    const fileLinks = `(select string_agg(${lit(`${ctx.config.baseUrl}/d/`)} || f.id || '?expires=${expires}&signature=' ||
        encode(hmac(convert_to(f.id || '.${expires}', 'UTF8'), decode(${lit(ctx.secretKey.toString('hex'))}, 'hex'), 'sha256'), 'hex'), ' ' order by f.created_at, f.id)
      from submission_files f where f.submission_id = s.id)`;
    const cell = (name: string) =>
      `case jsonb_typeof(s.payload -> ${lit(name)})
         when 'array' then (select string_agg(x, '; ') from jsonb_array_elements_text(s.payload -> ${lit(name)}) x)
         else s.payload ->> ${lit(name)} end`;
    const receivedAt = `to_char(s.received_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    const order = 'order by s.received_at, s.id';
    const stamp = new Date().toISOString().slice(0, 10);

    if (q.format === 'csv') {
      const header = [...META_COLUMNS, ...fields, '_files'].map((h) => csvCell(csvSafe(h))).join(',') + '\n'; // COPY ends rows with \n too
      const sql = `copy (select s.id, ${receivedAt}, s.status, s.category, s.ai_moderation ->> 'score',
          ${[...fields.map((f) => `csv_safe(${cell(f)})`), fileLinks].join(', ')}
        from submissions s where ${where.join(' and ')} ${order}) to stdout with (format csv)`;
      const source = client.query(copyTo(sql));
      return { contentType: 'text/csv; charset=utf-8', filename: `${formId}-${stamp}.csv`, stream: await guarded(withPrefix(header, source), release) };
    }

    const sql = `select json_build_object('id', s.id, 'received_at', ${receivedAt}, 'status', s.status, 'spam_reason', s.spam_reason,
        'category', s.category, 'ai_moderation', s.ai_moderation, 'payload', s.payload,
        'files', coalesce((select json_agg(json_build_object('id', f.id, 'field', f.field, 'filename', f.filename,
          'content_type', f.content_type, 'size', f.size_bytes, 'url', ${lit(`${ctx.config.baseUrl}/d/`)} || f.id || '?expires=${expires}&signature=' ||
          encode(hmac(convert_to(f.id || '.${expires}', 'UTF8'), decode(${lit(ctx.secretKey.toString('hex'))}, 'hex'), 'sha256'), 'hex')) order by f.created_at, f.id)
          from submission_files f where f.submission_id = s.id), '[]'::json))::text
      from submissions s where ${where.join(' and ')} ${order}`;
    const rows = client.query(new QueryStream(sql, [], { batchSize: 2000, rowMode: 'array' }));
    return { contentType: 'application/json', filename: `${formId}-${stamp}.json`, stream: await guarded(jsonArray(rows), release) };
  } catch (err) {
    release(false);
    throw err;
  }
}

async function* withPrefix(prefix: string, source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  yield Buffer.from(prefix);
  for await (const chunk of source) yield chunk;
}

/** `[row,row,…]` from single-column text rows, in chunks of many rows. */
async function* jsonArray(rows: AsyncIterable<string[]>): AsyncGenerator<string> {
  let buffer = '[';
  let first = true;
  for await (const [json] of rows) {
    buffer += (first ? '\n' : ',\n') + json;
    first = false;
    if (buffer.length >= 64 * 1024) {
      yield buffer;
      buffer = '';
    }
  }
  yield `${buffer}\n]\n`;
}

/**
 * The connection goes back to the pool when the export completes, or is closed if it was cut short.
 * The first chunk is awaited here, so a failing query is still an ordinary error response.
 */
async function guarded(source: AsyncGenerator<Buffer | string>, release: (destroy: boolean) => void): Promise<Readable> {
  const first = await source.next();
  return Readable.from(
    (async function* () {
      let completed = false;
      try {
        if (!first.done) yield first.value;
        yield* source;
        completed = true;
      } finally {
        release(!completed);
      }
    })(),
    { objectMode: false },
  );
}
