import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import busboy from 'busboy';
import { AppError, validationFailed } from '../../domain/shared/errors.ts';
import { isStorableText, TEXT_MESSAGE } from '../../../contract/common.ts';
import { printable, unstorableText } from '../../domain/shared/field-types.ts';
import { jsonShape, jsonTextTooDeep } from '../../domain/shared/json-walk.ts';
import type { FieldValue, PostedBody } from '../../domain/ingest/ingest.ts';
import { INGEST_LIMITS, type BodyLimits } from '../../domain/ingest/limits.ts';

const LIMITS = INGEST_LIMITS;

type SpooledFile = {
  field: string;
  filename: string;
  contentType: string;
  size: number;
  /** Temporary file on disk, removed by the body's discard(). */
  tmpPath: string;
};

type ParsedBody = { fields: Record<string, FieldValue>; files: SpooledFile[]; kind: PostedBody['kind'] };

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const tooLarge = (what: string) => new AppError('payload_too_large', what);
/** One refusal for every kind of body past the values cap (JSON nodes, urlencoded pairs, multipart parts). */
const tooManyValues = () =>
  tooLarge(
    `At most ${LIMITS.values} values are accepted in all (fields, repeated values, list items, nested values, files).`,
  );

function checkName(name: string): void {
  if (name.length === 0)
    throw validationFailed([{ in: 'body', path: '(field)', message: 'Field names must not be empty.' }]);
  if (name.length > LIMITS.fieldName) {
    throw validationFailed(
      [
        {
          in: 'body',
          path: `${name.slice(0, LIMITS.fieldName)}…`,
          message: `Field names are limited to ${LIMITS.fieldName} characters.`,
        },
      ],
      `A field name is longer than ${LIMITS.fieldName} characters.`,
    );
  }
}

/** Repeated keys become arrays, in order. */
function addField(fields: Map<string, FieldValue>, name: string, value: FieldValue): void {
  checkName(name);
  if (!isStorableText(name) || unstorableText(value) !== null) {
    throw validationFailed(
      [{ in: 'body', path: printable(name), message: TEXT_MESSAGE }],
      'The body contains a NUL character or an unpaired surrogate.',
    );
  }
  const existing = fields.get(name);
  if (existing === undefined) {
    if (fields.size >= LIMITS.fields) throw tooLarge(`At most ${LIMITS.fields} fields are accepted.`);
    fields.set(name, value);
  } else if (Array.isArray(existing)) existing.push(value);
  else fields.set(name, [existing, value]);
}

async function readBody(req: Request, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw tooLarge(`The body exceeds ${limit} bytes.`);
  const chunks: Buffer[] = [];
  let size = 0;
  // Left mid-body the iterator would destroy the request and its socket, and the 413 would never reach the client.
  for await (const chunk of req.iterator({ destroyOnReturn: false })) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge(`The body exceeds ${limit} bytes.`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function decodeUtf8(buf: Buffer): string {
  try {
    return strictUtf8.decode(buf);
  } catch {
    throw validationFailed(
      [{ in: 'body', path: '(body)', message: 'The body is not valid UTF-8.' }],
      'The body is not valid UTF-8.',
    );
  }
}

/** application/x-www-form-urlencoded, decoded strictly: percent-escapes that are not UTF-8 are refused. */
function parseUrlencoded(text: string): Record<string, FieldValue> {
  const fields = new Map<string, FieldValue>();
  let values = 0;
  // Pair by pair without splitting the whole body first: a 1 MB body of 200,000 repeated values is
  // refused at the first value past the cap, before the rest is decoded.
  for (let start = 0; start <= text.length;) {
    let end = text.indexOf('&', start);
    if (end === -1) end = text.length;
    const pair = text.slice(start, end);
    start = end + 1;
    if (!pair) continue;
    if (++values > LIMITS.values) throw tooManyValues();
    const eq = pair.indexOf('=');
    const rawName = eq === -1 ? pair : pair.slice(0, eq);
    const rawValue = eq === -1 ? '' : pair.slice(eq + 1);
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      value = decodeURIComponent(rawValue.replace(/\+/g, ' '));
    } catch {
      throw validationFailed(
        [{ in: 'body', path: '(body)', message: 'Malformed percent-encoding or invalid UTF-8.' }],
        'The form body is malformed.',
      );
    }
    if (Buffer.byteLength(value) > LIMITS.fieldValueBytes)
      throw tooLarge(`Field "${name.slice(0, 64)}" exceeds ${LIMITS.fieldValueBytes} bytes.`);
    addField(fields, name, value);
  }
  return Object.fromEntries(fields);
}

function tooDeep(): AppError {
  return validationFailed(
    [{ in: 'body', path: '(root)', message: `JSON nested deeper than ${LIMITS.jsonDepth} levels is refused.` }],
    'The JSON is nested too deeply.',
  );
}

function parseJson(text: string): Record<string, FieldValue> {
  // The top level is the form's fields; values may nest a little (address objects, lists).
  if (jsonTextTooDeep(text, LIMITS.jsonDepth)) throw tooDeep();
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new AppError('invalid_json', 'The request body is not valid JSON.');
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw validationFailed([{ in: 'body', path: '(root)', message: 'A JSON submission must be an object of fields.' }]);
  }
  // Measured without recursion, before anything else walks the value.
  const shape = jsonShape(data, { maxDepth: LIMITS.jsonDepth, maxNodes: LIMITS.values });
  if (shape.depth > LIMITS.jsonDepth) throw tooDeep();
  if (shape.nodes > LIMITS.values) throw tooManyValues();
  // The same per-value limit as a form field (strings: characters, at most 4 bytes each in UTF-8).
  if (shape.longestString > LIMITS.fieldValueBytes)
    throw tooLarge(`A value or key exceeds ${LIMITS.fieldValueBytes} characters.`);
  const fields = new Map<string, FieldValue>();
  for (const [k, v] of Object.entries(data as Record<string, FieldValue>)) addField(fields, k, v);
  return Object.fromEntries(fields);
}

/**
 * Counts the parts of a multipart body as it streams by: each part starts with `--boundary` and a line
 * break (the closing delimiter has `--` instead). The tail of each chunk is kept, so a delimiter split
 * across chunks is still seen.
 */
function partCounter(contentType: string): { scan(chunk: Buffer): void; count(): number } {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!boundary) return { scan: () => {}, count: () => 0 };
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  let tail = Buffer.alloc(0);
  let found = 0;
  return {
    scan(chunk) {
      const data = tail.length ? Buffer.concat([tail, chunk]) : chunk;
      let at = data.indexOf(delimiter);
      let searched = 0;
      while (at !== -1 && at + delimiter.length + 2 <= data.length) {
        const after = data.subarray(at + delimiter.length, at + delimiter.length + 2).toString('latin1');
        if (after !== '--') found += 1;
        searched = at + delimiter.length + 2;
        at = data.indexOf(delimiter, at + 1);
      }
      // Keep what could still begin a delimiter (or one whose two following bytes have not come yet).
      tail = Buffer.from(data.subarray(Math.max(searched, data.length - delimiter.length - 1)));
    },
    count: () => found,
  };
}

function removeAll(files: SpooledFile[]): void {
  for (const f of files) fs.rm(f.tmpPath, { force: true }, () => {});
}

/**
 * multipart/form-data through busboy. Each file is streamed to a temporary file while its size is
 * counted (never held in memory); over any limit the whole post is refused and the spool removed.
 */
function parseMultipart(
  req: Request,
  opts: { maxFileBytes: number; filesAllowed: boolean; spoolDir: string },
): Promise<ParsedBody> {
  return new Promise((resolve, reject) => {
    const fields = new Map<string, FieldValue>();
    const files: SpooledFile[] = [];
    const writes: Promise<void>[] = [];
    let failed: Error | null = null;
    // busboy drops a part without a form-data Content-Disposition (or name) without a word: count the
    // parts in the raw body and compare with what busboy handed over, so a dropped part is refused.
    const parts = partCounter(req.headers['content-type'] ?? '');
    let handed = 0;
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: {
          fieldNameSize: LIMITS.fieldName + 1,
          fieldSize: LIMITS.fieldValueBytes,
          // Values (repeats included) and files together within the same cap as a JSON body's values;
          // distinct names within LIMITS.fields (addField). busboy stops handing parts over at a limit.
          fields: LIMITS.values,
          files: LIMITS.files,
          fileSize: opts.maxFileBytes,
          // busboy signals partsLimit once the count *reaches* it: one more, so exactly `values` parts pass.
          parts: LIMITS.values + 1,
        },
      });
    } catch {
      reject(
        validationFailed([
          { in: 'header', path: 'content-type', message: 'Malformed multipart Content-Type (boundary missing?).' },
        ]),
      );
      return;
    }
    const streams: NodeJS.ReadableStream[] = [];
    // Refused: stop reading at once (the error response closes the connection, see closeUnreadBody), end
    // the file streams still being spooled, and remove the spool once their writes have settled.
    const fail = (err: Error) => {
      if (failed) return;
      failed = err;
      req.unpipe(bb);
      for (const s of streams) (s as NodeJS.ReadableStream & { destroy(): void }).destroy();
      reject(err);
      void Promise.allSettled(writes).then(() => removeAll(files));
    };
    bb.on('field', (name, value, info) => {
      handed += 1;
      if (failed) return;
      try {
        if (info.nameTruncated) checkName(name + 'x'.repeat(LIMITS.fieldName));
        if (info.valueTruncated) throw tooLarge(`Field "${name}" exceeds ${LIMITS.fieldValueBytes} bytes.`);
        addField(fields, name, value);
      } catch (err) {
        fail(err as Error);
      }
    });
    bb.on('file', (name, stream, info) => {
      handed += 1;
      if (failed) return void stream.resume();
      try {
        checkName(name);
      } catch (err) {
        stream.resume();
        return fail(err as Error);
      }
      if (!opts.filesAllowed) {
        // Refused at the first byte of a file rather than after reading it; a blank file input (no
        // name, no bytes) is what browsers send for an empty <input type=file>, and is no upload.
        const refuse = () =>
          fail(new AppError('plan_limit_reached', "File uploads are not included in this form's plan."));
        if (info.filename) return refuse();
        stream.once('data', refuse);
        stream.resume();
        return;
      }
      streams.push(stream);
      const file: SpooledFile = {
        field: name,
        filename: (info.filename ?? '').slice(0, 255),
        contentType: info.mimeType || 'application/octet-stream',
        size: 0,
        tmpPath: path.join(opts.spoolDir, `upload-${randomUUID()}`),
      };
      files.push(file);
      stream.on('data', (chunk: Buffer) => (file.size += chunk.length));
      stream.on('limit', () => fail(tooLarge(`File "${file.filename}" exceeds ${opts.maxFileBytes} bytes.`)));
      writes.push(pipeline(stream, fs.createWriteStream(file.tmpPath)).catch((err: Error) => fail(err)));
    });
    bb.on('fieldsLimit', () => fail(tooManyValues()));
    bb.on('filesLimit', () => fail(tooLarge(`At most ${LIMITS.files} files are accepted.`)));
    bb.on('partsLimit', () => fail(tooManyValues()));
    bb.on('error', (err: Error) =>
      fail(
        validationFailed(
          [{ in: 'body', path: '(body)', message: `Malformed multipart body: ${err.message}` }],
          'Malformed multipart body.',
        ),
      ),
    );
    bb.on('close', () => {
      if (failed) return;
      if (parts.count() > handed) {
        return fail(
          validationFailed(
            [
              {
                in: 'body',
                path: '(body)',
                message: 'Every multipart part needs Content-Disposition: form-data with a name.',
              },
            ],
            'A multipart part had no form-data Content-Disposition; nothing was stored.',
          ),
        );
      }
      void Promise.all(writes).then(() => {
        if (failed) return;
        // Browsers send an empty part for a file input left blank: that is no upload.
        const real = files.filter((f) => f.size > 0 || f.filename !== '');
        removeAll(files.filter((f) => !real.includes(f)));
        resolve({ fields: Object.fromEntries(fields), files: real, kind: 'multipart' });
      }, fail);
    });
    req.on('aborted', () => fail(new AppError('validation_failed', 'The upload was interrupted.')));
    req.on('data', parts.scan);
    req.pipe(bb);
  });
}

/** A post's body within the limits: fields, and files spooled to disk (removed by `discard`). */
export async function readPostBody(req: Request, limits: BodyLimits): Promise<PostedBody> {
  const parsed = await parseSubmissionBody(req, limits);
  return {
    kind: parsed.kind,
    fields: parsed.fields,
    files: parsed.files.map((f) => ({ ...f, open: () => fs.createReadStream(f.tmpPath) })),
    discard: () => removeAll(parsed.files),
  };
}

async function parseSubmissionBody(req: Request, opts: BodyLimits): Promise<ParsedBody> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (req.is('multipart/form-data')) {
    if (declared > LIMITS.multipartBytes) throw tooLarge(`The body exceeds ${LIMITS.multipartBytes} bytes.`);
    const spoolDir = path.join(os.tmpdir(), 'intake-uploads');
    fs.mkdirSync(spoolDir, { recursive: true });
    return parseMultipart(req, {
      maxFileBytes: Math.max(1, opts.maxFileBytes),
      filesAllowed: opts.filesAllowed,
      spoolDir,
    });
  }
  if (req.is('application/x-www-form-urlencoded')) {
    return {
      fields: parseUrlencoded(decodeUtf8(await readBody(req, LIMITS.bodyBytes))),
      files: [],
      kind: 'urlencoded',
    };
  }
  if (req.is('application/json') || req.is('application/*+json')) {
    return { fields: parseJson(decodeUtf8(await readBody(req, LIMITS.bodyBytes))), files: [], kind: 'json' };
  }
  throw new AppError(
    'unsupported_media_type',
    'Post forms as application/x-www-form-urlencoded, multipart/form-data or application/json.',
  );
}
