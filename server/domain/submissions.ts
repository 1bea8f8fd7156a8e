import type { PoolClient } from 'pg';
import type { z } from 'zod';
import type { BulkBody, SubmissionListQuery, UpdateSubmissionBody } from '../../contract/submissions.ts';
import type { AppContext } from '../context.ts';
import { withTransaction } from '../db/sql.ts';
import { deleteObjects } from '../jobs/definitions.ts';
import type { Caller } from './caller.ts';
import { AppError, notFound, validationFailed } from './errors.ts';
import { hasNul, parseFields } from './field-types.ts';
import { newId } from './ids.ts';
import { pageEnvelope } from './pagination.ts';

export const BULK_LIMIT = 500;
export const SIGNED_URL_SECONDS = 60;

type Folder = 'inbox' | 'spam' | 'all';

/** Folder predicates, written exactly as the partial indexes' so the planner uses them. */
const FOLDER_SQL: Record<Folder, string> = {
  inbox: "s.status <> 'spam'",
  spam: "s.status = 'spam'",
  all: 'true',
};

type FileRow = { id: string; field: string; filename: string; content_type: string; size: number; key: string };
type Row = {
  id: string;
  form_id: string;
  status: 'received' | 'spam' | 'processed' | 'failed';
  spam_reason: string | null;
  category: string | null;
  ai_moderation: { score: number; verdict: 'clean' | 'suspicious' | 'spam'; reasons: string[]; provider: string } | null;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
  received_at: Date;
  updated_at: Date;
  cursor_ts: string;
  files: FileRow[] | null;
};

const COLUMNS = `s.id, s.form_id, s.status, s.spam_reason, s.category, s.ai_moderation, s.payload, s.received_at,
  to_char(s.received_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_ts,
  (select json_agg(json_build_object('id', f.id, 'field', f.field, 'filename', f.filename, 'content_type', f.content_type,
     'size', f.size_bytes, 'key', f.storage_key) order by f.created_at, f.id) from submission_files f where f.submission_id = s.id) as files`;

function fileEntry(f: FileRow) {
  return { id: f.id, field: f.field, filename: f.filename, content_type: f.content_type, size: Number(f.size) };
}

function listItem(r: Row) {
  return {
    id: r.id,
    status: r.status,
    spam_reason: r.spam_reason,
    category: r.category,
    ai_moderation: r.ai_moderation,
    payload: r.payload,
    received_at: r.received_at.toISOString(),
    ...(r.files?.length ? { files: r.files.map(fileEntry) } : {}),
  };
}

/** Every submission route starts here: the form must be a live form of the caller's team. */
async function assertForm(ctx: AppContext, caller: Caller, formId: string): Promise<void> {
  const { rowCount } = await ctx.pool.query('select 1 from forms where id = $1 and team_id = $2 and deleted_at is null', [
    formId,
    caller.teamId,
  ]);
  if (!rowCount) throw notFound('Form');
}

/** Keyset cursors carry the timestamp as text with microseconds: a JS Date would drop them and repeat rows. */
function encodeCursor(ts: string, id: string): string {
  return Buffer.from(JSON.stringify([ts, id])).toString('base64url');
}

function decodeCursor(cursor: string): [string, string] {
  try {
    const [ts, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof ts === 'string' && typeof id === 'string' && !Number.isNaN(Date.parse(ts))) return [ts, id];
  } catch {
    // fall through
  }
  throw validationFailed([{ in: 'query', path: 'cursor', message: 'Invalid cursor.' }]);
}

export async function listSubmissions(ctx: AppContext, caller: Caller, formId: string, q: z.infer<typeof SubmissionListQuery>) {
  await assertForm(ctx, caller, formId);
  const where = [`s.form_id = $1`, FOLDER_SQL[q.folder]];
  const params: unknown[] = [formId];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (q.category) add('s.category = ?', q.category);
  if (q.since) add('s.received_at > ?::timestamptz', q.since);
  if (q.until) add('s.received_at < ?::timestamptz', q.until);
  const filtered = where.length > 2;
  const countParams = [...params];
  const countWhere = [...where];
  if (q.cursor) {
    const [ts, id] = decodeCursor(q.cursor);
    params.push(ts, id);
    where.push(`(s.received_at, s.id) < ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  const limit = q.per_page + 1;
  const offset = q.cursor ? 0 : (q.page - 1) * q.per_page;
  // Deferred join: the page's ids come from an index-only scan, so deep offsets skip index entries
  // rather than whole rows; only the page itself is read from the table.
  const sql = `
    with page as (
      select s.id, s.received_at from submissions s where ${where.join(' and ')}
      order by s.received_at desc, s.id desc limit ${limit} offset ${offset}
    )
    select ${COLUMNS} from page p join submissions s on s.id = p.id
    order by p.received_at desc, p.id desc`;
  const [{ rows }, total] = await Promise.all([
    ctx.pool.query<Row>(sql, params),
    filtered ? countFiltered(ctx, countWhere, countParams) : countFolder(ctx, formId, q.folder),
  ]);
  const more = rows.length > q.per_page;
  const pageRows = rows.slice(0, q.per_page);
  const last = pageRows[pageRows.length - 1];
  const envelope = pageEnvelope(pageRows.map(listItem), {
    page: q.page,
    perPage: q.per_page,
    total,
    baseUrl: ctx.config.baseUrl,
    path: `/v1/forms/${formId}/submissions`,
    query: { folder: q.folder, category: q.category, since: q.since, until: q.until },
  });
  return { ...envelope, meta: { ...envelope.meta, next_cursor: more && last ? encodeCursor(last.cursor_ts, last.id) : null } };
}

async function countFolder(ctx: AppContext, formId: string, folder: Folder): Promise<number> {
  const { rows } = await ctx.pool.query(
    `select coalesce(sum(n), 0)::int as n from form_folder_counts where form_id = $1 ${folder === 'all' ? '' : 'and folder = $2'}`,
    folder === 'all' ? [formId] : [formId, folder],
  );
  return rows[0].n;
}

async function countFiltered(ctx: AppContext, where: string[], params: unknown[]): Promise<number> {
  const { rows } = await ctx.pool.query(`select count(*)::int as n from submissions s where ${where.join(' and ')}`, params);
  return rows[0].n;
}

async function loadSubmission(db: AppContext['pool'] | PoolClient, caller: Caller, formId: string, id: string, lock = false): Promise<Row> {
  const { rows } = await db.query<Row>(
    `select ${COLUMNS}, s.metadata, s.updated_at from submissions s
      where s.id = $1 and s.form_id = $2 and s.team_id = $3 ${lock ? 'for update of s' : ''}`,
    [id, formId, caller.teamId],
  );
  if (!rows[0]) throw notFound('Submission');
  return rows[0];
}

async function detail(ctx: AppContext, r: Row) {
  const expiresAt = new Date(Date.now() + SIGNED_URL_SECONDS * 1000).toISOString();
  const files = await Promise.all(
    (r.files ?? []).map(async (f) => ({
      ...fileEntry(f),
      url: await ctx.storage.presignedGet(f.key, SIGNED_URL_SECONDS, f.filename || f.id),
      url_expires_at: expiresAt,
    })),
  );
  const { files: _files, ...item } = listItem(r);
  return { ...item, form_id: r.form_id, fields: parseFields(r.payload), metadata: r.metadata, files, updated_at: r.updated_at.toISOString() };
}

export async function getSubmission(ctx: AppContext, caller: Caller, formId: string, id: string) {
  await assertForm(ctx, caller, formId);
  return detail(ctx, await loadSubmission(ctx.pool, caller, formId, id));
}

async function audit(client: PoolClient, caller: Caller, submissionId: string, action: string, changes: Record<string, unknown>) {
  await client.query(
    `insert into submission_events (id, team_id, submission_id, actor_user_id, actor_token_id, action, changes)
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [newId('evt'), caller.teamId, submissionId, caller.userId, caller.tokenId, action, JSON.stringify(changes)],
  );
}

/** PUT: `payload` merged shallowly (null removes a key), `status` per the spec's transitions; audited. */
export async function updateSubmission(ctx: AppContext, caller: Caller, formId: string, id: string, input: z.infer<typeof UpdateSubmissionBody>) {
  await assertForm(ctx, caller, formId);
  const updated = await withTransaction(ctx.pool, async (client) => {
    const current = await loadSubmission(client, caller, formId, id, true);
    const changes: Record<string, unknown> = {};
    const payload = { ...current.payload };
    if (input.payload) {
      if (hasNul(input.payload)) throw validationFailed([{ in: 'body', path: 'payload', message: 'NUL characters are not accepted.' }]);
      const diff: Record<string, { from: unknown; to: unknown }> = {};
      for (const [key, value] of Object.entries(input.payload)) {
        if (key.length > 64) throw validationFailed([{ in: 'body', path: `payload.${key.slice(0, 64)}…`, message: 'Field names are limited to 64 characters.' }]);
        const from = payload[key] ?? null;
        if (value === null) delete payload[key];
        else payload[key] = value;
        if (JSON.stringify(from) !== JSON.stringify(value)) diff[key] = { from, to: value };
      }
      if (Object.keys(diff).length) changes.payload = diff;
    }
    let spamReason = current.spam_reason;
    if (input.status && input.status !== current.status) {
      changes.status = { from: current.status, to: input.status };
      spamReason = input.status === 'spam' ? 'manual' : null;
    }
    const status = input.status ?? current.status;
    if (!Object.keys(changes).length) return current;
    await client.query(
      `update submissions set payload = $2, status = $3, spam_reason = $4, updated_at = now() where id = $1`,
      [id, JSON.stringify(payload), status, spamReason],
    );
    if (changes.payload) {
      await client.query(
        'insert into form_fields (form_id, name, ordinal) select $1, name, ord from unnest($2::text[]) with ordinality as f(name, ord) on conflict do nothing',
        [formId, Object.keys(payload)],
      );
    }
    await audit(client, caller, id, 'update', changes);
    return loadSubmission(client, caller, formId, id);
  });
  return detail(ctx, updated);
}

/**
 * Hard delete of rows (files and audit events cascade); the storage objects go through a job enqueued
 * in the same transaction, so they are removed even if this process dies right after.
 */
async function deleteRows(ctx: AppContext, client: PoolClient, ids: string[]): Promise<void> {
  if (!ids.length) return;
  const files = await client.query<{ storage_key: string }>('select storage_key from submission_files where submission_id = any($1::text[])', [ids]);
  await client.query('delete from submissions where id = any($1::text[])', [ids]);
  const keys = files.rows.map((r) => r.storage_key);
  for (let i = 0; i < keys.length; i += 1000) {
    await ctx.queue.send(deleteObjects, { keys: keys.slice(i, i + 1000) }, { db: client });
  }
}

export async function deleteSubmission(ctx: AppContext, caller: Caller, formId: string, id: string): Promise<void> {
  await assertForm(ctx, caller, formId);
  await withTransaction(ctx.pool, async (client) => {
    await loadSubmission(client, caller, formId, id, true);
    await deleteRows(ctx, client, [id]);
  });
}

/** One transaction per call; ids of other forms, other teams or unknown ones are reported as skipped. */
export async function bulkSubmissions(ctx: AppContext, caller: Caller, formId: string, input: z.infer<typeof BulkBody>) {
  if (input.ids.length > BULK_LIMIT) {
    throw new AppError('payload_too_large', `At most ${BULK_LIMIT} ids per call; split the list.`, { limit: BULK_LIMIT });
  }
  await assertForm(ctx, caller, formId);
  const ids = [...new Set(input.ids)];
  return withTransaction(ctx.pool, async (client) => {
    const { rows } = await client.query<{ id: string; status: string }>(
      'select id, status from submissions where id = any($1::text[]) and form_id = $2 and team_id = $3 for update',
      [ids, formId, caller.teamId],
    );
    const valid = new Set(rows.map((r) => r.id));
    const skipped = ids.filter((id) => !valid.has(id));
    if (input.action === 'delete') {
      await deleteRows(ctx, client, [...valid]);
    } else {
      const [to, reason] = input.action === 'mark_spam' ? ['spam', 'manual'] : ['received', null];
      const moving = rows.filter((r) => (input.action === 'mark_spam' ? r.status !== 'spam' : r.status === 'spam')).map((r) => r.id);
      await client.query('update submissions set status = $2, spam_reason = $3, updated_at = now() where id = any($1::text[])', [moving, to, reason]);
      for (const r of rows.filter((row) => moving.includes(row.id))) {
        await audit(client, caller, r.id, input.action, { status: { from: r.status, to } });
      }
    }
    return { ok: true, affected: valid.size, skipped };
  });
}

/** The 302 target of a file download: a new 60-second signed storage URL on every request. */
export async function fileDownloadUrl(ctx: AppContext, caller: Caller, formId: string, submissionId: string, fileId: string): Promise<string> {
  await assertForm(ctx, caller, formId);
  const { rows } = await ctx.pool.query<{ storage_key: string; filename: string }>(
    'select storage_key, filename from submission_files where id = $1 and submission_id = $2 and form_id = $3 and team_id = $4',
    [fileId, submissionId, formId, caller.teamId],
  );
  if (!rows[0]) throw notFound('File');
  return ctx.storage.presignedGet(rows[0].storage_key, SIGNED_URL_SECONDS, rows[0].filename || fileId);
}
