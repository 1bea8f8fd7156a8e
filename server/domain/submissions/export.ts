import { Readable, type Writable } from 'node:stream';
import type { z } from 'zod';
import type { ExportQuery } from '../../../contract/submissions.ts';
import type { AppContext } from '../../context.ts';
import type { Connection } from '../../infra/db/database.ts';
import {
  beginExportChunk,
  copyCsv,
  cursorTexts,
  endExportChunk,
  exportSelect,
  exportShape,
  META_COLUMNS,
  TRIAGE_COLUMNS,
  type ExportKey,
  type ExportSelectOptions,
} from '../../infra/db/queries/exports.ts';
import type { Caller } from '../accounts/caller.ts';
import { requireForm } from '../forms/live-form.ts';
import { takeExportLease } from './export-leases.ts';
import { exportColumns } from '../forms/field-schema.ts';
import { EXPORT_LINK_SECONDS, exportKey } from './file-links.ts';
import { storedSettings } from '../spam/stored-rules.ts';
import { searchText } from './search.ts';
import { Lanes } from '../../infra/lanes.ts';

export type ExportStream = { contentType: string; filename: string; stream: Readable };

/** Neutralises a cell a spreadsheet would execute (the same rule as sqlCell and the SQL function csv_safe). */
export function csvSafe(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * A chunk's size (docs/forms-and-submissions.md, "Export"): a connection never waits on a client, so an
 * export reads one bounded chunk at a time, the next once its consumer has taken most of the last. Rows per
 * chunk follow the previous chunk's bytes per row (aiming at `bytes`, `openingBytes` while it opens); a
 * chunk past `cap` is dropped half-read and read again with an eighth of the rows, so memory stays bounded.
 */
const CHUNK = {
  firstRows: 500,
  maxRows: 5000,
  bytes: 2 * 1024 * 1024,
  openingBytes: 512 * 1024,
  cap: 16 * 1024 * 1024,
};
/** A chunk is bounded, so its statements' timeout only stops a pathological plan, not a busy machine's export. */
const CHUNK_STATEMENT_TIMEOUT_MS = 300_000;

/**
 * Exports a form's submissions, oldest first: CSV through `COPY … TO STDOUT` (cells neutralised in SQL),
 * JSON as rows Postgres renders. Read in keyset chunks of (received_at, id), each in a transaction of its
 * own on a stream connection, so a slow client holds no connection while it waits. A team runs at most
 * INTAKE_EXPORTS_PER_TEAM exports at once (429 past it). Rows arriving after the export's position are included.
 */
export async function exportSubmissions(
  ctx: AppContext,
  caller: Caller,
  formId: string,
  q: z.infer<typeof ExportQuery>,
): Promise<ExportStream> {
  await requireForm(ctx, caller, formId);
  const lease = await takeExportLease(ctx, caller, formId);
  try {
    const shape = await exportShape(ctx.db, caller.teamId, formId);
    const { overflow, fileCount } = shape;
    const columns = exportColumns(storedSettings(shape.settings).fields, shape.fields);
    const fields = columns.names;
    const expires = Math.floor(Date.now() / 1000) + EXPORT_LINK_SECONDS;
    const selection = { teamId: caller.teamId, formId, since: q.since, until: q.until, q: searchText(q.q) };
    const select: ExportSelectOptions = {
      ...selection,
      fields,
      overflow,
      fileCount,
      baseUrl: ctx.config.baseUrl,
      expires,
    };
    // Only the key scoped to this form and expiry reaches Postgres (see file-links.ts).
    const linkKey = exportKey(ctx.keys.linkSigning, { teamId: caller.teamId, formId, expires });
    const stamp = new Date().toISOString().slice(0, 10);
    const chunks = chunkReader(ctx, caller.teamId, q.format, select, linkKey);

    if (q.format === 'csv') {
      const headers = [
        ...Object.keys(META_COLUMNS),
        ...columns.headers,
        ...(overflow ? ['_other'] : []),
        '_files',
        ...Object.keys(TRIAGE_COLUMNS),
      ];
      const header = headers.map((h) => csvCell(csvSafe(h))).join(',') + '\n'; // COPY ends rows with \n too
      const stream = await chunkedStream(chunks, { prefix: header, suffix: '' }, lease.release);
      return { contentType: 'text/csv; charset=utf-8', filename: `${formId}-${stamp}.csv`, stream };
    }
    const stream = await chunkedStream(chunks, { prefix: '[', suffix: '\n]\n' }, lease.release);
    return { contentType: 'application/json', filename: `${formId}-${stamp}.json`, stream };
  } catch (err) {
    lease.release();
    throw err;
  }
}

type Chunk = { pieces: Array<Buffer | string>; last: boolean };

type ChunkReader = {
  /** The next chunk's output, read on a connection taken for it and given back before this resolves. */
  next(): Promise<Chunk>;
  /** Closes the connection of a chunk being read (which ends its query); the pending `next` rejects. */
  abort(): void;
};

/** A chunk that grew past CHUNK.cap: read again, smaller. */
class ChunkOverflow extends Error {}

/** One chunk being read: its range's end is known first (then the next chunk may start), its rows later. */
type Flight = {
  rows: number;
  through: Promise<ExportKey | null>;
  done: Promise<{ pieces: Array<Buffer | string>; through: ExportKey | null; bytes: number; rowCount: number }>;
  session: Connection | null;
  /** The chunk's rows as they stream in: destroyed when the chunk is cancelled, so its reading ends. */
  rowStream: (NodeJS.ReadableStream & { destroy(): void }) | null;
  cancelled: boolean;
  /** Ends the chunk's turn in its lanes at once when it is cancelled, whatever its reading still does. */
  stop: (err: Error) => void;
};

/**
 * A team's chunks read in this process at once, whatever number of exports it runs: opening an export is a
 * burst of reads (the sockets' buffers fill before a silent client is known to be one), and two exports
 * opening together would otherwise take four backends.
 */
const chunkLanes = new Lanes({ running: 2 });
/**
 * An export's opening (about what the sockets' buffers take): small chunks, one at a time for all of a
 * team's opening exports and at most one per OPENING_SPACING_MS, so a silent client's opening is spread
 * out instead of taking a core at once. The spacing follows their size, so a fast client keeps its pace.
 */
const OPENING_BYTES = 4 * CHUNK.bytes;
const OPENING_SPACING_MS = Math.round((50 * CHUNK.openingBytes) / CHUNK.bytes);
const openingLanes = new Lanes({ running: 1, spacingMs: OPENING_SPACING_MS });

/**
 * Reads chunk after chunk, each on a stream connection of its own held only while that chunk is read,
 * in its team's lanes (openingLanes while it opens, chunkLanes always). The next chunk starts as soon as
 * the current one's range is known (two in flight at most), so Postgres reads one while the other is
 * being copied out: a fast client gets the export at nearly the speed of two backends, a slow one costs
 * at most two chunks read ahead, and no connection waits on it.
 */
function chunkReader(
  ctx: AppContext,
  teamId: string,
  format: 'csv' | 'json',
  select: ExportSelectOptions,
  linkKey: Buffer,
): ChunkReader {
  let after: ExportKey | null = null;
  let rows = CHUNK.firstRows;
  let rowsSent = 0;
  let flights: Flight[] = [];
  let aborted = false;
  /** Bytes of the chunks read so far: under OPENING_BYTES, the export is opening. */
  let bytesRead = 0;
  const statementTimeoutMs =
    ctx.config.databaseStatementTimeoutMs &&
    Math.max(ctx.config.databaseStatementTimeoutMs, CHUNK_STATEMENT_TIMEOUT_MS);

  const launch = (from: ExportKey | null, size: number): Flight => {
    let found!: { resolve: (k: ExportKey | null) => void; reject: (e: unknown) => void };
    const flight: Flight = {
      rows: size,
      through: new Promise((resolve, reject) => (found = { resolve, reject })),
      done: null as never,
      session: null,
      rowStream: null,
      cancelled: false,
      stop: () => {},
    };
    const stopped = new Promise<never>((_, reject) => (flight.stop = reject));
    stopped.catch(() => {});
    flight.through.catch(() => {});
    const read = async () => {
      if (flight.cancelled) throw new Error('the chunk was cancelled');
      const session = await ctx.db.connect();
      if (flight.cancelled) {
        session.release();
        throw new Error('the chunk was cancelled');
      }
      flight.session = session;
      try {
        const through = await beginExportChunk(session, {
          selection: select,
          after: from,
          rows: size,
          linkKey,
          statementTimeoutMs,
        });
        found.resolve(through);
        const sql = exportSelect(format, { ...select, range: { after: from, through } });
        const pieces: Array<Buffer | string> = [];
        let bytes = 0;
        let rowCount = 0;
        const overflowed = () => bytes > CHUNK.cap && size > 1;
        if (format === 'csv') {
          const copy = quiet(copyCsv(session, sql));
          flight.rowStream = copy as unknown as Flight['rowStream'];
          for await (const piece of copy) {
            pieces.push(piece);
            bytes += piece.length;
            if (overflowed()) throw new ChunkOverflow();
          }
        } else {
          // Rows joined here; the separator before the first one depends on the chunks before (next()).
          let text = '';
          const cursor = quiet(cursorTexts(session, sql));
          flight.rowStream = cursor as unknown as Flight['rowStream'];
          for await (const [json] of cursor) {
            text += (rowCount ? ',\n' : '') + json;
            rowCount += 1;
            bytes = text.length;
            if (overflowed()) throw new ChunkOverflow();
          }
          if (text) pieces.push(text);
        }
        await endExportChunk(session);
        flight.session = null;
        session.release();
        return { pieces, through, bytes, rowCount };
      } catch (err) {
        found.reject(err);
        // A connection that failed mid-transaction (or was cancelled, or holds a half-read chunk) never
        // goes back to the pool: closing it ends whatever still runs on it.
        flight.session = null;
        session.release(true);
        throw err;
      }
    };
    // Every chunk in the team's two; an opening's, first in the team's one for openings.
    const inChunkLane = () => chunkLanes.run(teamId, () => Promise.race([read(), stopped]));
    flight.done =
      bytesRead < OPENING_BYTES
        ? openingLanes.run(teamId, () => Promise.race([inChunkLane(), stopped]))
        : inChunkLane();
    flight.done.catch(() => {});
    return flight;
  };

  const cancel = (flight: Flight) => {
    flight.cancelled = true;
    flight.stop(new Error('the chunk was cancelled'));
    // A cursor whose connection is closed under it may wait for rows without end (a COPY errors).
    flight.rowStream?.destroy();
    flight.session?.release(true);
  };

  return {
    async next() {
      for (;;) {
        if (aborted) throw new Error('the export was aborted');
        const flight = flights[0] ?? (flights = [launch(after, rows)])[0]!;
        void flight.through.then(
          (through) => {
            if (through !== null && !aborted && flights.length === 1 && flights[0] === flight)
              flights.push(launch(through, rows));
          },
          () => {},
        );
        try {
          const read = await flight.done;
          flights.shift();
          after = read.through;
          bytesRead += read.bytes;
          // Later chunks aim at their size (an opening's or an ordinary one's) from what this one made per row it spanned.
          const perRow = read.bytes / flight.rows;
          const target = bytesRead < OPENING_BYTES ? CHUNK.openingBytes : CHUNK.bytes;
          rows = Math.max(1, Math.min(CHUNK.maxRows, perRow > 0 ? Math.floor(target / perRow) : CHUNK.maxRows));
          let pieces = read.pieces;
          if (format === 'json' && read.rowCount) {
            pieces = [(rowsSent ? ',\n' : '\n') + (read.pieces[0] as string)];
            rowsSent += read.rowCount;
          }
          return { pieces, last: read.through === null };
        } catch (err) {
          if (!(err instanceof ChunkOverflow) || aborted) throw err;
          // Read the range again in smaller chunks; what was read ahead of it started from its old end.
          flights.forEach(cancel);
          flights = [];
          rows = Math.max(1, Math.floor(flight.rows / 8));
        }
      }
    },
    abort() {
      aborted = true;
      flights.forEach(cancel);
    },
  };
}

/**
 * Closing the connection of a chunk cut short errors its COPY stream; the error also reaches the reader
 * through its iterator, but an emitter with no 'error' listener would crash the process first.
 */
function quiet<T extends NodeJS.EventEmitter>(stream: T): T {
  stream.on('error', () => {});
  return stream;
}

/**
 * The export as a Readable: the prefix and the first chunk are read here, so a failing query is still an
 * ordinary error response; each further chunk is read when the stream's buffer (about one chunk) runs
 * low, which is the consumer's back-pressure — a stalled client stops the reads, and no connection is
 * held meanwhile. Destroying the stream (a client that disconnects, an error) closes the connection of a
 * chunk being read and ends the export (`onEnd`: its lease); so does the end of the data.
 */
async function chunkedStream(
  chunks: ChunkReader,
  frame: { prefix: string; suffix: string },
  onEnd: () => void,
): Promise<Readable> {
  const first = await chunks.next();
  let pending: Array<Buffer | string> | null = [frame.prefix, ...first.pieces, ...(first.last ? [frame.suffix] : [])];
  let exhausted = first.last;
  let reading = false;
  const stream: Readable = new Readable({
    highWaterMark: CHUNK.bytes,
    read() {
      if (!reading) void pump();
    },
    destroy(err, callback) {
      chunks.abort();
      onEnd();
      callback(err);
    },
  });
  /** Pushes what is ready and reads chunks while the stream wants more; `read` restarts it after a pause. */
  const pump = async () => {
    reading = true;
    try {
      for (;;) {
        let wanted = true;
        if (pending) {
          for (const piece of pending) if (piece.length) wanted = stream.push(piece);
          pending = null;
        }
        if (exhausted) {
          stream.push(null);
          return;
        }
        if (!wanted || stream.destroyed) return;
        const chunk = await chunks.next();
        if (stream.destroyed) return;
        exhausted = chunk.last;
        pending = chunk.last ? [...chunk.pieces, frame.suffix] : chunk.pieces;
      }
    } catch (err) {
      stream.destroy(err as Error);
    } finally {
      reading = false;
    }
  };
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
