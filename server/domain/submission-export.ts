import { Readable, type Writable } from 'node:stream';
import pg from 'pg';
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

/** Neutralises a cell a spreadsheet would execute (the same rule as sqlCell and the SQL function csv_safe). */
export function csvSafe(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** First characters that make a spreadsheet execute a cell: = + - @ tab CR, as code points (for ascii()). */
const FORMULA_STARTS = ['=', '+', '-', '@', '\t', '\r'].map((c) => c.codePointAt(0)!);
const ARRAY_START = '['.codePointAt(0)!;

/**
 * One CSV cell of a payload field, in SQL: the value as text, arrays (checkboxes, multi-selects)
 * joined with "; ", neutralised like csvSafe. It runs for every field of every row, so it is written
 * for speed: one ascii() of the text decides (the text of a JSON array starts with "[", and only then
 * is the type looked up), so a plain value costs two key lookups. Wrapping each cell in csv_safe()
 * made the whole export query about 3× slower: that SQL function is not inlined for an argument with
 * a sub-select (it names its argument twice), and its regex costs more than ascii().
 */
function sqlCell(field: string): string {
  const text = `(s.payload ->> ${field})`;
  const joined = `(select string_agg(x, '; ') from jsonb_array_elements_text(s.payload -> ${field}) x)`;
  return `case ascii(${text})
      when ${ARRAY_START} then case when jsonb_typeof(s.payload -> ${field}) = 'array' then csv_safe(${joined}) else ${text} end
      ${FORMULA_STARTS.map((c) => `when ${c} then '''' || ${text}`).join(' ')}
      else ${text} end`;
}

/**
 * Files of a form up to which the export checks "has this submission files?" with a hashed set of the
 * form's file-owning submission ids (one probe per row) before running the per-row aggregate. Past it
 * the set may not fit the planner's hash memory, and an unhashed IN would be linear per row.
 */
const HASHED_FILE_CHECK_MAX = 50_000;

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * Streams a form's submissions straight from Postgres: CSV through `COPY … TO STDOUT` (Postgres does
 * the quoting; cells are neutralised in SQL, see sqlCell), JSON through a cursor of pre-rendered rows.
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
    const fileCount = (await client.query<{ n: number }>('select count(*)::int as n from submission_files where form_id = $1', [formId])).rows[0]!.n;
    const sql = exportSelect(q.format, {
      formId,
      fields,
      since: q.since,
      until: q.until,
      fileCount,
      baseUrl: ctx.config.baseUrl,
      secretKey: ctx.secretKey,
      expires: Math.floor(Date.now() / 1000) + EXPORT_LINK_SECONDS,
    });
    const stamp = new Date().toISOString().slice(0, 10);

    if (q.format === 'csv') {
      const header = [...META_COLUMNS, ...fields, '_files'].map((h) => csvCell(csvSafe(h))).join(',') + '\n'; // COPY ends rows with \n too
      const source = quiet(client.query(copyTo(`copy (${sql}) to stdout with (format csv)`)));
      return { contentType: 'text/csv; charset=utf-8', filename: `${formId}-${stamp}.csv`, stream: await guarded(withPrefix(header, source), release) };
    }
    const rows = quiet(client.query(new QueryStream(sql, [], { batchSize: 2000, rowMode: 'array' })));
    return { contentType: 'application/json', filename: `${formId}-${stamp}.json`, stream: await guarded(jsonArray(rows), release) };
  } catch (err) {
    release(false);
    throw err;
  }
}

export type ExportSelectOptions = {
  formId: string;
  /** The form's known fields, in column order. */
  fields: string[];
  since?: string;
  until?: string;
  /** How many files the form has (picks the query's shape, see HASHED_FILE_CHECK_MAX). */
  fileCount: number;
  baseUrl: string;
  secretKey: Buffer;
  /** Unix seconds until which the /d/ file links work. */
  expires: number;
};

/**
 * The export's SELECT, oldest first. CSV: one column per meta field, per known field and `_files`, for
 * `COPY (…) TO STDOUT WITH CSV`; JSON: one pre-rendered object per row. Exported for the benchmark,
 * which EXPLAINs it. Everything is inlined as literals: COPY takes no parameters.
 */
export function exportSelect(format: 'csv' | 'json', o: ExportSelectOptions): string {
  const lit = (v: string) => pg.escapeLiteral(v);
  const where = [`s.form_id = ${lit(o.formId)}`];
  if (o.since) where.push(`s.received_at > ${lit(o.since)}::timestamptz`);
  if (o.until) where.push(`s.received_at < ${lit(o.until)}::timestamptz`);
  // Most submissions have no files: a per-row aggregate over submission_files (an index descent, a
  // sort, an aggregate) cost more than everything else in a row. When the form's file-owning ids fit a
  // hashed set, rows without files are answered by one hash probe. The count only picks the query's
  // shape; either shape is exact, whatever changes in between.
  const withFiles = (perRow: string) =>
    o.fileCount <= HASHED_FILE_CHECK_MAX
      ? `case when s.id in (select fs.submission_id from submission_files fs where fs.form_id = ${lit(o.formId)}) then ${perRow} end`
      : perRow;
  // Long-lived links to /d/{file}: each click mints a fresh 60-second storage URL (see file-links.ts).
  const fileUrl = `${lit(`${o.baseUrl}/d/`)} || f.id || '?expires=${o.expires}&signature=' ||
    encode(hmac(convert_to(f.id || '.${o.expires}', 'UTF8'), decode(${lit(o.secretKey.toString('hex'))}, 'hex'), 'sha256'), 'hex')`;
  const receivedAt = `to_char(s.received_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const from = `from submissions s where ${where.join(' and ')} order by s.received_at, s.id`;

  if (format === 'csv') {
    const fileLinks = withFiles(`(select string_agg(${fileUrl}, ' ' order by f.created_at, f.id) from submission_files f where f.submission_id = s.id)`);
    return `select s.id, ${receivedAt}, s.status, s.category, s.ai_moderation ->> 'score',
        ${[...o.fields.map((name) => sqlCell(lit(name))), fileLinks].join(', ')}
      ${from}`;
  }
  const files = withFiles(`(select json_agg(json_build_object('id', f.id, 'field', f.field, 'filename', f.filename,
      'content_type', f.content_type, 'size', f.size_bytes, 'url', ${fileUrl}) order by f.created_at, f.id)
    from submission_files f where f.submission_id = s.id)`);
  return `select json_build_object('id', s.id, 'received_at', ${receivedAt}, 'status', s.status, 'spam_reason', s.spam_reason,
      'category', s.category, 'ai_moderation', s.ai_moderation, 'payload', s.payload, 'files', coalesce(${files}, '[]'::json))::text
    ${from}`;
}

/** The header with the query's first rows: the query has started (or failed) before anything is sent. */
async function* withPrefix(prefix: string, source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let started = false;
  for await (const chunk of source) {
    yield started ? chunk : Buffer.concat([Buffer.from(prefix), chunk]);
    started = true;
  }
  if (!started) yield Buffer.from(prefix);
}

/**
 * Closing the connection of an export cut short errors its query stream; when that happens before the
 * stream is read (a client gone before the first byte), nothing listens for the error and it would
 * crash the process. Readers still get every error through their iterator.
 */
function quiet<T extends NodeJS.EventEmitter>(stream: T): T {
  stream.on('error', () => {});
  return stream;
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
 * The export as a Readable that owns its connection: it goes back to the pool once the result has been
 * read to the end, and is closed — which ends the query — if the stream is destroyed before that (a
 * client that disconnects, an error). The first chunk is awaited here, so a failing query is still an
 * ordinary error response.
 *
 * Release hangs on the stream's destroy, not on a generator's `finally`: a generator that was never
 * started (the stream destroyed before its first read) would never run its `finally` and would keep
 * the connection checked out for good.
 */
async function guarded(source: AsyncGenerator<Buffer | string>, release: (destroy: boolean) => void): Promise<Readable> {
  const first = await source.next();
  let pending: Buffer | string | null = first.done ? null : first.value;
  let exhausted = Boolean(first.done);
  const stream = new Readable({
    read() {
      if (pending !== null) {
        const chunk = pending;
        pending = null;
        this.push(chunk);
        return;
      }
      if (exhausted) {
        this.push(null);
        return;
      }
      source.next().then(
        (next) => {
          if (next.done) {
            exhausted = true;
            this.push(null);
          } else this.push(next.value);
        },
        (err: Error) => this.destroy(err),
      );
    },
    destroy(err, callback) {
      release(!exhausted);
      // Closes the COPY or cursor stream if it is still open (after the connection, so a pending read settles).
      source.return(undefined).catch(() => {});
      callback(err);
    },
  });
  return protectedFromClosedDestinations(stream);
}

/**
 * A stream piped into a destination that is already closed (the HTTP client left while the export was
 * being prepared) would wait forever for a 'drain' that never comes, and nobody would ever destroy it:
 * destroy it at once instead, and whenever its destination closes before the export has ended.
 */
function protectedFromClosedDestinations(stream: Readable): Readable {
  const pipe = stream.pipe.bind(stream);
  stream.pipe = <T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T => {
    const dest = destination as T & Partial<Pick<Writable, 'destroyed' | 'writableEnded'>>;
    if (dest.destroyed || dest.writableEnded) {
      stream.destroy();
      return destination;
    }
    destination.once('close', () => {
      if (!stream.readableEnded) stream.destroy();
    });
    return pipe(destination, options);
  };
  return stream;
}
