/**
 * Stores an accepted public post — row, files, counters, idempotency key, job — in one prepared statement,
 * through a group commit. Owns `idempotency_keys` and `usage_counters`; also inserts into submissions,
 * submission_files and form_fields, the documented exception to one owner per table (docs/architecture.md).
 */
import type { Db, Sql } from '../database.ts';
import { parameters, valuesLists } from '../values.ts';
import { GroupCommit } from '../../group-commit.ts';
import { KEPT_SUBMISSIONS, learningNames, recordFieldNames } from './forms.ts';
import { FOLDER_SHARD, folderOf } from './submissions.ts';
import { nextStreamSeq, numberStreamEvents, numbering } from './stream-heads.ts';

/**
 * A post adds to its backend's counter row: a backend runs one transaction at a time, so posts rarely meet
 * on a row. Updated in place, not upserted: an upsert also logs a row lock (docs/decisions.md).
 */
const USAGE_SHARD = '(pg_backend_pid() % 1024)';

/** A post's day in its folder's counters (its received_at is the transaction's time). */
const TODAY = "(now() at time zone 'UTC')::date";

// LEARNING: a new field name is learned in the accepting statement under the form row's lock (learningNames
// in forms.ts counts names), but only if that lock is free (`skip locked`): the process's posts share one
// statement and must not wait on one form. A name skipped here is learned by the process-submission job.

// ROUTED: on Citus (`sql.distributed`) every row is inserted as VALUES (docs/decisions.md, "Inserts on Citus"):
// counters are upserted; the statement says whether the post brought new field names, which are then learned
// in a transaction of their own (recordFieldNames); door spam is numbered in its stream by a second statement,
// so the caller runs a spam post in a transaction there.

/** How long an Idempotency-Key holds its first submission. */
const IDEMPOTENCY_WINDOW = "interval '24 hours'";

/**
 * A key claimed again after its window holds the new submission. Written with the rows' own times, not now():
 * Citus takes only immutable functions in an upsert's update and its condition.
 */
const RECLAIM_EXPIRED_KEY = `on conflict (form_id, key, team_id) do update
         set submission_id = excluded.submission_id, created_at = excluded.created_at
       where excluded.created_at - idempotency_keys.created_at >= ${IDEMPOTENCY_WINDOW}`;

export async function findIdempotent(
  sql: Sql,
  teamId: string,
  formId: string,
  keyHash: string,
): Promise<string | null> {
  const { rows } = await sql.query<{ submission_id: string }>(
    `select submission_id from idempotency_keys
      where form_id = $1 and team_id = $3 and key = $2 and created_at > now() - ${IDEMPOTENCY_WINDOW}`,
    [formId, keyHash, teamId],
    'intake_find_idempotent',
  );
  return rows[0]?.submission_id ?? null;
}

export type FileInsert = {
  id: string;
  field: string;
  filename: string;
  contentType: string;
  size: number;
  storageKey: string;
};

export type SubmissionInsert = {
  id: string;
  teamId: string;
  formId: string;
  status: 'received' | 'spam';
  spamReason: string | null;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
  files: FileInsert[];
  /** Hash of the Idempotency-Key, claimed for this submission. */
  idempotencyKey: string | null;
  usagePeriod: Date;
  /** The plan's monthly limit: the statement aborts when the period's usage has reached it. */
  monthlyLimit: number | null;
  /** The form's `max_submissions` (clean posts only): the statement aborts when the form keeps that many. */
  entryLimit: number | null;
  /** The keys of the form's unique rules this (clean) post claims: the statement aborts when one is held. */
  uniqueKeys: UniqueKeyClaim[];
  /** The token of a server-side submit; null for the public endpoint. */
  apiTokenId: string | null;
  /** The form's first stage. */
  stage: string;
};

export type UniqueKeyClaim = { key: string; holdDays: number | null };

/** SQLSTATEs raised by intake_guard() (migration 0002) to abort the accepting statement. */
export const QUOTA_EXCEEDED = 'IQ001';
export const KEY_HELD = 'IK001';
export const LIMIT_REACHED = 'IL001';

/**
 * A key another submission holds: the primary key of `submission_unique_keys` refused the claim (a plain insert,
 * the cheapest write: no speculative insertion), aborting the accepting statement.
 */
export function isDuplicate(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e.code === '23505' && e.constraint) return e.constraint === 'submission_unique_keys_pkey';
  // On Citus a shard's error names its own constraint (`submission_unique_keys_pkey_102008`) in the message only:
  // 23505 for a row inserted as VALUES, XX000 for rows sent by COPY.
  return (
    (e.code === '23505' || e.code === 'XX000') &&
    /unique constraint "submission_unique_keys_pkey_\d+"/.test(e.message ?? '')
  );
}

/**
 * Stores an accepted submission in ONE statement, so all of it commits before the 2xx; its job is pg-boss's
 * own insert as a CTE (`job.text`, parameter `$1`). A spent quota or a key another post holds aborts it whole.
 * On Citus door spam takes a second statement (ROUTED): `sql` is then a transaction.
 */
export async function insertSubmission(
  sql: Sql,
  s: SubmissionInsert,
  job: JobInsert | null,
): Promise<Filled & { unlearned: boolean }> {
  // With a job, `$1` is pg-boss's parameter and ours follow it.
  const { values, p } = parameters(job ? [job.value] : []);
  const team = p(s.teamId);
  const form = p(s.formId);
  const period = p(s.usagePeriod);
  const id = p(s.id);
  const ctes = [
    `submission as (
       insert into submissions (id, team_id, form_id, status, spam_reason, payload, metadata, api_token_id, stage)
       values (${id}, ${team}, ${form}, ${p(s.status)}, ${p(s.spamReason)}, ${p(JSON.stringify(s.payload))}, ${p(JSON.stringify(s.metadata))}, ${p(s.apiTokenId)}, ${p(s.stage)}))`,
  ];
  // Spam stored at the door is an event of the submission stream at once: it takes its form's next number (on
  // Citus by the statement after this one, as VALUES: ROUTED).
  const routed = sql.distributed;
  if (s.status === 'spam' && !routed)
    ctes.push(`head as (${nextStreamSeq(form, team)})`, `numbered as (${numbering(form, team, `array[${id}]`)})`);
  const folder = `'${s.status === 'spam' ? 'spam' : 'inbox'}'`;
  if (routed) {
    ctes.push(
      `usage as (
         insert into usage_counters (team_id, period_start, shard, submissions) values (${team}, ${period}, ${USAGE_SHARD}, 1)
         on conflict (team_id, period_start, shard) do update set submissions = usage_counters.submissions + 1
         returning 1)`,
      `folder_counted as (
         insert into form_folder_counts (team_id, form_id, folder, day, shard, n)
         values (${team}, ${form}, ${folder}, ${TODAY}, ${FOLDER_SHARD}, 1)
         on conflict (form_id, folder, day, shard, team_id) do update set n = form_folder_counts.n + 1)`,
    );
  } else
    ctes.push(
      `bumped as (
       update usage_counters set submissions = submissions + 1
        where team_id = ${team} and period_start = ${period} and shard = ${USAGE_SHARD}
       returning 1)`,
      `first_of_shard as (
       insert into usage_counters (team_id, period_start, shard, submissions)
       select ${team}, ${period}, ${USAGE_SHARD}, 1 where not exists (select 1 from bumped)
       on conflict (team_id, period_start, shard) do update set submissions = usage_counters.submissions + 1
       returning 1)`,
      `usage as (select 1 from bumped union all select 1 from first_of_shard)`,
      `folder_bumped as (
       update form_folder_counts set n = n + 1
        where form_id = ${form} and folder = ${folder} and day = ${TODAY} and shard = ${FOLDER_SHARD} and team_id = ${team}
       returning 1)`,
      `folder_first as (
       insert into form_folder_counts (team_id, form_id, folder, day, shard, n)
       select ${team}, ${form}, ${folder}, ${TODAY}, ${FOLDER_SHARD}, 1
        where not exists (select 1 from folder_bumped)
       on conflict (form_id, folder, day, shard, team_id) do update set n = form_folder_counts.n + 1)`,
    );
  // Spam teaches the form no field names. Known names are filtered out first: only a post bringing a new
  // name takes its form row's lock — see LEARNING. On Citus they are learned after the statement (ROUTED).
  if (s.status !== 'spam' && !routed) {
    ctes.push(
      `new_names as (
         select ${team}::text as team_id, ${form}::text as form_id, f.name, f.ord, 0 as seq
           from unnest(${p(Object.keys(s.payload))}::text[]) with ordinality as f(name, ord)
           left join form_fields k on k.form_id = ${form} and k.team_id = ${team} and k.name = f.name
          where k.name is null)`,
      `learning as (
         select id, team_id, field_count from forms where id = ${form} and team_id = ${team} and exists (select 1 from new_names)
         for no key update skip locked)`,
      learningNames(team),
    );
  }
  if (s.files.length && routed) {
    const rows = s.files.map(
      (f) =>
        `(${p(f.id)}, ${team}, ${form}, ${id}, ${p(f.field)}, ${p(f.filename)}, ${p(f.contentType)}, ${p(f.size)}::bigint, ${p(f.storageKey)})`,
    );
    ctes.push(`files as (
       insert into submission_files (id, team_id, form_id, submission_id, field, filename, content_type, size_bytes, storage_key)
       values ${rows.join(', ')})`);
  } else if (s.files.length) {
    const col = (f: (u: FileInsert) => unknown, type: string) => `${p(s.files.map(f))}::${type}[]`;
    ctes.push(`files as (
       insert into submission_files (id, team_id, form_id, submission_id, field, filename, content_type, size_bytes, storage_key)
       select * from unnest(${col((f) => f.id, 'text')}, ${col(() => s.teamId, 'text')}, ${col(() => s.formId, 'text')},
         ${col(() => s.id, 'text')}, ${col((f) => f.field, 'text')}, ${col((f) => f.filename, 'text')},
         ${col((f) => f.contentType, 'text')}, ${col((f) => f.size, 'bigint')}, ${col((f) => f.storageKey, 'text')}))`);
  }
  if (s.idempotencyKey) {
    ctes.push(`claim as (
       insert into idempotency_keys (team_id, form_id, key, submission_id, created_at)
       values (${team}, ${form}, ${p(s.idempotencyKey)}, ${id}, now())
       ${RECLAIM_EXPIRED_KEY}
       returning 1)`);
  }
  if (s.uniqueKeys.length && routed) {
    ctes.push(`unique_claim as (
       insert into submission_unique_keys (team_id, key, submission_id)
       values ${s.uniqueKeys.map((k) => `(${team}, ${p(k.key)}, ${id})`).join(', ')})`);
  } else if (s.uniqueKeys.length) {
    ctes.push(`unique_claim as (
       insert into submission_unique_keys (team_id, key, submission_id)
       select ${team}, key, ${id} from unnest(${p(s.uniqueKeys.map((k) => k.key))}::text[]) as key)`);
  }
  if (job) ctes.push(`job as (${job.text})`);
  // What the guards count is read before anything is written: `before` comes first and is materialized, since
  // on Citus each CTE runs as its own step and a later one would see this statement's writes.
  const before: string[] = [];
  const entryLimit = s.entryLimit === null ? null : p(s.entryLimit);
  if (entryLimit !== null) before.push(`${KEPT_SUBMISSIONS(form, team)} as kept`);
  if (s.monthlyLimit !== null) {
    before.push(
      `(select coalesce(sum(submissions), 0) from usage_counters where team_id = ${team} and period_start = ${period}) as used`,
    );
  }
  if (before.length) ctes.unshift(`before as materialized (select ${before.join(', ')})`);
  const limit = entryLimit === null ? 'true' : `(select kept from before) < ${entryLimit}`;
  const filled = entryLimit === null ? 'false' : `(select kept from before) + 1 = ${entryLimit}`;
  const quota = s.monthlyLimit === null ? 'true' : `(select used from before) < ${p(s.monthlyLimit)}`;
  const claimed = s.idempotencyKey ? '(select count(*) from claim) = 1' : 'true';
  // Routed, the statement says whether the post brought names its form has not learned (ROUTED).
  const unlearned =
    routed && s.status !== 'spam'
      ? `not (${p(Object.keys(s.payload))}::text[] <@ array(select name from form_fields where form_id = ${form} and team_id = ${team}))`
      : 'false';
  const text = `with ${ctes.join(',\n')}
    select intake_guard(${quota}, '${QUOTA_EXCEEDED}') and intake_guard(${claimed}, '${KEY_HELD}')
       and intake_guard(${limit}, '${LIMIT_REACHED}') as ok,
       ${filled} as filled, ${unlearned} as unlearned from usage`;
  // One prepared statement per shape of the text.
  const shape = [
    s.files.length > 0,
    !!s.idempotencyKey,
    !!job,
    s.monthlyLimit !== null,
    s.status !== 'spam',
    s.entryLimit !== null,
    s.uniqueKeys.length > 0,
  ]
    .map(Number)
    .join('');
  // Routed, the text also depends on how many files and keys it inserts.
  const name = `intake_accept_${shape}${routed ? `_${s.files.length}_${s.uniqueKeys.length}` : ''}`;
  const { rows } = await sql.query<{ filled: boolean; unlearned: boolean }>(text, values, name);
  if (routed && s.status === 'spam') await numberStreamEvents(sql, s.teamId, s.formId, [s.id]);
  return rows[0]!;
}

/** Whether the post took its form's last place (`max_submissions`): the statement saw the count reach it. */
export type Filled = { filled: boolean };

/** pg-boss's insert of a job, embedded as a CTE whose `$1` is `value` (see infra/queue/embedded.ts). */
export type JobInsert = { text: string; value: string };

/**
 * The job an accepted post brings. A `batchable` job is shared: a batch's posts get ONE job for all of them,
 * since a job row costs a large share of a post's WAL; any other job goes with its post alone.
 */
export type AcceptJob = {
  batchable: boolean;
  /** The job of these submissions; `teamId` when they are all one team's. */
  insert(submissionIds: string[], teamId: string | undefined): Promise<JobInsert>;
};

/**
 * What insertSubmission writes, for several posts in ONE statement: rows as JSON (`$2`, files `$4`), the
 * period `$3`, the shared job `$1`. Guards are per team and per key; any failure aborts the whole statement.
 */
async function insertSubmissions(sql: Sql, batch: Waiting[], job: JobInsert): Promise<Set<string>> {
  const first = batch[0]!.s;
  const input = batch.map(({ s }, seq) => ({
    seq,
    id: s.id,
    team_id: s.teamId,
    form_id: s.formId,
    status: s.status,
    spam_reason: s.spamReason,
    payload: s.payload,
    metadata: s.metadata,
    idem: s.idempotencyKey,
    fields: Object.keys(s.payload),
    quota: s.monthlyLimit,
    entry_limit: s.entryLimit,
    keys: s.uniqueKeys.map((k) => k.key),
    token: s.apiTokenId,
    stage: s.stage,
  }));
  const files = batch.flatMap(({ s }) =>
    s.files.map((f) => ({
      id: f.id,
      team_id: s.teamId,
      form_id: s.formId,
      submission_id: s.id,
      field: f.field,
      filename: f.filename,
      content_type: f.contentType,
      size_bytes: f.size,
      storage_key: f.storageKey,
    })),
  );
  const { rows } = await sql.query<{ filled: string[] }>(
    `with input as (
       select * from jsonb_to_recordset($2::jsonb) as x(id text, team_id text, form_id text, status text, spam_reason text,
         payload jsonb, metadata jsonb, idem text, fields text[], quota int, entry_limit int, keys text[], token text, stage text, seq int)),
     heads as (
       insert into stream_heads (form_id, team_id, position)
       select distinct form_id, team_id, 1 from input where status = 'spam' order by form_id, team_id
       on conflict (form_id, team_id) do update set position = stream_heads.position + 1
       returning form_id, team_id, position),
     submission as (
       insert into submissions (id, team_id, form_id, status, spam_reason, payload, metadata, api_token_id, stage)
       select id, team_id, form_id, status, spam_reason, payload, metadata, token, stage from input),
     numbered as (
       insert into stream_numbers (submission_id, team_id, form_id, seq)
       select i.id, i.team_id, i.form_id, h.position from input i join heads h on h.form_id = i.form_id and h.team_id = i.team_id
        where i.status = 'spam'),
     posted as (select team_id, count(*)::int as n from input group by team_id),
     bumped as (
       update usage_counters u set submissions = u.submissions + posted.n from posted
        where u.team_id = posted.team_id and u.period_start = $3 and u.shard = ${USAGE_SHARD}
       returning u.team_id),
     first_of_shard as (
       insert into usage_counters (team_id, period_start, shard, submissions)
       select team_id, $3::timestamptz, ${USAGE_SHARD}, n from posted where team_id not in (select team_id from bumped)
       on conflict (team_id, period_start, shard) do update set submissions = usage_counters.submissions + excluded.submissions
       returning team_id),
     usage as (select team_id from bumped union all select team_id from first_of_shard),
     folders as (select team_id, form_id, ${folderOf('status')} as folder, count(*)::int as n from input group by 1, 2, 3),
     folder_bumped as (
       update form_folder_counts c set n = c.n + f.n from folders f
        where c.form_id = f.form_id and c.folder = f.folder and c.day = ${TODAY} and c.shard = ${FOLDER_SHARD} and c.team_id = f.team_id
       returning c.team_id, c.form_id, c.folder),
     folder_first as (
       insert into form_folder_counts (team_id, form_id, folder, day, shard, n)
       select f.team_id, f.form_id, f.folder, ${TODAY}, ${FOLDER_SHARD}, f.n from folders f
        where not exists (select 1 from folder_bumped b where b.form_id = f.form_id and b.folder = f.folder and b.team_id = f.team_id)
       on conflict (form_id, folder, day, shard, team_id) do update set n = form_folder_counts.n + excluded.n),
     new_names as (
       select distinct on (i.form_id, f.name) i.team_id, i.form_id, f.name, f.ord, i.seq from input i, unnest(i.fields) with ordinality as f(name, ord)
        where i.status <> 'spam' and not exists (select 1 from form_fields k where k.form_id = i.form_id and k.name = f.name)
        order by i.form_id, f.name, i.seq, f.ord),
     learning as (
       select id, team_id, field_count from forms where id in (select form_id from new_names) order by id
       for no key update skip locked),
     ${learningNames(null)},
     files as (
       insert into submission_files (id, team_id, form_id, submission_id, field, filename, content_type, size_bytes, storage_key)
       select * from jsonb_to_recordset($4::jsonb) as f(id text, team_id text, form_id text, submission_id text, field text,
         filename text, content_type text, size_bytes bigint, storage_key text)),
     claim as (
       insert into idempotency_keys (team_id, form_id, key, submission_id, created_at)
       select team_id, form_id, idem, id, now() from input where idem is not null
       ${RECLAIM_EXPIRED_KEY}
       returning 1),
     unique_claim as (
       insert into submission_unique_keys (team_id, key, submission_id)
       select i.team_id, key, i.id from input i, unnest(i.keys) as key),
     job as (${job.text})
     select intake_guard(not exists (
              select 1 from input i where i.quota is not null group by i.team_id, i.quota
              having (select coalesce(sum(u.submissions), 0) from usage_counters u where u.team_id = i.team_id and u.period_start = $3) + count(*) > i.quota),
            '${QUOTA_EXCEEDED}')
        and intake_guard((select count(*) from claim) = (select count(*) from input where idem is not null), '${KEY_HELD}')
        and intake_guard(not exists (
              select 1 from input i where i.entry_limit is not null group by i.form_id, i.team_id, i.entry_limit
              having ${KEPT_SUBMISSIONS('i.form_id', 'i.team_id')} + count(*) > i.entry_limit),
            '${LIMIT_REACHED}')
        as ok,
        array(select i.form_id from input i where i.entry_limit is not null group by i.form_id, i.team_id, i.entry_limit
              having ${KEPT_SUBMISSIONS('i.form_id', 'i.team_id')} + count(*) = i.entry_limit) as filled
       from (select count(*) from usage) counted`,
    [job.value, JSON.stringify(input), first.usagePeriod, JSON.stringify(files)],
    'intake_accept_batch',
  );
  return new Set(rows[0]!.filled);
}

type Waiting = { s: SubmissionInsert; job: AcceptJob | null; settle: (err: unknown, filled?: boolean) => void };

/**
 * One accepting statement in flight per process; posts arriving meanwhile share the next one, since each
 * statement's fixed costs (round trip, commit, shared job) are paid per statement (docs/decisions.md).
 * A failed batch is retried one post at a time so each post gets its own outcome.
 */
const ACCEPT_LIMITS = { maxRunning: 1, maxBatch: 64 };

/**
 * Runs `write` so a monthly quota and a form's entry limit hold exactly: teams with a quota and forms with a
 * limit take their advisory lock first (in a fixed order), so the write's snapshot sees every earlier holder's
 * rows; concurrent statements would each miss the others'. Posts under neither take no lock.
 */
async function underQuotaLocks<T>(db: Db, items: SubmissionInsert[], write: (sql: Sql) => Promise<T>): Promise<T> {
  const keys = [
    ...new Set([
      ...items.filter((s) => s.monthlyLimit !== null).map((s) => `intake:quota:${s.teamId}`),
      ...items.filter((s) => s.entryLimit !== null).map((s) => `intake:limit:${s.formId}`),
    ]),
  ];
  // On Citus door spam is numbered by a statement of its own (ROUTED): one transaction for both.
  const twoStatements = db.distributed && items.some((s) => s.status === 'spam');
  if (!keys.length && !twoStatements) return write(db);
  return db.transaction(async (tx) => {
    if (keys.length)
      await tx.query(
        'select pg_advisory_xact_lock(k) from (select hashtextextended(key, 0) as k from unnest($1::text[]) as key order by key) ordered',
        [keys],
        'intake_quota_locks',
      );
    return write(tx);
  });
}

async function acceptBatch(db: Db, batch: Waiting[]): Promise<void> {
  let alone = batch;
  const together = batch.filter((w) => !w.job || w.job.batchable);
  const sharing = together.filter((w) => w.job);
  if (together.length > 1 && sharing.length) {
    try {
      const teams = new Set(sharing.map((w) => w.s.teamId));
      const job = await sharing[0]!.job!.insert(
        sharing.map((w) => w.s.id),
        teams.size === 1 ? sharing[0]!.s.teamId : undefined,
      );
      const filled = await underQuotaLocks(
        db,
        together.map((w) => w.s),
        (sql) => insertSubmissions(sql, together, job),
      );
      // The batch's last post to a form it filled took the last place.
      for (const w of [...together].reverse()) w.settle(undefined, filled.delete(w.s.formId));
      alone = batch.filter((w) => !together.includes(w));
    } catch {
      // Each post on its own, for its own outcome.
    }
  }
  // One after another: posts near a quota must each see the ones before them.
  for (const w of alone) {
    await acceptAlone(db, w.s, w.job).then(
      (done) => w.settle(undefined, done.filled),
      (err: unknown) => w.settle(err),
    );
  }
}

/**
 * A statement Citus planned against a shard that a split dropped before it ran (the statement waited on the
 * split): it did nothing, and runs again on the new shards.
 */
function isDroppedShard(err: unknown): boolean {
  return /could not find valid entry for shard/.test((err as { message?: string }).message ?? '');
}

/**
 * One post in its own statement; a key held past its window is released and the post tried once more, as is a
 * post planned against a shard a split dropped. On Citus the names the post brought and its form has not
 * learned are learned after it (ROUTED); when its form's row is held, or that fails, the process-submission
 * job learns them.
 */
async function acceptAlone(db: Db, s: SubmissionInsert, job: AcceptJob | null): Promise<Filled> {
  const attempt = () =>
    underQuotaLocks(db, [s], async (sql) => insertSubmission(sql, s, job && (await job.insert([s.id], s.teamId))));
  let done: Filled & { unlearned: boolean };
  try {
    done = await attempt();
  } catch (err) {
    const again = isDroppedShard(err) || (isDuplicate(err) && (await releaseExpiredKeys(db, s.teamId, s.uniqueKeys)));
    if (!again) throw err;
    done = await attempt();
  }
  if (done.unlearned)
    await db
      .transaction((tx) => recordFieldNames(tx, s.teamId, s.formId, Object.keys(s.payload), { ifFree: true }))
      .catch(() => {});
  return { filled: done.filled };
}

/** Releases these keys where their holder's window has passed (by the window of the rule claiming them now). */
async function releaseExpiredKeys(sql: Sql, teamId: string, keys: UniqueKeyClaim[]): Promise<number> {
  const { rowCount } = await sql.query(
    `delete from submission_unique_keys h using jsonb_to_recordset($1::jsonb) as k(key text, hold int)
      where h.key = k.key and h.team_id = $2 and k.hold is not null and now() - h.created_at >= make_interval(days => k.hold)`,
    [JSON.stringify(keys.map((k) => ({ key: k.key, hold: k.holdDays }))), teamId],
  );
  return rowCount ?? 0;
}

const queues = new WeakMap<Db, GroupCommit<Waiting>>();

/**
 * insertSubmission through the process's group commit: resolves once committed. On Citus a statement writes one
 * team's shard, so there is nothing to batch: each post goes at once, and a team whose shards wait (a shard
 * move's last step) holds back no other team's posts (docs/scaling.md).
 */
export function acceptSubmission(db: Db, s: SubmissionInsert, job: AcceptJob | null): Promise<Filled> {
  if (db.distributed) return acceptAlone(db, s, job);
  let queue = queues.get(db);
  if (!queue) queues.set(db, (queue = new GroupCommit((batch) => acceptBatch(db, batch), ACCEPT_LIMITS)));
  return new Promise((resolve, reject) =>
    queue.add({
      s,
      job,
      settle: (err, filled = false) => (err === undefined ? resolve({ filled }) : reject(err)),
    }),
  );
}

/** Which of these keys are held within the claiming rule's window: the 409 names the first's rule. */
export async function heldUniqueKeys(sql: Sql, teamId: string, keys: UniqueKeyClaim[]): Promise<string[]> {
  const { rows } = await sql.query<{ key: string }>(
    `select h.key from submission_unique_keys h
       join jsonb_to_recordset($1::jsonb) as k(key text, hold int) on k.key = h.key
      where h.team_id = $2 and (k.hold is null or h.created_at > now() - make_interval(days => k.hold))`,
    [JSON.stringify(keys.map((k) => ({ key: k.key, hold: k.holdDays }))), teamId],
  );
  return rows.map((r) => r.key);
}

/** Keys of submissions kept before their rule was saved, held from when each was received; a held key stays held. */
export async function claimKeptKeys(
  sql: Sql,
  claims: { teamId: string; submissionId: string; key: string; receivedAt: Date }[],
): Promise<void> {
  const lists = valuesLists(
    claims,
    (c, p) => `(${p(c.teamId)}, ${p(c.key)}, ${p(c.submissionId)}, ${p(c.receivedAt)}::timestamptz)`,
  );
  for (const list of lists)
    await sql.query(
      `insert into submission_unique_keys (team_id, key, submission_id, created_at) values ${list.rows}
       on conflict (key, team_id) do nothing`,
      list.values,
    );
}

/**
 * A submission's keys after a person changed it (not spam again, values edited): what it held is released and
 * its keys now are claimed where free. A person's change is never refused, so a key held by another stays there.
 */
export async function reclaimUniqueKeys(
  sql: Sql,
  submission: { id: string; team_id: string },
  keys: UniqueKeyClaim[],
): Promise<void> {
  await sql.query('delete from submission_unique_keys where submission_id = $1 and team_id = $2', [
    submission.id,
    submission.team_id,
  ]);
  if (!keys.length) return;
  await sql.query(
    `insert into submission_unique_keys (team_id, key, submission_id)
     select $3, key, $1 from unnest($2::text[]) as key
     on conflict (key, team_id) do nothing`,
    [submission.id, keys.map((k) => k.key), submission.team_id],
  );
}

/** Releases the unique keys the form's submissions hold (before the form goes: its submissions cascade). */
export async function releaseFormKeys(sql: Sql, teamId: string, formId: string): Promise<void> {
  await sql.query(
    `delete from submission_unique_keys k using submissions s
      where s.form_id = $1 and s.team_id = $2 and k.team_id = $2 and k.submission_id = s.id`,
    [formId, teamId],
  );
}
