/**
 * How the public endpoint stores an accepted submission: its row, files, counters, idempotency key and job
 * in one prepared statement, through a group commit (the hottest path: every statement is prepared).
 * The owner of `idempotency_keys` and `usage_counters`. Its two accepting statements also insert into
 * tables other modules own (submissions, submission_files, form_fields): the documented exception to one
 * owner per table (docs/architecture.md), since a post must be stored in one statement.
 */
import type { Db, Sql } from '../database.ts';
import { GroupCommit } from '../../group-commit.ts';

/**
 * The usage counter row a post adds to: its backend's (a backend runs one transaction at a time, so posts of
 * different backends rarely meet on a row), updated in place rather than upserted — `insert … on conflict do
 * update` logs a row lock besides the update, and a random shard of 1,024 spread each period's posts over
 * rows first inserted and indexed, their pages logged whole after each checkpoint (issue 30).
 */
const USAGE_SHARD = '(pg_backend_pid() % 1024)';

// LEARNING: a post that brings a field name its form has not learned learns it in the accepting statement,
// under the form row's lock (the learning trigger counts names against the limit, migration 0006) — but
// only when that lock is free at once (`skip locked`): the process's posts share one statement, and a form
// whose row someone holds (a prune's pass over a big form, another process learning) must not hold them all.
// A name not learned here is learned by the post's process-submission job (processing.ts), which may wait.

/** How long an Idempotency-Key holds its first submission. */
const IDEMPOTENCY_WINDOW = "interval '24 hours'";

export async function findIdempotent(sql: Sql, formId: string, keyHash: string): Promise<string | null> {
  const { rows } = await sql.query<{ submission_id: string }>(
    `select submission_id from idempotency_keys where form_id = $1 and key = $2 and created_at > now() - ${IDEMPOTENCY_WINDOW}`,
    [formId, keyHash],
    'intake_find_idempotent',
  );
  return rows[0]?.submission_id ?? null;
}

export type FileInsert = { id: string; field: string; filename: string; contentType: string; size: number; storageKey: string };

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
};

/** SQLSTATEs raised by intake_guard() (migration 0002) to abort the accepting statement. */
export const QUOTA_EXCEEDED = 'IQ001';
export const KEY_HELD = 'IK001';

/**
 * Stores an accepted submission in ONE statement — its row, its file records, the usage and field-name
 * counters, the idempotency key and (for clean submissions) its job, written by pg-boss's own insert
 * (`job.text`, verified at start, its parameter `$1`) as a CTE — so all of it commits atomically before
 * the 2xx. Conditions on what the statement saw abort it whole (QUOTA_EXCEEDED, KEY_HELD): the quota (the
 * counters' sum in the statement's snapshot, before its own increment) and a key another post holds.
 */
export async function insertSubmission(sql: Sql, s: SubmissionInsert, job: JobInsert | null): Promise<void> {
  // With a job, `$1` is pg-boss's parameter and ours follow it.
  const values: unknown[] = job ? [job.value] : [];
  const p = (value: unknown) => `$${values.push(value)}`;
  const team = p(s.teamId);
  const form = p(s.formId);
  const period = p(s.usagePeriod);
  const id = p(s.id);
  const ctes = [
    `submission as (
       insert into submissions (id, team_id, form_id, status, spam_reason, payload, metadata)
       values (${id}, ${team}, ${form}, ${p(s.status)}, ${p(s.spamReason)}, ${p(JSON.stringify(s.payload))}, ${p(JSON.stringify(s.metadata))}))`,
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
  ];
  // Spam teaches the form no field names. Known names are filtered out first: only a post bringing a new
  // name reaches the learning trigger (and its lock on the form row; see migration 0006) — see LEARNING.
  if (s.status !== 'spam') {
    ctes.push(
      `new_names as (
         select f.name, f.ord from unnest(${p(Object.keys(s.payload))}::text[]) with ordinality as f(name, ord)
          where not exists (select 1 from form_fields k where k.form_id = ${form} and k.name = f.name))`,
      `learning as (select id from forms where id = ${form} and exists (select 1 from new_names) for no key update skip locked)`,
      `fields as (
         insert into form_fields (form_id, name, ordinal)
         select ${form}, name, ord from new_names where exists (select 1 from learning) order by ord
         on conflict do nothing)`,
    );
  }
  if (s.files.length) {
    const col = (f: (u: FileInsert) => unknown, type: string) => `${p(s.files.map(f))}::${type}[]`;
    ctes.push(`files as (
       insert into submission_files (id, team_id, form_id, submission_id, field, filename, content_type, size_bytes, storage_key)
       select * from unnest(${col((f) => f.id, 'text')}, ${col(() => s.teamId, 'text')}, ${col(() => s.formId, 'text')},
         ${col(() => s.id, 'text')}, ${col((f) => f.field, 'text')}, ${col((f) => f.filename, 'text')},
         ${col((f) => f.contentType, 'text')}, ${col((f) => f.size, 'bigint')}, ${col((f) => f.storageKey, 'text')}))`);
  }
  if (s.idempotencyKey) {
    ctes.push(`claim as (
       insert into idempotency_keys (form_id, key, submission_id) values (${form}, ${p(s.idempotencyKey)}, ${id})
       on conflict (form_id, key) do update set submission_id = excluded.submission_id, created_at = now()
         where idempotency_keys.created_at <= now() - ${IDEMPOTENCY_WINDOW}
       returning 1)`);
  }
  if (job) ctes.push(`job as (${job.text})`);
  const quota = s.monthlyLimit === null
    ? 'true'
    : `(select coalesce(sum(submissions), 0) from usage_counters where team_id = ${team} and period_start = ${period}) < ${p(s.monthlyLimit)}`;
  const claimed = s.idempotencyKey ? '(select count(*) from claim) = 1' : 'true';
  const text = `with ${ctes.join(',\n')}
    select intake_guard(${quota}, '${QUOTA_EXCEEDED}') and intake_guard(${claimed}, '${KEY_HELD}') as ok from usage`;
  // One prepared statement per shape of the text.
  const shape = [s.files.length > 0, !!s.idempotencyKey, !!job, s.monthlyLimit !== null, s.status !== 'spam'].map(Number).join('');
  await sql.query(text, values, `intake_accept_${shape}`);
}

/** pg-boss's insert of a job, embedded as a CTE whose `$1` is `value` (see jobs/queue-embedded.ts). */
export type JobInsert = { text: string; value: string };

/**
 * The job an accepted post brings: `insert` gives pg-boss's insert of it for the given submissions. A
 * `batchable` job is shared: a batch's posts that bring one get ONE job for all of them (the job row, its
 * index entries and its lock on pg-boss's queue row were a quarter of a post's WAL — issue 30); any other
 * job (another queue) goes with its post alone.
 */
export type AcceptJob = { batchable: boolean; insert(submissionIds: string[]): Promise<JobInsert> };

/**
 * Several accepted submissions in ONE statement (and one commit): what insertSubmission writes, for each.
 * Rows arrive as JSON (`$2`, `$4` for files); usage is counted per team on the backend's shard of the period
 * (`$3`); the batch's job (`$1`, see AcceptJob) covers every post that brings one. The guards are
 * the single statement's, per team and per key: the team's usage before the statement plus its posts in
 * it must stay within its limit, and every key must be claimed. Any failure aborts the whole statement.
 */
async function insertSubmissions(sql: Sql, batch: Waiting[], job: JobInsert): Promise<void> {
  const first = batch[0]!.s;
  const rows = batch.map(({ s }, seq) => ({
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
  await sql.query(
    `with input as (
       select * from jsonb_to_recordset($2::jsonb) as x(id text, team_id text, form_id text, status text, spam_reason text,
         payload jsonb, metadata jsonb, idem text, fields text[], quota int, seq int)),
     submission as (
       insert into submissions (id, team_id, form_id, status, spam_reason, payload, metadata)
       select id, team_id, form_id, status, spam_reason, payload, metadata from input),
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
     new_names as (
       select distinct on (i.form_id, f.name) i.form_id, f.name, f.ord, i.seq from input i, unnest(i.fields) with ordinality as f(name, ord)
        where i.status <> 'spam' and not exists (select 1 from form_fields k where k.form_id = i.form_id and k.name = f.name)
        order by i.form_id, f.name, i.seq, f.ord),
     learning as (select id from forms where id in (select form_id from new_names) order by id for no key update skip locked),
     fields as (
       insert into form_fields (form_id, name, ordinal)
       select form_id, name, ord from new_names where form_id in (select id from learning)
        order by seq, ord -- names are learned in the order posts brought them (the limit keeps the first)
       on conflict do nothing),
     files as (
       insert into submission_files (id, team_id, form_id, submission_id, field, filename, content_type, size_bytes, storage_key)
       select * from jsonb_to_recordset($4::jsonb) as f(id text, team_id text, form_id text, submission_id text, field text,
         filename text, content_type text, size_bytes bigint, storage_key text)),
     claim as (
       insert into idempotency_keys (form_id, key, submission_id)
       select form_id, idem, id from input where idem is not null
       on conflict (form_id, key) do update set submission_id = excluded.submission_id, created_at = now()
         where idempotency_keys.created_at <= now() - ${IDEMPOTENCY_WINDOW}
       returning 1),
     job as (${job.text})
     select intake_guard(not exists (
              select 1 from input i where i.quota is not null group by i.team_id, i.quota
              having (select coalesce(sum(u.submissions), 0) from usage_counters u where u.team_id = i.team_id and u.period_start = $3) + count(*) > i.quota),
            '${QUOTA_EXCEEDED}')
        and intake_guard((select count(*) from claim) = (select count(*) from input where idem is not null), '${KEY_HELD}') as ok
       from (select count(*) from usage) counted`,
    [job.value, JSON.stringify(rows), first.usagePeriod, JSON.stringify(files)],
    'intake_accept_batch',
  );
}

type Waiting = { s: SubmissionInsert; job: AcceptJob | null; settle: (err?: unknown) => void };

/**
 * Accepted posts go through a group commit (see GroupCommit). Each post is answered only once its own
 * statement has committed. A batch that fails (a spent quota, a held key, anything) is retried one post at
 * a time, in order, so each post gets its own outcome.
 *
 * One statement in flight per process: the posts that arrive while it runs (its WAL flush above all) wait and
 * share the next one. Each statement carries fixed costs — a round trip, a transaction and its commit record,
 * the shared job — so fewer, larger statements cost less per post: with four in flight ten posters (a small
 * site's load) mostly went one post per statement and Postgres spent ~0.55 ms of CPU per post, with two
 * ~0.45 ms, with one ~0.25 ms (0.31 with two in the same run) and 1,650 WAL bytes per post rather than 1,810;
 * the throughput at ten connections rose from ~2,500 to ~3,200 posts/s (issue 30, bench/README.md "ingest").
 * An idle process still sends a lone post at once. What could hold the one statement is bounded: the
 * pooled connection's statement_timeout, and no lock it takes is held long by anyone else (a form's row
 * is locked `for no key update`, which leaves a post's key-share lock free; see pruneFields).
 */
const ACCEPT_LIMITS = { maxRunning: 1, maxBatch: 64 };

/**
 * Runs `write` so that a monthly quota holds exactly: when a post of the batch has one, inside a transaction
 * that first takes each such team's quota lock (advisory, transaction-scoped, in a fixed order). The write
 * is the next statement, so its snapshot sees the usage every earlier holder committed — without the lock,
 * statements running side by side each saw the usage before the others and together went past the quota.
 * Teams without a quota (and so the bulk of an unlimited team's traffic) take no lock.
 */
async function underQuotaLocks(db: Db, items: Waiting[], write: (sql: Sql) => Promise<void>): Promise<void> {
  const keys = [...new Set(items.filter((w) => w.s.monthlyLimit !== null).map((w) => `intake:quota:${w.s.teamId}`))];
  if (!keys.length) return write(db);
  await db.transaction(async (tx) => {
    await tx.query(
      'select pg_advisory_xact_lock(k) from (select hashtextextended(key, 0) as k from unnest($1::text[]) as key order by key) ordered',
      [keys],
      'intake_quota_locks',
    );
    await write(tx);
  });
}

async function acceptBatch(db: Db, batch: Waiting[]): Promise<void> {
  let alone = batch;
  const together = batch.filter((w) => !w.job || w.job.batchable);
  const sharing = together.filter((w) => w.job);
  if (together.length > 1 && sharing.length) {
    try {
      const job = await sharing[0]!.job!.insert(sharing.map((w) => w.s.id));
      await underQuotaLocks(db, together, (sql) => insertSubmissions(sql, together, job));
      for (const w of together) w.settle();
      alone = batch.filter((w) => !together.includes(w));
    } catch {
      // Each post on its own, for its own outcome.
    }
  }
  // One after another: posts near a quota must each see the ones before them.
  for (const w of alone) {
    await underQuotaLocks(db, [w], async (sql) => insertSubmission(sql, w.s, w.job && (await w.job.insert([w.s.id])))).then(
      () => w.settle(),
      (err: unknown) => w.settle(err),
    );
  }
}

const queues = new WeakMap<Db, GroupCommit<Waiting>>();

/** insertSubmission through the process's group commit: resolves once committed. */
export function acceptSubmission(db: Db, s: SubmissionInsert, job: AcceptJob | null): Promise<void> {
  let queue = queues.get(db);
  if (!queue) queues.set(db, (queue = new GroupCommit((batch) => acceptBatch(db, batch), ACCEPT_LIMITS)));
  return new Promise((resolve, reject) => queue.add({ s, job, settle: (err) => (err === undefined ? resolve() : reject(err)) }));
}
