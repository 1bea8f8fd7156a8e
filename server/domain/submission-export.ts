import { Readable, type Writable } from 'node:stream';
import type { z } from 'zod';
import type { ExportQuery } from '../../contract/submissions.ts';
import type { AppContext } from '../context.ts';
import { isLiveForm } from '../db/queries/forms.ts';
import { copyCsv, exportSelect, exportShape, forgetLinkKey, streamRows, useLinkKey } from '../db/queries/exports.ts';
import type { Caller } from './caller.ts';
import { notFound } from './errors.ts';
import { exportColumns } from './field-schema.ts';
import { EXPORT_LINK_SECONDS, exportKey } from './file-links.ts';
import { storedSettings } from './form-rules.ts';
import { searchText } from './search.ts';

export const META_COLUMNS = ['id', 'received_at', 'status', 'category', 'score'] as const;

export type ExportStream = { contentType: string; filename: string; stream: Readable };

/** Neutralises a cell a spreadsheet would execute (the same rule as sqlCell and the SQL function csv_safe). */
export function csvSafe(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

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
  const session = await ctx.db.connect();
  // The key leaves with the connection: cleared before it goes back to the pool, or the connection closed.
  const release = (destroy: boolean) => {
    if (destroy) return session.release(true);
    forgetLinkKey(session).then(
      () => session.release(),
      () => session.release(true),
    );
  };
  try {
    if (!(await isLiveForm(session, caller.teamId, formId))) throw notFound('Form');
    const shape = await exportShape(session, formId);
    const { overflow, fileCount } = shape;
    const columns = exportColumns(storedSettings(shape.settings).fields, shape.fields);
    const fields = columns.names;
    const expires = Math.floor(Date.now() / 1000) + EXPORT_LINK_SECONDS;
    // Only the key scoped to this form and expiry reaches Postgres (see file-links.ts).
    await useLinkKey(session, exportKey(ctx.keys.linkSigning, { teamId: caller.teamId, formId, expires }));
    const sql = exportSelect(q.format, { formId, fields, overflow, since: q.since, until: q.until, q: searchText(q.q), fileCount, baseUrl: ctx.config.baseUrl, expires });
    const stamp = new Date().toISOString().slice(0, 10);

    if (q.format === 'csv') {
      const header = [...META_COLUMNS, ...columns.headers, ...(overflow ? ['_other'] : []), '_files'].map((h) => csvCell(csvSafe(h))).join(',') + '\n'; // COPY ends rows with \n too
      const source = quiet(copyCsv(session, sql));
      return { contentType: 'text/csv; charset=utf-8', filename: `${formId}-${stamp}.csv`, stream: await guarded(withPrefix(header, source), release) };
    }
    const rows = quiet(streamRows(session, sql));
    return { contentType: 'application/json', filename: `${formId}-${stamp}.json`, stream: await guarded(jsonArray(rows), release) };
  } catch (err) {
    release(false);
    throw err;
  }
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
