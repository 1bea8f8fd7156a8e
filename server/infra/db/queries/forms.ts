/** The owner of `forms`, and of what hangs off one form: its learned fields and folder counters. */
import { LockMode, type InferEntity } from '@mikro-orm/core';
import type { Sql, Tx } from '../database.ts';
import { valuesLists } from '../values.ts';
import { Form } from '../entities.ts';
import { entityManager } from './entity-manager.ts';
import { windowHit } from './rate-windows.ts';

export type FormRecord = InferEntity<typeof Form>;

/** What an editor may change on a form; the rest is kept. */
export type FormChanges = Partial<
  Pick<FormRecord, 'name' | 'status' | 'notificationEmails' | 'settings' | 'deletedAt'>
>;

const ofTeam = (teamId: string, id: string, opts: { trashed?: boolean }) => ({
  id,
  teamId,
  ...(opts.trashed ? {} : { deletedAt: null }),
});

/** A form of the team: live ones only, unless `trashed`. */
export async function findForm(
  on: Sql,
  teamId: string,
  id: string,
  opts: { trashed?: boolean } = {},
): Promise<FormRecord | null> {
  return entityManager(on).findOne(Form, ofTeam(teamId, id, opts));
}

/** A form of the team, live or trashed, its row locked until the transaction ends. */
export async function lockForm(tx: Tx, teamId: string, id: string): Promise<FormRecord | null> {
  return entityManager(tx).findOne(Form, { id, teamId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

/** One page of the team's forms, newest first, and how many there are in all. */
export async function pageOfForms(
  on: Sql,
  teamId: string,
  page: { trashed?: 'with' | 'only'; limit: number; offset: number },
): Promise<{ forms: FormRecord[]; total: number }> {
  const where = {
    teamId,
    ...(page.trashed === 'only' ? { deletedAt: { $ne: null } } : page.trashed === 'with' ? {} : { deletedAt: null }),
  };
  const [forms, total] = await entityManager(on).findAndCount(Form, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: page.limit,
    offset: page.offset,
  });
  return { forms, total };
}

export async function insertForm(
  tx: Tx,
  f: { id: string; teamId: string; name: string; notificationEmails: string[]; settings: Record<string, unknown> },
): Promise<FormRecord> {
  const form = entityManager(tx).create(Form, {
    ...f,
    status: 'draft',
    createdAt: new Date(),
    updatedAt: new Date(),
    deletedAt: null,
  });
  await entityManager(tx).flush();
  await tx.query('insert into form_teams (form_id, team_id) values ($1, $2)', [f.id, f.teamId]);
  return form;
}

/** Changes a form of the team (live ones only, unless `trashed`); null when there is none. */
export async function updateForm(
  on: Sql,
  teamId: string,
  id: string,
  changes: FormChanges,
  opts: { trashed?: boolean } = {},
): Promise<FormRecord | null> {
  const em = entityManager(on);
  // In a transaction that already read the form, this finds it in the unit of work without a query.
  const form = await em.findOne(Form, ofTeam(teamId, id, opts));
  if (!form) return null;
  Object.assign(form, changes);
  await em.flush();
  return form;
}

/** Erases the form's row (its submissions, files and events cascade) and its entry in `form_teams`. */
export async function deleteForm(sql: Sql, teamId: string, id: string): Promise<void> {
  await sql.query('delete from forms where id = $1 and team_id = $2', [id, teamId]);
  await sql.query('delete from form_teams where form_id = $1', [id]);
}

export async function countLiveForms(sql: Sql, teamId: string): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(
    'select count(*)::int as n from forms where team_id = $1 and deleted_at is null',
    [teamId],
  );
  return rows[0]!.n;
}

/** Submissions per form, from the per-folder counters (kept exact by triggers). */
export async function submissionCounts(sql: Sql, teamId: string, formIds: string[]): Promise<Map<string, number>> {
  if (!formIds.length) return new Map();
  const { rows } = await sql.query<{ form_id: string; n: number }>(
    'select form_id, sum(n)::int as n from form_folder_counts where form_id = any($1::text[]) and team_id = $2 group by form_id',
    [formIds, teamId],
  );
  return new Map(rows.map((r) => [r.form_id, r.n]));
}

/** Whether the form is a live form of the team (every submission route starts here). */
export async function isLiveForm(sql: Sql, teamId: string, formId: string): Promise<boolean> {
  const { rowCount } = await sql.query('select 1 from forms where id = $1 and team_id = $2 and deleted_at is null', [
    formId,
    teamId,
  ]);
  return rowCount > 0;
}

/** The settings of a live form of the team; undefined for another team's, a trashed or an unknown form. */
export async function liveFormSettings(
  sql: Sql,
  teamId: string,
  formId: string,
): Promise<{ settings: unknown } | undefined> {
  const { rows } = await sql.query<{ settings: unknown }>(
    'select settings from forms where id = $1 and team_id = $2 and deleted_at is null',
    [formId, teamId],
  );
  return rows[0];
}

export async function formStorageKeys(sql: Sql, teamId: string, formId: string): Promise<string[]> {
  const { rows } = await sql.query<{ storage_key: string }>(
    'select storage_key from submission_files where form_id = $1 and team_id = $2',
    [formId, teamId],
  );
  return rows.map((r) => r.storage_key);
}

/**
 * Lets this transaction's statements run for up to `seconds` (DATABASE_STATEMENT_TIMEOUT_MS bounds
 * ordinary ones): erasing a form of a million submissions cascades through every row beneath it.
 */
export async function allowLongStatements(tx: Tx, seconds: number): Promise<void> {
  await tx.query(`select set_config('statement_timeout', $1, true)`, [`${seconds}s`]);
}

/** The folder counters of an erased form (its submissions cascade with its row; the counters do not). */
export async function eraseFormCounters(sql: Sql, teamId: string, formId: string): Promise<void> {
  await sql.query('delete from form_folder_counts where form_id = $1 and team_id = $2', [formId, teamId]);
}

export type FieldRow = { name: string; first_seen_at: string };

export async function learnedFields(sql: Sql, teamId: string, formId: string): Promise<FieldRow[]> {
  const { rows } = await sql.query<FieldRow>(
    'select name, first_seen_at from form_fields where form_id = $1 and team_id = $2 order by first_seen_at, ordinal, name',
    [formId, teamId],
  );
  return rows;
}

export async function fieldState(
  sql: Sql,
  teamId: string,
  formId: string,
): Promise<{ count: number; overflow: boolean }> {
  const { rows } = await sql.query<{ count: number; overflow: boolean }>(
    'select field_count as count, fields_overflow as overflow from forms where id = $1 and team_id = $2',
    [formId, teamId],
  );
  return rows[0] ?? { count: 0, overflow: false };
}

/**
 * Forgets learned names no stored submission has, learns (up to the limit) names they have, and recounts, with
 * the form row locked `for no key update` so no post learns halfway while posts that learn nothing go on.
 * Returns the names forgotten.
 */
export async function pruneFields(sql: Sql, teamId: string, formId: string): Promise<string[]> {
  await sql.query('select 1 from forms where id = $1 and team_id = $2 for no key update', [formId, teamId]);
  await sql.query(
    `create temporary table used_fields on commit drop as
       select k as name, min(s.received_at) as first_seen_at from submissions s, jsonb_object_keys(s.payload) k
        where s.form_id = $1 and s.team_id = $2 group by k`,
    [formId, teamId],
  );
  const { rows } = await sql.query<{ name: string }>(
    `delete from form_fields f where f.form_id = $1 and f.team_id = $2 and f.name <> all(array(select name from used_fields))
     returning f.name`,
    [formId, teamId],
  );
  // Up to the limit, in the order the stored submissions first brought them: the names kept are read first and
  // the new ones inserted as VALUES (Citus joins no temporary table with a distributed one in a statement).
  const { rows: kept } = await sql.query<{ name: string }>(
    'select name from form_fields where form_id = $1 and team_id = $2',
    [formId, teamId],
  );
  const { rows: added } = await sql.query<{ name: string; first_seen_at: Date }>(
    `select u.name, u.first_seen_at from used_fields u
      where u.name <> all($1::text[]) order by u.first_seen_at, u.name limit $2`,
    [kept.map((k) => k.name), Math.max(0, FORM_FIELD_LIMIT - kept.length)],
  );
  const lists = valuesLists(added, (u, p) => `($1, $2, ${p(u.name)}, ${p(u.first_seen_at)}::timestamptz)`, [
    teamId,
    formId,
  ]);
  for (const list of lists)
    await sql.query(
      `insert into form_fields (team_id, form_id, name, first_seen_at) values ${list.rows} on conflict do nothing`,
      list.values,
    );
  await sql.query(
    `update forms set field_count = (select count(*) from form_fields where form_id = $1 and team_id = $2)
      where id = $1 and team_id = $2`,
    [formId, teamId],
  );
  await sql.query(
    `update forms set fields_overflow = exists (
       select 1 from used_fields u
        where u.name <> all(array(select name from form_fields f where f.form_id = $1 and f.team_id = $2)))
      where id = $1 and team_id = $2`,
    [formId, teamId],
  );
  return rows.map((r) => r.name).sort();
}

/** A payload as stored JSON text, with the fields its files came in and its keyset position. */
export type PayloadPageRow = { payload: string; file_fields: string[]; at: string; id: string };
/** A page's place in a newest-first walk: the last row's receipt time (as text: microseconds kept) and id. */
export type PayloadCursor = { at: string; id: string };

/**
 * The form's inbox payloads after `after`, newest first: at most `rows`, and no more once their stored
 * (possibly compressed) sizes pass `bytes` — the first is always in.
 */
export async function recentPayloadPage(
  sql: Sql,
  teamId: string,
  formId: string,
  after: PayloadCursor | null,
  rows: number,
  bytes: number,
): Promise<PayloadPageRow[]> {
  const { rows: page } = await sql.query<PayloadPageRow>(
    `select payload::text as payload, at, id,
            coalesce((select array_agg(f.field) from submission_files f where f.submission_id = p.id and f.team_id = $6), '{}') as file_fields
       from (select *, sum(size) over (order by received_at desc, id desc) - size as before
               from (select s.id, s.received_at, s.received_at::text as at, s.payload, pg_column_size(s.payload) as size
                       from submissions s
                      where s.form_id = $1 and s.team_id = $6 and s.status <> 'spam' and ($2::timestamptz is null or (s.received_at, s.id) < ($2::timestamptz, $3))
                      order by s.received_at desc, s.id desc limit $4) newest) p
      where before < $5
      order by received_at desc, id desc`,
    [formId, after?.at ?? null, after?.id ?? null, rows, bytes, teamId],
  );
  return page;
}

/** The form as the public endpoint, `POST /f/{form}`, sees it: the hottest path, so every statement is prepared. */
/** The clean submissions a form keeps, as its folder counters say (exact; spam and deleted ones are not there). */
export const KEPT_SUBMISSIONS = (form: string, team: string) =>
  `(select coalesce(sum(c.n), 0) from form_folder_counts c where c.form_id = ${form} and c.team_id = ${team} and c.folder = 'inbox')`;

/** A live form's settings (any status), or undefined. */
export async function findFormSettings(
  sql: Sql,
  teamId: string,
  formId: string,
): Promise<{ team_id: string; settings: unknown } | undefined> {
  const { rows } = await sql.query<{ team_id: string; settings: unknown }>(
    'select team_id, settings from forms where id = $1 and team_id = $2 and deleted_at is null',
    [formId, teamId],
  );
  return rows[0];
}

export type PublicFormRow = {
  id: string;
  team_id: string;
  settings: unknown;
  monthly_submissions: number | null;
  file_uploads: boolean;
  max_file_bytes: string;
  storage_bytes: string | null;
  /** How many notification addresses the form has. */
  notification_count: number;
  /** The clean submissions it keeps, when it has a `max_submissions` (null otherwise). */
  kept: number | null;
  /** An enabled rule of the form runs on spam. */
  spam_rules: boolean;
};

const PUBLIC_FORM = `select f.id, f.team_id, f.settings, f.spam_rules, cardinality(f.notification_emails) as notification_count, p.monthly_submissions, p.file_uploads, p.max_file_bytes, p.storage_bytes,
        case when f.settings->>'max_submissions' is null then null else ${KEPT_SUBMISSIONS('f.id', '$2::text')}::int end as kept
   from forms f join teams t on t.id = f.team_id join plans p on p.id = t.plan_id
  where f.id = $1 and f.team_id = $2 and t.id = $2 and f.status = 'published' and f.deleted_at is null`;

/** The team of a form (`form_teams`), undefined for an id no form ever had. */
export async function findTeamOfForm(sql: Sql, formId: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ team_id: string }>(
    'select team_id from form_teams where form_id = $1',
    [formId],
    'intake_team_of_form',
  );
  return rows[0]?.team_id;
}

export async function findPublicForm(sql: Sql, teamId: string, formId: string): Promise<PublicFormRow | undefined> {
  const { rows } = await sql.query<PublicFormRow>(PUBLIC_FORM, [formId, teamId], 'intake_public_form');
  return rows[0];
}

/** 'draft' or 'published' for a live form, null for an unknown or deleted one. */
export async function formStatus(sql: Sql, teamId: string, formId: string): Promise<string | null> {
  const { rows } = await sql.query<{ status: string }>(
    'select status from forms where id = $1 and team_id = $2 and deleted_at is null',
    [formId, teamId],
  );
  return rows[0]?.status ?? null;
}

export type OpenedFormRow = PublicFormRow & { hits: number; reset: number; used: number | null };

/**
 * In one round trip before the body is read: the form a post is for, the post counted in its client's
 * per-minute window (`$2`), and the team's usage in the period `$3` when the plan has a quota.
 */
export async function openPublicForm(
  sql: Sql,
  teamId: string,
  formId: string,
  windowKey: string | null,
  periodStart: Date,
): Promise<OpenedFormRow | undefined> {
  const { rows } = await sql.query<OpenedFormRow>(
    `with form as (${PUBLIC_FORM}),
      hit as (${windowHit('$3::text', '60', 'from form where $3::text is not null')}),
      usage as (select coalesce(sum(u.submissions), 0)::int as used from usage_counters u where u.team_id = $2 and u.period_start = $4)
      select form.*, coalesce(hit.hits, 0) as hits, coalesce(hit.reset, 0) as reset,
             case when form.monthly_submissions is null then null else usage.used end as used
        from form left join hit on true cross join usage`,
    [formId, teamId, windowKey, periodStart],
    'intake_open_public_form',
  );
  return rows[0];
}

export async function setNotificationEmails(sql: Sql, teamId: string, formId: string, emails: string[]): Promise<void> {
  await sql.query('update forms set notification_emails = $2, updated_at = now() where id = $1 and team_id = $3', [
    formId,
    emails,
    teamId,
  ]);
}

/** The most field names a form learns (its export columns); later names export in `_other`. */
export const FORM_FIELD_LIMIT = 500;

/**
 * The rest of a statement learning field names, after its CTEs `new_names` (team_id, form_id, name, ord, seq:
 * names not known yet, ordered by seq then ord) and `learning` (id, team_id, field_count: the forms locked to
 * learn): each form takes names up to FORM_FIELD_LIMIT (`fields`), counts them, and notes that more came
 * (`learned`). `team`: the forms' team, when the statement is one team's (it routes the update on Citus).
 */
export const learningNames = (team: string | null) => `
  ranked as (
    select n.team_id, n.form_id, n.name, n.ord, l.field_count,
           row_number() over (partition by n.form_id, n.team_id order by n.seq, n.ord) as k
      from new_names n join learning l on l.id = n.form_id and l.team_id = n.team_id),
  fields as (
    insert into form_fields (team_id, form_id, name, ordinal)
    select team_id, form_id, name, ord from ranked where k <= ${FORM_FIELD_LIMIT} - field_count order by form_id, k
    on conflict do nothing
    returning team_id, form_id, name),
  learned as (
    update forms f set field_count = f.field_count + o.n, fields_overflow = f.fields_overflow or o.over
      from (select r.form_id, r.team_id, count(i.name)::int as n, bool_or(r.k > ${FORM_FIELD_LIMIT} - r.field_count) as over
              from ranked r left join fields i on i.form_id = r.form_id and i.team_id = r.team_id and i.name = r.name
             group by 1, 2) o
     where f.id = o.form_id and f.team_id = o.team_id${team ? ` and f.team_id = ${team}` : ''})`;

/**
 * Field names a form has seen, in first-seen order (export columns), learned under the form's lock (in the
 * caller's transaction): names are inserted as VALUES, which Citus routes to the team's shard (docs/decisions.md,
 * "Inserts on Citus"), up to FORM_FIELD_LIMIT; past it the form notes that more came. `ifFree`: learn nothing
 * rather than wait while another transaction holds the form's row (a post never waits: LEARNING in
 * submission-inserts.ts).
 */
export async function recordFieldNames(
  tx: Sql,
  teamId: string,
  formId: string,
  names: string[],
  opts: { ifFree?: boolean } = {},
): Promise<void> {
  const { rows: form } = await tx.query<{ field_count: number }>(
    `select field_count from forms where id = $1 and team_id = $2 for no key update${opts.ifFree ? ' skip locked' : ''}`,
    [formId, teamId],
  );
  if (!form[0]) return;
  const { rows: known } = await tx.query<{ name: string }>(
    'select name from form_fields where form_id = $1 and team_id = $2 and name = any($3::text[])',
    [formId, teamId, names],
  );
  const seen = new Set(known.map((k) => k.name));
  const fresh = names.map((name, i) => ({ name, ordinal: i + 1 })).filter((f) => !seen.has(f.name));
  if (!fresh.length) return;
  const room = Math.max(0, FORM_FIELD_LIMIT - form[0].field_count);
  const taken = fresh.slice(0, room);
  let learned = 0;
  for (const list of valuesLists(taken, (f, p) => `($1, $2, ${p(f.name)}, ${p(f.ordinal)}::int)`, [teamId, formId])) {
    const { rowCount } = await tx.query(
      `insert into form_fields (team_id, form_id, name, ordinal) values ${list.rows} on conflict do nothing`,
      list.values,
    );
    learned += rowCount;
  }
  await tx.query(
    `update forms set field_count = field_count + $3, fields_overflow = fields_overflow or $4
      where id = $1 and team_id = $2`,
    [formId, teamId, learned, fresh.length > room],
  );
}

export type CounterDay = { team_id: string; form_id: string; folder: 'inbox' | 'spam'; day: string };

/** Finished days (UTC) whose counters are still spread over shards, in key order after `after`: what compaction folds. */
export async function spreadCounterDays(sql: Sql, after: CounterDay | null, limit: number): Promise<CounterDay[]> {
  const { rows } = await sql.query<CounterDay>(
    `select team_id, form_id, folder, to_char(day, 'YYYY-MM-DD') as day from form_folder_counts
      where shard <> 0 and day < (now() at time zone 'UTC')::date and ($1::text is null or (form_id, folder, day) > ($1, $2, $3::date))
      group by 1, 2, 3, 4 order by 2, 3, 4 limit $4`,
    [after?.form_id ?? null, after?.folder ?? null, after?.day ?? null, limit],
  );
  return rows;
}

/**
 * Folds one day's shards into shard 0 (which triggers never write) and drops a day that counts nothing. It never
 * waits for a writer, so cannot deadlock: held shards wait for the next run, a form being erased is skipped whole.
 */
export async function foldCounterDay(tx: Sql, d: CounterDay): Promise<void> {
  const key = [d.form_id, d.folder, d.day, d.team_id];
  const live = await tx.query('select 1 from forms where id = $1 and team_id = $2 for key share skip locked', [
    d.form_id,
    d.team_id,
  ]);
  if (!live.rowCount) return;
  const { rows: spread } = await tx.query<{ n: number }>(
    `delete from form_folder_counts where form_id = $1 and folder = $2 and day = $3::date and team_id = $4 and shard in (
       select shard from form_folder_counts
        where form_id = $1 and folder = $2 and day = $3::date and team_id = $4 and shard <> 0 for update skip locked)
     returning n`,
    key,
  );
  if (spread.length)
    await tx.query(
      `insert into form_folder_counts (team_id, form_id, folder, day, shard, n) values ($4, $1, $2, $3::date, 0, $5::int)
       on conflict (form_id, folder, day, shard, team_id) do update set n = form_folder_counts.n + excluded.n`,
      [...key, spread.reduce((sum, r) => sum + r.n, 0)],
    );
  await tx.query(
    'delete from form_folder_counts where form_id = $1 and folder = $2 and day = $3::date and team_id = $4 and shard = 0 and n = 0',
    key,
  );
}

/** Records on the form whether any of its enabled rules runs on spam (read by the public endpoint). */
export async function recordSpamRules(sql: Sql, teamId: string, formId: string): Promise<void> {
  await sql.query(
    `update forms f set spam_rules = not f.spam_rules
      where f.id = $1 and f.team_id = $2 and f.spam_rules <> exists (
        select 1 from form_rules r where r.form_id = $1 and r.team_id = $2 and r.enabled and r.on_event = 'submission.spam')`,
    [formId, teamId],
  );
}
