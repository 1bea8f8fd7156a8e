import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import QueryStream from 'pg-query-stream';
import type { Connection, Sql } from '../database.ts';
import { FILE_FIELDS, selectionWhere, type Selection } from './submissions.ts';

/** The queries of a form's export: its columns, its rows read chunk by chunk (keyset ranges), its files' links. */

/**
 * A file whose form is live (not trashed, not erased), with where it lives: what a /d/ link may serve. Its
 * team (`teamId`) when the link names one; a link signed without it is found by the file's id alone.
 */
export async function findLinkedFile(
  sql: Sql,
  fileId: string,
  teamId: string | null,
): Promise<{ storage_key: string; filename: string; team_id: string; form_id: string } | undefined> {
  const { rows } = await sql.query<{ storage_key: string; filename: string; team_id: string; form_id: string }>(
    `select f.storage_key, f.filename, f.team_id, f.form_id
       from submission_files f join forms fm on fm.id = f.form_id and fm.team_id = f.team_id
      where f.id = $1 and fm.deleted_at is null${teamId === null ? '' : ' and f.team_id = $2 and fm.team_id = $2'}`,
    teamId === null ? [fileId] : [fileId, teamId],
  );
  return rows[0];
}

/**
 * The team's form's learned field names in first-seen order, whether stored submissions have fields past them
 * (then an `_other` column), how many files it has, and its settings (its schema orders the columns).
 */
export async function exportShape(
  sql: Sql,
  teamId: string,
  formId: string,
): Promise<{ fields: string[]; overflow: boolean; fileCount: number; settings: unknown }> {
  const fields = await sql.query<{ name: string }>(
    'select name from form_fields where form_id = $1 and team_id = $2 order by first_seen_at, ordinal, name',
    [formId, teamId],
  );
  const form = await sql.query<{ n: number; overflow: boolean; settings: unknown }>(
    `select (select count(*)::int from submission_files where form_id = $1 and team_id = $2) as n,
            fields_overflow as overflow, settings
       from forms where id = $1 and team_id = $2`,
    [formId, teamId],
  );
  const row = form.rows[0];
  return {
    fields: fields.rows.map((r) => r.name),
    overflow: row?.overflow ?? false,
    fileCount: row?.n ?? 0,
    settings: row?.settings ?? {},
  };
}

/** A row's place in the export's order: `received_at` as Postgres's text (microseconds kept), then id. */
export type ExportKey = { receivedAt: string; id: string };

export type ChunkStart = {
  /** The export's submissions (its search is not applied here, see beginExportChunk). */
  selection: Selection;
  /** The last row of the previous chunk; null for the first. */
  after: ExportKey | null;
  /** At most this many rows in the chunk. */
  rows: number;
  /** The export's scoped link key (file-links.ts, exportKey), for the /d/ links its rows carry. */
  linkKey: Buffer;
  /** The chunk's own statement timeout (0: none), in place of the session's. */
  statementTimeoutMs: number;
};

/**
 * Opens one chunk of an export on `session`: a transaction holding the link key and the chunk's statement
 * timeout (both local to it), and the chunk's last row, found by an index-only walk. The key is a bind
 * parameter: COPY takes none, and Postgres logs a failed statement's text. Null: the chunk runs to the
 * end. The search (q) is left to the rows' query, so a sparse search still reads a bounded range per chunk.
 */
export async function beginExportChunk(session: Connection, o: ChunkStart): Promise<ExportKey | null> {
  await session.query('begin');
  const after = o.after ? ` and ${afterKey(o.after)}` : '';
  const range = selectionWhere(o.selection, lit, { search: false }).join(' and ');
  const { rows } = await session.query<{ received_at: string | null; id: string | null }>(
    `select set_config('intake.link_key', $1, true) as link_key, set_config('statement_timeout', $2, true) as statement_timeout,
            c.received_at, c.id
       from (select 1) one
       left join lateral (
         select s.received_at, s.id from submissions s where ${range}${after} order by s.received_at, s.id offset $3 limit 1
       ) c on true`,
    [o.linkKey.toString('hex'), String(o.statementTimeoutMs), o.rows - 1],
  );
  const r = rows[0]!;
  return r.received_at === null || r.id === null ? null : { receivedAt: r.received_at, id: r.id };
}

export async function endExportChunk(session: Connection): Promise<void> {
  await session.query('commit');
}

/** CSV rows of `select` through COPY … TO STDOUT (Postgres quotes them), on the session's connection. */
export function copyCsv(session: Connection, select: string): AsyncIterable<Buffer> & NodeJS.EventEmitter {
  return session.client.query(copyTo(`copy (${select}) to stdout with (format csv)`));
}

/** The first (text) column of the rows of `select`, through a cursor: the reader may stop at any row. */
export function cursorTexts(session: Connection, select: string): AsyncIterable<string[]> & NodeJS.EventEmitter {
  return session.client.query(new QueryStream(select, [], { batchSize: 500, rowMode: 'array' }));
}

const lit = (v: string) => pg.escapeLiteral(v);

// The plain bound beside the row comparison is for the planner, which estimates a row comparison blindly
// and would sort a sequential scan for each chunk; the scalar bound it estimates from its histogram.
const afterKey = (k: ExportKey) =>
  `s.received_at >= ${lit(k.receivedAt)}::timestamptz and (s.received_at, s.id) > (${lit(k.receivedAt)}::timestamptz, ${lit(k.id)})`;
const throughKey = (k: ExportKey) =>
  `s.received_at <= ${lit(k.receivedAt)}::timestamptz and (s.received_at, s.id) <= (${lit(k.receivedAt)}::timestamptz, ${lit(k.id)})`;

/** First characters that make a spreadsheet execute a cell: = + - @ tab CR, as code points (for ascii()). */
const FORMULA_STARTS = ['=', '+', '-', '@', '\t', '\r'].map((c) => c.codePointAt(0)!);
const ARRAY_START = '['.codePointAt(0)!;

/**
 * One CSV cell of a payload field, in SQL: the value as text, arrays (checkboxes, multi-selects) joined with
 * "; ", neutralised like csvSafe. It runs for every field of every row: one ascii() of the text decides (only
 * a JSON array's text starts with "["), and `text` is the field read once per row (exportSelect's LATERAL).
 * Not csv_safe() per cell: that SQL function is not inlined for an argument with a sub-select.
 */
function sqlCell(field: string, text: string): string {
  const joined = `(select string_agg(x, '; ') from jsonb_array_elements_text(s.payload -> ${field}) x)`;
  return `case ascii(${text})
      when ${ARRAY_START} then case when jsonb_typeof(s.payload -> ${field}) = 'array' then csv_safe(${joined}) else ${text} end
      ${FORMULA_STARTS.map((c) => `when ${c} then '''' || ${text}`).join(' ')}
      else ${text} end`;
}

/** The payload's fields that have no column of their own, as one JSON object (null when there are none). */
function otherCell(known: string[]): string {
  const except = known.length ? `where e.key <> all(array[${known.join(', ')}]::text[])` : '';
  return `(select jsonb_object_agg(e.key, e.value) from jsonb_each(s.payload) e ${except})::text`;
}

/**
 * Files of a form up to which a row's "has it files?" is one probe of a hashed set of the form's file-owning
 * submissions; past it the set may not fit the planner's hash memory, and each row runs the aggregate.
 */
const HASHED_FILE_CHECK_MAX = 50_000;

export type ExportSelectOptions = Selection & {
  /** The form's known fields, in column order. */
  fields: string[];
  /** Stored submissions have fields past the learned ones: they go into one `_other` JSON column. */
  overflow?: boolean;
  /** How many files the form has (picks the query's shape, see HASHED_FILE_CHECK_MAX). */
  fileCount: number;
  baseUrl: string;
  /** Unix seconds until which the /d/ file links work. */
  expires: number;
  /** One chunk of the export: the rows after `after` up to and including `through` (null: no bound). */
  range?: { after: ExportKey | null; through: ExportKey | null };
};

/** The CSV's first columns, by header: the rest are the form's fields, `_other` and `_files`. */
export const META_COLUMNS = {
  id: 's.id',
  received_at: `to_char(s.received_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  status: 's.status',
  category: 's.category',
  score: "s.ai_moderation ->> 'score'",
};

/** The triage columns after `_files`, by header. */
export const TRIAGE_COLUMNS = {
  _tags: "csv_safe(nullif(array_to_string(s.tags, ', '), ''))",
  _stage: 's.stage',
  _assignee: `case when s.assignee_id is not null then csv_safe((select u.email from users u where u.id = s.assignee_id)) end`,
  _rules: "csv_safe((select string_agg(r->>'name', ', ') from jsonb_array_elements(s.rules_applied) r))",
};

/** The assignee as the API shows it (`{ id, email, name }`, null when none), over `submissions s`. */
const ASSIGNEE_JSON = `case when s.assignee_id is not null then
  (select json_build_object('id', u.id, 'email', u.email, 'name', u.name) from users u where u.id = s.assignee_id) end`;

/**
 * The export's SELECT, oldest first. CSV: one column per meta column, per known field and `_files`, for
 * `COPY (…) TO STDOUT WITH CSV`; JSON: one pre-rendered object per row (ExportedSubmission). Values are
 * inlined as escaped literals (COPY takes no parameters); the link key is not one. The benchmark EXPLAINs it.
 */
export function exportSelect(format: 'csv' | 'json', o: ExportSelectOptions): string {
  const where = selectionWhere(o, lit);
  if (o.range?.after) where.push(afterKey(o.range.after));
  if (o.range?.through) where.push(throughKey(o.range.through));
  // Most submissions have no files: while the form's file-owning ids fit a hashed set, a row without files
  // costs one probe instead of an aggregate over submission_files. Either shape is exact.
  const withFiles = (perRow: string) =>
    o.fileCount <= HASHED_FILE_CHECK_MAX
      ? `case when s.id in (select fs.submission_id from submission_files fs
                             where fs.form_id = ${lit(o.formId)} and fs.team_id = ${lit(o.teamId)}) then ${perRow} end`
      : perRow;
  // Links to /d/{file} (file-links.ts), signed with the session's `intake.link_key`: never in this text.
  const fileUrl = `${lit(`${o.baseUrl}/d/`)} || f.id || '?expires=${o.expires}&signature=' ||
    encode(hmac(convert_to(f.id, 'UTF8'), (select decode(current_setting('intake.link_key'), 'hex')), 'sha256'), 'hex')
    || ${lit(`&team=${o.teamId}`)}`;
  const from = `from submissions s where ${where.join(' and ')} order by s.received_at, s.id`;
  // Each field's text is read from the payload once per row: OFFSET 0 keeps the subquery from being
  // flattened, which would repeat the extraction wherever the cell uses it.
  const values = o.fields.length
    ? `cross join lateral (select ${o.fields.map((name, i) => `s.payload ->> ${lit(name)} as f${i}`).join(', ')} offset 0) v`
    : '';

  if (format === 'csv') {
    const fileLinks = withFiles(
      `(select string_agg(${fileUrl}, ' ' order by f.created_at, f.id) from submission_files f
         where f.submission_id = s.id and f.team_id = ${lit(o.teamId)})`,
    );
    return `select ${Object.values(META_COLUMNS).join(', ')},
        ${[...o.fields.map((name, i) => sqlCell(lit(name), `v.f${i}`)), ...(o.overflow ? [otherCell(o.fields.map(lit))] : []), fileLinks, ...Object.values(TRIAGE_COLUMNS)].join(', ')}
      from submissions s ${values} where ${where.join(' and ')} order by s.received_at, s.id`;
  }
  const files =
    withFiles(`(select json_agg(json_build_object(${FILE_FIELDS}, 'url', ${fileUrl}) order by f.created_at, f.id)
    from submission_files f where f.submission_id = s.id and f.team_id = ${lit(o.teamId)})`);
  return `select json_build_object('id', s.id, 'received_at', ${META_COLUMNS.received_at}, 'status', s.status, 'spam_reason', s.spam_reason,
      'category', s.category, 'ai_moderation', s.ai_moderation, 'source', case when s.api_token_id is null then 'form' else 'api' end,
      'tags', s.tags, 'stage', s.stage, 'assignee', ${ASSIGNEE_JSON}, 'rules_applied', coalesce(s.rules_applied, '[]'::jsonb), 'payload', s.payload, 'files', coalesce(${files}, '[]'::json))::text
    ${from}`;
}
