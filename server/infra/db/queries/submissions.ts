import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Autoresponse } from '../../../../contract/form-features.ts';
import type { AiModeration, SUBMISSION_STATUSES, SubmissionFilter } from '../../../../contract/submissions.ts';
import type { Sql } from '../database.ts';
import { valuesLists } from '../values.ts';

/** The owner of `submissions`, `submission_files` and `submission_events` (a post's insert is submission-inserts.ts's). */

export type Folder = SubmissionFilter['folder'];
export type SubmissionStatus = (typeof SUBMISSION_STATUSES)[number];

export type FileRow = { id: string; field: string; filename: string; content_type: string; size: number; key: string };

/** A submission as a read of one returns it (detail, stream, webhook events): submissionColumns; a list reads SubmissionItemRow. */
export type SubmissionRow = {
  id: string;
  team_id: string;
  form_id: string;
  status: SubmissionStatus;
  spam_reason: string | null;
  category: string | null;
  ai_moderation: z.infer<typeof AiModeration> | null;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown> & { referrer?: string | null; user_agent?: string | null };
  autoresponse: z.infer<typeof Autoresponse>;
  /** The token of a server-side submit; null for a post to the public endpoint. */
  api_token_id: string | null;
  received_at: string;
  updated_at: string;
  /** received_at with microseconds, for keyset cursors. */
  cursor_ts: string;
  /** In upload order; null when there are none. */
  files: FileRow[] | null;
  tags: string[];
  stage: string;
  assignee: Member | null;
  notes_count: number;
  rules_applied: Array<{ rule_id: string; name: string; actions: string[] }> | null;
  /** updated_at with microseconds: the version an ETag names. */
  version: string;
};

export type Member = { id: string; email: string; name: string };

/** A file's fields as `json_build_object` arguments, over `submission_files f`; the export adds its link to them. */
export const FILE_FIELDS =
  "'id', f.id, 'field', f.field, 'filename', f.filename, 'content_type', f.content_type, 'size', f.size_bytes";

/**
 * What a list item shows (submissionView), over `submissions s` of the team `team` (a bind parameter or a
 * literal: Citus routes a statement with a subquery only when the subquery names its team so, not by `s.team_id`).
 * The columns every read of one shares.
 */
const itemColumns = (
  team: string,
) => `s.id, s.status, s.spam_reason, s.category, s.ai_moderation, s.payload, s.received_at,
  s.updated_at, s.tags, s.stage, s.notes_count,
  to_char(s.received_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_ts,
  case when s.assignee_id is not null then
    (select json_build_object('id', u.id, 'email', u.email, 'name', u.name) from users u where u.id = s.assignee_id) end as assignee,
  (select json_agg(json_build_object(${FILE_FIELDS}, 'key', f.storage_key) order by f.created_at, f.id)
     from submission_files f where f.submission_id = s.id and f.team_id = ${team}) as files`;

/** A row of a list page: itemColumns. */
export type SubmissionItemRow = Pick<
  SubmissionRow,
  | 'id'
  | 'status'
  | 'spam_reason'
  | 'category'
  | 'ai_moderation'
  | 'payload'
  | 'received_at'
  | 'updated_at'
  | 'tags'
  | 'stage'
  | 'notes_count'
  | 'cursor_ts'
  | 'assignee'
  | 'files'
>;

/** The columns of a SubmissionRow, over `submissions s` of the team `team` (see itemColumns). */
export const submissionColumns = (
  team: string,
) => `${itemColumns(team)}, s.team_id, s.form_id, s.metadata, s.autoresponse,
  s.api_token_id, s.rules_applied, to_char(s.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as version`;

/** What an event body (webhooks, the stream) is rendered from: the submission and its form's name. */
export type SubmissionEventRow = SubmissionRow & { form_name: string };

/** The columns of a SubmissionEventRow, over `submissions s join forms f on f.id = s.form_id` of the team `team`. */
export const submissionEventColumns = (team: string) => `${submissionColumns(team)}, f.name as form_name`;

/**
 * Which submissions of a team's form: a list's filters, with triage filters resolved (tags as stored, the assignee a
 * user id or null for none); the export takes its own (no folder, no category).
 */
export type Selection = { teamId: string; formId: string } & Partial<Omit<SubmissionFilter, 'tag' | 'assignee'>> & {
    tags?: string[];
    assigneeId?: string | null;
  };
export type ListFilter = Selection & Pick<SubmissionFilter, 'folder'>;

/** Folder predicates, written exactly as the partial indexes' so the planner uses them. */
const FOLDER_SQL: Record<Folder, string> = {
  inbox: "s.status <> 'spam'",
  spam: "s.status = 'spam'",
  all: 'true',
};

/**
 * The selection as conditions on `submissions s`, the form's and the team's first; each value goes through
 * `param` (a bind parameter, or a literal where none can be bound). `search: false` leaves out the text search.
 */
export function selectionWhere(
  f: Selection,
  param: (value: string) => string,
  opts: { search?: boolean } = {},
): string[] {
  const where = [`s.form_id = ${param(f.formId)}`, `s.team_id = ${param(f.teamId)}`];
  if (f.folder) where.push(FOLDER_SQL[f.folder]);
  if (f.category) where.push(`s.category = ${param(f.category)}`);
  if (f.since) where.push(`s.received_at > ${param(f.since)}::timestamptz`);
  if (f.until) where.push(`s.received_at < ${param(f.until)}::timestamptz`);
  // `tags <> '{}'` is the tag index's predicate: said here, the planner may use it.
  if (f.tags?.length)
    where.push(`s.tags <> '{}' and s.tags @> ${param(`{${f.tags.map((t) => JSON.stringify(t)).join(',')}}`)}::text[]`);
  if (f.stage) where.push(`s.stage = ${param(f.stage)}`);
  if (f.assigneeId !== undefined)
    where.push(f.assigneeId === null ? 's.assignee_id is null' : `s.assignee_id = ${param(f.assigneeId)}`);
  if (f.q && opts.search !== false) where.push(`s.search @@ submission_search_query(${param(f.q)})`);
  return where;
}

type Where = { where: string[]; values: unknown[]; filtered: boolean };

/**
 * The filter over bind parameters from `$1` (the form) and `$2` (the team); `filtered` when it selects more
 * than form and folder.
 */
function whereOf(f: ListFilter, opts: { search?: boolean } = {}): Where {
  const values: unknown[] = [];
  const where = selectionWhere(f, (value) => `$${values.push(value)}`, opts);
  return { where, values, filtered: where.length > 3 };
}

export type PageSpec = { limit: number; offset: number; after?: [string, string] };

/**
 * The page's rows: `ids` is SQL defining a `page` CTE of (id, received_at); the rows are read after it, on
 * the team `$2` (whereOf's).
 */
function pageRows(ids: string): string {
  return `${ids}
    select ${itemColumns('$2')} from page p join submissions s on s.id = p.id and s.team_id = $2
    order by p.received_at desc, p.id desc`;
}

/** The filter with the page's keyset position, when it has one. */
function pageFilter(f: ListFilter, page: PageSpec, opts: { search?: boolean } = {}): Where {
  const { where, values, filtered } = whereOf(f, opts);
  if (page.after) {
    const [ts, id] = page.after;
    where.push(`(s.received_at, s.id) < ($${values.push(ts)}::timestamptz, $${values.push(id)})`);
  }
  return { where, values, filtered };
}

/** The counter folders a list folder sums. */
const COUNTED_FOLDERS: Record<Folder, string[]> = { inbox: ['inbox'], spam: ['spam'], all: ['inbox', 'spam'] };

/** From this offset on, an unfiltered page starts from the day holding its first row (docs/decisions.md, "Deep pages"). */
export const DAY_SKIP_FROM = 5000;

/**
 * One page, newest first: `limit` rows after `offset`, or after the keyset `after` (received_at text with
 * microseconds, id). The page's ids come from an index-only scan and only the page's rows are read. A deep
 * page of a whole folder skips whole days by their counters, then at most one day's index entries.
 */
export function listPageQuery(f: ListFilter, page: PageSpec): { text: string; values: unknown[] } {
  const { where, values, filtered } = pageFilter(f, page);
  if (page.after || filtered || page.offset < DAY_SKIP_FROM) {
    const text = pageRows(`
      with page as (
        select s.id, s.received_at from submissions s where ${where.join(' and ')}
        order by s.received_at desc, s.id desc limit $${values.push(page.limit)} offset $${values.push(page.offset)}
      )`);
    return { text, values };
  }
  const offset = `$${values.push(page.offset)}::bigint`;
  const text = pageRows(`
    with days as (
      select c.day, sum(c.n) as n from form_folder_counts c where c.form_id = $1 and c.team_id = $2 and c.folder = any($${values.push(COUNTED_FOLDERS[f.folder])}::text[])
      group by c.day
    ),
    start as (
      select d.day, d.newer::bigint as newer from (select day, sum(n) over (order by day desc) - n as newer from days) d
       where d.newer <= ${offset} order by d.day limit 1
    ),
    page as (
      select s.id, s.received_at from submissions s
       where ${where.join(' and ')} and s.received_at < (select (day + 1)::timestamp at time zone 'UTC' from start)
       order by s.received_at desc, s.id desc limit $${values.push(page.limit)} offset ${offset} - (select newer from start)
    )`);
  return { text, values };
}

export async function listPage(sql: Sql, f: ListFilter, page: PageSpec): Promise<SubmissionItemRow[]> {
  const { text, values } = listPageQuery(f, page);
  return (await sql.query<SubmissionItemRow>(text, values)).rows;
}

/** How many of the newest rows a search reads before it turns to the index (see searchPage). */
const SEARCH_WINDOW = 5000;

/**
 * A page of a search (`f.q`) and its match count up to `cap` (cap + 1 when there are more). Postgres cannot
 * tell how common a prefix is, so the query says: the newest SEARCH_WINDOW rows are matched first (a common
 * word fills the page there); otherwise the words are rare and every match comes from the GIN index (a
 * materialized CTE, so the planner cannot walk the time index instead) and is sorted and counted.
 */
export async function searchPage(
  sql: Sql,
  f: ListFilter,
  page: PageSpec,
  cap: number,
): Promise<{ rows: SubmissionItemRow[]; counted: number }> {
  const recent = pageFilter(f, page, { search: false });
  const window = await sql.query<SubmissionItemRow>(
    pageRows(`with recent as materialized (
        select s.id, s.received_at, s.search from submissions s where ${recent.where.join(' and ')}
        order by s.received_at desc, s.id desc limit ${SEARCH_WINDOW}),
      page as (
        select r.id, r.received_at from recent r where r.search @@ submission_search_query($${recent.values.push(f.q)})
        order by r.received_at desc, r.id desc limit $${recent.values.push(page.limit)} offset $${recent.values.push(page.offset)})`),
    recent.values,
  );
  const all = whereOf(f);
  if (window.rows.length === page.limit) {
    // Newest first, as the page was found: a common word meets cap + 1 matches after a short walk of the
    // time index (unordered, the planner collects every posting of the word from the GIN index first).
    const counted = await sql.query<{ n: number }>(
      `select count(*)::int as n from (select 1 from submissions s where ${all.where.join(' and ')} order by s.received_at desc, s.id desc limit ${cap + 1}) m`,
      all.values,
    );
    return { rows: window.rows, counted: counted.rows[0]!.n };
  }
  const { where, values } = pageFilter(f, page);
  const rows = await sql.query<SubmissionItemRow>(
    pageRows(`with matches as materialized (select s.id, s.received_at from submissions s where ${where.join(' and ')}),
      page as (select m.id, m.received_at from matches m order by m.received_at desc, m.id desc
               limit $${values.push(page.limit)} offset $${values.push(page.offset)})`),
    values,
  );
  const counted = await sql.query<{ n: number }>(
    `with matches as materialized (select 1 from submissions s where ${all.where.join(' and ')}) select count(*)::int as n from matches`,
    all.values,
  );
  return { rows: rows.rows, counted: Math.min(counted.rows[0]!.n, cap + 1) };
}

/**
 * How many rows the filter matches: the folder counters when it is only a folder, else a count, up to
 * `cap` + 1 when there is a cap.
 */
export async function countMatching(sql: Sql, f: ListFilter, cap: number | null = null): Promise<number> {
  const { where, values, filtered } = whereOf(f);
  if (filtered) {
    // Capped, newest first as the page: a common tag, stage or assignee then walks its time-ordered index
    // entries (index-only) to the cap, a rare tag's few postings come from the GIN index and are sorted.
    // Unordered, the planner takes the GIN index for a common tag too and reads its rows from the heap.
    const matches = `select 1 from submissions s where ${where.join(' and ')}`;
    const capped = cap === null ? '' : ` order by s.received_at desc, s.id desc limit ${cap + 1}`;
    const { rows } = await sql.query<{ n: number }>(`select count(*)::int as n from (${matches}${capped}) m`, values);
    return rows[0]!.n;
  }
  const { rows } = await sql.query<{ n: number }>(
    `select coalesce(sum(n), 0)::int as n from form_folder_counts
      where form_id = $1 and team_id = $3 and ($2::text = 'all' or folder = $2)`,
    [f.formId, f.folder, f.teamId],
  );
  return rows[0]!.n;
}

/** A submission of the team's form, optionally locked for update. */
export async function findSubmission(
  sql: Sql,
  teamId: string,
  formId: string,
  id: string,
  lock = false,
): Promise<SubmissionRow | undefined> {
  const { rows } = await sql.query<SubmissionRow>(
    `select ${submissionColumns('$3')} from submissions s
      where s.id = $1 and s.form_id = $2 and s.team_id = $3 ${lock ? 'for update of s' : ''}`,
    [id, formId, teamId],
  );
  return rows[0];
}

export async function updateSubmission(
  sql: Sql,
  teamId: string,
  id: string,
  change: { payload: Record<string, unknown>; status: SubmissionStatus; spamReason: string | null },
): Promise<void> {
  await runCounting(
    sql,
    changingStatus(
      'payload = $2, status = $3, spam_reason = $4, updated_at = now()',
      's.id = $1 and s.team_id = $5',
      '$5',
      'select 1',
      sql.distributed,
    ),
    [id, JSON.stringify(change.payload), change.status, change.spamReason, teamId],
  );
}

export type AuditEvent = {
  id: string;
  teamId: string;
  submissionId: string;
  /** Null for an action taken through a signed e-mail link (no token: the link was the credential). */
  actorUserId: string | null;
  actorTokenId: string | null;
  action: string;
  changes: Record<string, unknown>;
};

export async function insertEvent(sql: Sql, e: AuditEvent): Promise<void> {
  await sql.query(
    `insert into submission_events (id, team_id, submission_id, actor_user_id, actor_token_id, action, changes)
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [e.id, e.teamId, e.submissionId, e.actorUserId, e.actorTokenId, e.action, JSON.stringify(e.changes)],
  );
}

/** A backend's own counter rows: posts and moves of one backend rarely meet on a row (migration 0016). */
export const FOLDER_SHARD = '1 + pg_backend_pid() % 1023';

/** The folder counted for a status (SQL). */
export const folderOf = (status: string) => `case when ${status} = 'spam' then 'spam' else 'inbox' end`;

/**
 * The rest of a statement that changes submissions, after its CTE `changed` (the rows changed, with columns
 * team_id, form_id, received_at, id, `was`: the status before, null for a new row, and `becomes`: after, null
 * for a row deleted): their folders' counters move (one row of this backend's counter shard per form, folder
 * and day), and the unique keys of rows deleted or turned spam are released (`released`); `select` (one row)
 * ends it. `team`: the rows' team. Run it with runCounting: on Citus (`routed`) the statement answers the
 * counters' changes (`folder_deltas`) and runCounting adds them as VALUES (docs/decisions.md, "Inserts on
 * Citus"). It writes forms.ts's and submission-inserts.ts's tables: a shared write (docs/architecture.md).
 */
export function countingChanges(team: string, select: string, routed: boolean): string {
  const moved = "(was = 'spam') is distinct from (becomes = 'spam')";
  const deltas = `
      select team_id, form_id, folder, day, sum(n)::int as n from (
        select team_id, form_id, ${folderOf('was')} as folder, (received_at at time zone 'UTC')::date as day, -1 as n
          from changed where was is not null and (becomes is null or ${moved})
        union all
        select team_id, form_id, ${folderOf('becomes')}, (received_at at time zone 'UTC')::date, 1
          from changed where becomes is not null and (was is null or ${moved})) m
      group by 1, 2, 3, 4`;
  const released = `released as (
      delete from submission_unique_keys k using changed c
       where k.submission_id = c.id and k.team_id = c.team_id and k.team_id = ${team}
         and (c.becomes is null or (c.becomes = 'spam' and c.was is distinct from 'spam')))`;
  if (routed)
    return `deltas as (${deltas}), ${released}
      select a.*, (select coalesce(jsonb_agg(d), '[]'::jsonb) from deltas d where d.n <> 0) as folder_deltas from (${select}) a`;
  return `counted as (
      insert into form_folder_counts (team_id, form_id, folder, day, shard, n)
      select team_id, form_id, folder, day, ${FOLDER_SHARD}, n from (${deltas}) d
      on conflict (form_id, folder, day, shard, team_id) do update set n = form_folder_counts.n + excluded.n),
    ${released}
    ${select}`;
}

type FolderDelta = { team_id: string; form_id: string; folder: string; day: string; n: number };

/**
 * Runs a statement built with countingChanges in the caller's transaction, answering its rows; on Citus it then
 * moves the folder counters by the changes the statement answered.
 */
async function runCounting<T extends object>(tx: Sql, text: string, values: unknown[]): Promise<T[]> {
  const { rows } = await tx.query<T & { folder_deltas?: FolderDelta[] }>(text, values);
  const deltas = rows[0]?.folder_deltas ?? [];
  if (!tx.distributed || !deltas.length) return rows;
  const lists = valuesLists(
    deltas,
    (d, p) => `(${p(d.team_id)}, ${p(d.form_id)}, ${p(d.folder)}, ${p(d.day)}::date, ${FOLDER_SHARD}, ${p(d.n)}::int)`,
  );
  for (const list of lists)
    await tx.query(
      `insert into form_folder_counts (team_id, form_id, folder, day, shard, n)
       values ${list.rows}
       on conflict (form_id, folder, day, shard, team_id) do update set n = form_folder_counts.n + excluded.n`,
      list.values,
    );
  return rows;
}

/**
 * A statement deleting submissions, from its `delete from submissions s …` (without `returning`): the deleted
 * rows are the CTE `changed` (with `returning`'s further columns), counted and released as countingChanges
 * says; `select` (over `changed`) ends it. `team`: the rows' team (a bind parameter).
 */
export function deletingSubmissions(
  del: string,
  team: string,
  select: string,
  routed: boolean,
  returning = '',
): string {
  return `with changed as (${del} returning s.team_id, s.form_id, s.received_at, s.id, s.status as was, null::text as becomes${returning}),
    ${countingChanges(team, select, routed)}`;
}

/**
 * A statement changing the status of the team's submissions matching `where` (over `s`, naming its team): the
 * rows are locked and read before (`was`), so their counters and keys follow (countingChanges).
 */
function changingStatus(set: string, where: string, team: string, select: string, routed: boolean): string {
  return `with old as (select s.id, s.status from submissions s where ${where} for update),
    changed as (
      update submissions s set ${set} from old o where s.id = o.id and s.team_id = ${team}
      returning s.team_id, s.form_id, s.received_at, s.id, o.status as was, s.status as becomes),
    ${countingChanges(team, select, routed)}`;
}

/**
 * Deletes the team's rows among `ids` (files, notes and audit events cascade) and returns their files'
 * storage keys.
 */
export async function deleteSubmissions(sql: Sql, teamId: string, ids: string[]): Promise<string[]> {
  // Each row's files are read as it is deleted: their rows cascade at the statement's end, and on Citus the
  // statement's parts run one after another, so a read after the delete would find none.
  const rows = await runCounting<{ keys: string[] }>(
    sql,
    deletingSubmissions(
      'delete from submissions s where s.id = any($1::text[]) and s.team_id = $2',
      '$2',
      'select array(select k from changed, unnest(changed.keys) as k) as keys',
      sql.distributed,
      ', array(select f.storage_key from submission_files f where f.submission_id = s.id and f.team_id = $2) as keys',
    ),
    [ids, teamId],
  );
  return rows[0]!.keys;
}

export type LockedSubmission = {
  id: string;
  status: SubmissionStatus;
  tags: string[];
  stage: string;
  assignee_id: string | null;
};

/** The team's submissions of the form among `ids`, locked for a bulk action. */
export async function lockSubmissions(
  sql: Sql,
  teamId: string,
  formId: string,
  ids: string[],
): Promise<LockedSubmission[]> {
  const { rows } = await sql.query<LockedSubmission>(
    `select id, status, tags, stage, assignee_id from submissions
      where id = any($1::text[]) and form_id = $2 and team_id = $3 order by id for update`,
    [ids, formId, teamId],
  );
  return rows;
}

export type HeldValuesRow = {
  id: string;
  team_id: string;
  form_id: string;
  payload: Record<string, unknown>;
  settings: unknown;
  /** It holds unique keys now (released when it has no rule left). */
  holds: boolean;
};

/** The team's clean submissions with their values and their form's settings: what their unique keys are made of. */
export async function heldValuesOf(sql: Sql, teamId: string, ids: string[]): Promise<HeldValuesRow[]> {
  const { rows } = await sql.query<HeldValuesRow>(
    `select s.id, s.team_id, s.form_id, s.payload, f.settings,
            exists (select 1 from submission_unique_keys k where k.submission_id = s.id and k.team_id = $2) as holds
       from submissions s join forms f on f.id = s.form_id and f.team_id = s.team_id
      where s.id = any($1::text[]) and s.team_id = $2 and f.team_id = $2 and s.status <> 'spam'`,
    [ids, teamId],
  );
  return rows;
}

export type KeptValuesRow = { id: string; payload: Record<string, unknown>; received_at: Date; cursor_ts: string };

/** A page of a team's form's clean submissions, oldest first, after a (cursor_ts, id) position. */
export async function keptValuesPage(
  sql: Sql,
  teamId: string,
  formId: string,
  after: { cursorTs: string; id: string } | null,
  limit: number,
): Promise<KeptValuesRow[]> {
  const { rows } = await sql.query<KeptValuesRow>(
    `select s.id, s.payload, s.received_at,
            to_char(s.received_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_ts
       from submissions s
      where s.form_id = $1 and s.team_id = $5 and s.status <> 'spam'
        and ($2::timestamptz is null or (s.received_at, s.id) > ($2::timestamptz, $3))
      order by s.received_at, s.id limit $4`,
    [formId, after?.cursorTs ?? null, after?.id ?? '', limit, teamId],
  );
  return rows;
}

export async function setStatus(
  sql: Sql,
  teamId: string,
  ids: string[],
  status: SubmissionStatus,
  spamReason: string | null,
): Promise<void> {
  await runCounting(
    sql,
    changingStatus(
      'status = $2, spam_reason = $3, updated_at = now()',
      's.id = any($1::text[]) and s.team_id = $4',
      '$4',
      'select 1',
      sql.distributed,
    ),
    [ids, status, spamReason, teamId],
  );
}

/** A file of the team (of the form and the submission, when given). */
export async function findFile(
  sql: Sql,
  where: { teamId: string; fileId: string; submissionId?: string; formId?: string },
): Promise<{ storage_key: string; filename: string } | undefined> {
  const { rows } = await sql.query<{ storage_key: string; filename: string }>(
    `select storage_key, filename from submission_files
      where id = $1 and team_id = $4 and ($2::text is null or submission_id = $2) and ($3::text is null or form_id = $3)`,
    [where.fileId, where.submissionId ?? null, where.formId ?? null, where.teamId],
  );
  return rows[0];
}

/** Bytes of files the team stores (every form, trashed ones included: their objects still exist). */
export async function teamStorageBytes(sql: Sql, teamId: string): Promise<number> {
  const { rows } = await sql.query<{ bytes: string }>(
    'select coalesce(sum(size_bytes), 0) as bytes from submission_files where team_id = $1',
    [teamId],
    'intake_team_storage',
  );
  return Number(rows[0]!.bytes);
}

/** What the autoresponder did for the submission (sent, or why not), so a retried job does not send again. */
export async function recordAutoresponse(
  sql: Sql,
  teamId: string,
  submissionId: string,
  outcome: Record<string, unknown>,
): Promise<void> {
  await sql.query('update submissions set autoresponse = $2 where id = $1 and team_id = $3', [
    submissionId,
    JSON.stringify(outcome),
    teamId,
  ]);
}

/** The processing verdict on a submission still `received` (the process-submission job, see settleReceived). */
export type ProcessingVerdict = {
  status: 'processed' | 'spam';
  spamReason: string | null;
  category: string;
  moderation: { score: number; verdict: string; reasons: string[]; provider: string };
  /** The autoresponder's outcome when it is decided here (spam is never answered). */
  autoresponse: { skipped: 'spam' } | null;
  /** The rules that fired (null: none ran), and the triage they set (each absent: unchanged). */
  rulesApplied: unknown[] | null;
  triage: Omit<TriageSet, 'id'>;
};

/**
 * Applies the verdict to a submission still `received`; false when another run got there first. An
 * autoresponse already sent (the submission is processed again: marked not spam) stays recorded, so
 * it is not sent twice. Its folders are counted, and its unique keys released when it turns spam (countingChanges).
 */
export async function settleReceived(
  sql: Sql,
  teamId: string,
  submissionId: string,
  v: ProcessingVerdict,
): Promise<boolean> {
  const rows = await runCounting<{ settled: boolean }>(
    sql,
    `with changed as (
     update submissions s set status = $2, spam_reason = $3, category = $4, ai_moderation = $5,
            autoresponse = case when autoresponse ? 'sent_at' then autoresponse else $6::jsonb end, updated_at = now(),
            rules_applied = coalesce($7::jsonb, rules_applied), tags = coalesce($8::text[], tags),
            stage = coalesce($9, stage), assignee_id = coalesce($10, assignee_id)
      where s.id = $1 and s.team_id = $11 and s.status = 'received'
      returning s.team_id, s.form_id, s.received_at, s.id, 'received'::text as was, s.status as becomes),
     ${countingChanges('$11', 'select exists (select 1 from changed) as settled', sql.distributed)}`,
    [
      submissionId,
      v.status,
      v.spamReason,
      v.category,
      JSON.stringify(v.moderation),
      v.autoresponse && JSON.stringify(v.autoresponse),
      v.rulesApplied && JSON.stringify(v.rulesApplied),
      v.triage.tags ?? null,
      v.triage.stage ?? null,
      v.triage.assigneeId ?? null,
      teamId,
    ],
  );
  return rows[0]!.settled;
}

/** The rules' record and triage on a submission they have not run on yet (spam stored at the door); false otherwise. */
export async function recordRules(
  sql: Sql,
  teamId: string,
  submissionId: string,
  v: Pick<ProcessingVerdict, 'rulesApplied' | 'triage'>,
): Promise<boolean> {
  const { rowCount } = await sql.query(
    `update submissions set rules_applied = $2::jsonb, tags = coalesce($3::text[], tags), stage = coalesce($4, stage),
            assignee_id = coalesce($5, assignee_id), updated_at = now()
      where id = $1 and team_id = $6 and rules_applied is null`,
    [
      submissionId,
      JSON.stringify(v.rulesApplied ?? []),
      v.triage.tags ?? null,
      v.triage.stage ?? null,
      v.triage.assigneeId ?? null,
      teamId,
    ],
  );
  return rowCount > 0;
}

export async function recordProcessingError(
  sql: Sql,
  teamId: string,
  submissionId: string,
  reason: string,
): Promise<void> {
  await sql.query(
    `update submissions set metadata = jsonb_set(metadata, '{processing_error}', to_jsonb($2::text))
      where id = $1 and team_id = $3 and status = 'received'`,
    [submissionId, reason, teamId],
  );
}

/** `failed`, keeping the last attempt's error (or saying it timed out). */
export async function markFailed(sql: Sql, teamId: string, submissionId: string): Promise<boolean> {
  const { rowCount } = await sql.query(
    `update submissions
        set status = 'failed', updated_at = now(),
            metadata = jsonb_set(metadata, '{processing_error}', coalesce(metadata->'processing_error', '"processing timed out"'::jsonb))
      where id = $1 and team_id = $2 and status = 'received'`,
    [submissionId, teamId],
  );
  return rowCount > 0;
}

/**
 * An ETag's version moves on with every change, even two in the same microsecond. Immutable arithmetic (UTC
 * timestamps) beside the statement's time: Citus refuses volatile functions in an update, and stable ones
 * over its columns.
 */
const TOUCH = `greatest(statement_timestamp(), ((s.updated_at at time zone 'UTC') + interval '1 microsecond') at time zone 'UTC')`;

/** A submission's triage after a change: each field given is set (`assigneeId` null unassigns). */
export type TriageSet = { id: string; tags?: string[]; stage?: string; assigneeId?: string | null };

/** Sets each of the team's submissions' triage fields in one statement. */
export async function setTriage(sql: Sql, teamId: string, sets: TriageSet[]): Promise<void> {
  if (!sets.length) return;
  const rows = sets.map((t) => ({
    id: t.id,
    tags: t.tags ?? null,
    stage: t.stage ?? null,
    set_assignee: t.assigneeId !== undefined,
    assignee_id: t.assigneeId ?? null,
  }));
  await sql.query(
    `update submissions s
        set tags = coalesce(v.tags, s.tags), stage = coalesce(v.stage, s.stage),
            assignee_id = case when v.set_assignee then v.assignee_id else s.assignee_id end, updated_at = ${TOUCH}
       from jsonb_to_recordset($1::jsonb) as v(id text, tags text[], stage text, set_assignee boolean, assignee_id text)
      where s.id = v.id and s.team_id = $2`,
    [JSON.stringify(rows), teamId],
  );
}

/** A note was added (+1) or deleted (-1): the count and the version move on. */
export async function countNote(sql: Sql, teamId: string, id: string, delta: 1 | -1): Promise<void> {
  await sql.query(
    `update submissions s set notes_count = s.notes_count + $2, updated_at = ${TOUCH} where s.id = $1 and s.team_id = $3`,
    [id, delta, teamId],
  );
}

/** A triage change as its audit event records it: one field, from and to. */
export type TriageEvent = { submissionId: string; field: string; from: unknown; to: unknown };

/**
 * Audit events of triage changes (action `triage`, `changes` `{ <field>: { from, to } }`), one per change,
 * inserted as VALUES (docs/decisions.md, "Inserts on Citus").
 */
export async function insertTriageEvents(
  sql: Sql,
  actor: { teamId: string; userId: string | null; tokenId: string | null },
  events: Array<TriageEvent & { id: string }>,
): Promise<void> {
  const lists = valuesLists(
    events,
    (e, p) =>
      `(${p(e.id)}, $1, ${p(e.submissionId)}, $2, $3, 'triage', ${p(JSON.stringify({ [e.field]: { from: e.from ?? null, to: e.to ?? null } }))}::jsonb)`,
    [actor.teamId, actor.userId, actor.tokenId],
  );
  for (const { rows, values } of lists)
    await sql.query(
      `insert into submission_events (id, team_id, submission_id, actor_user_id, actor_token_id, action, changes)
       values ${rows}`,
      values,
    );
}

/** Which of `keys` hold any of the team's form's submissions (spam included). */
export async function stagesInUse(sql: Sql, teamId: string, formId: string, keys: string[]): Promise<string[]> {
  const { rows } = await sql.query<{ key: string }>(
    `select k.key from unnest($2::text[]) as k(key)
      where exists (select 1 from submissions s where s.form_id = $1 and s.team_id = $3 and s.stage = k.key)`,
    [formId, keys, teamId],
  );
  return rows.map((r) => r.key);
}

/** Submissions one statement of reassignStages moves on Citus. */
const STAGE_MOVES_PER_STATEMENT = 5_000;

/**
 * Moves the form's submissions out of removed stages (`moves`: from → to), recording a triage event on each
 * with the caller as its actor. Answers how many moved. The events' ids are `evt_` and a random UUID's hex, not
 * the ULID of newId (no answer shows them): on plain Postgres one statement moves every submission and makes
 * their events; on Citus the events are inserted as VALUES (docs/decisions.md, "Inserts on Citus"), after
 * each statement's STAGE_MOVES_PER_STATEMENT moves.
 */
export async function reassignStages(
  sql: Sql,
  formId: string,
  moves: Record<string, string>,
  actor: { teamId: string; userId: string; tokenId: string },
): Promise<number> {
  const move = `update submissions s set stage = m.value, updated_at = ${TOUCH}
                  from jsonb_each_text($2::jsonb) as m(key, value)
                 where s.form_id = $1 and s.team_id = $3 and s.stage = m.key`;
  const moved = 'returning s.id, m.key as from_stage, m.value as to_stage';
  if (!sql.distributed) {
    const { rows } = await sql.query<{ n: number }>(
      `with moved as (${move} ${moved}),
       audited as (
         insert into submission_events (id, team_id, submission_id, actor_user_id, actor_token_id, action, changes)
         select 'evt_' || lower(replace(gen_random_uuid()::text, '-', '')), $3, id, $4, $5, 'triage',
                jsonb_build_object('stage', jsonb_build_object('from', from_stage, 'to', to_stage))
           from moved)
       select count(*)::int as n from moved`,
      [formId, JSON.stringify(moves), actor.teamId, actor.userId, actor.tokenId],
    );
    return rows[0]!.n;
  }
  let n = 0;
  for (;;) {
    const { rows } = await sql.query<{ id: string; from_stage: string; to_stage: string }>(
      `${move} and s.id in (select id from submissions where form_id = $1 and team_id = $3
                              and stage in (select jsonb_object_keys($2::jsonb)) limit $4)
       ${moved}`,
      [formId, JSON.stringify(moves), actor.teamId, STAGE_MOVES_PER_STATEMENT],
    );
    if (!rows.length) return n;
    n += rows.length;
    await insertTriageEvents(
      sql,
      actor,
      rows.map((r) => ({
        id: `evt_${randomUUID().replaceAll('-', '')}`,
        submissionId: r.id,
        field: 'stage',
        from: r.from_stage,
        to: r.to_stage,
      })),
    );
  }
}

/** The team's form's inbox submissions per stage other than `new` (the stage index holds only those). */
export async function stageCounts(sql: Sql, teamId: string, formId: string): Promise<Map<string, number>> {
  const { rows } = await sql.query<{ stage: string; n: number }>(
    `select s.stage, count(*)::int as n from submissions s
      where s.form_id = $1 and s.team_id = $2 and s.stage <> 'new' and s.status <> 'spam' group by s.stage`,
    [formId, teamId],
  );
  return new Map(rows.map((r) => [r.stage, r.n]));
}

/** The tags of the team's form's inbox submissions with their counts, the most used first. */
export async function tagCounts(
  sql: Sql,
  teamId: string,
  formId: string,
  limit: number,
): Promise<Array<{ tag: string; count: number }>> {
  const { rows } = await sql.query<{ tag: string; count: number }>(
    `select t.tag, count(*)::int as count from submissions s, unnest(s.tags) as t(tag)
      where s.form_id = $1 and s.team_id = $3 and s.tags <> '{}' and s.status <> 'spam'
      group by t.tag order by count desc, t.tag limit $2`,
    [formId, limit, teamId],
  );
  return rows;
}
