import { createHash, createHmac, randomInt } from 'node:crypto';
import fs from 'node:fs';
import type { FormSettings } from '../../contract/forms.ts';
import type { AppContext } from '../context.ts';
import { processSubmission } from '../jobs/definitions.ts';
import { AppError } from './errors.ts';
import { formSettings } from './forms.ts';
import { newId } from './ids.ts';
import { currentPeriod } from './plans.ts';
import { pruneWindows, windowHitSql, type WindowHit } from './rate-windows.ts';
import type { SpamReason } from './spam.ts';

const COUNTER_SHARDS = 1024;
const IDEMPOTENCY_WINDOW = "interval '24 hours'";

/** A published, live form as the public endpoint needs it, with its team's plan limits. */
export type PublicForm = {
  id: string;
  teamId: string;
  settings: FormSettings;
  monthlyLimit: number | null;
  fileUploads: boolean;
  maxFileBytes: number;
};

export type UploadedFile = {
  id: string;
  field: string;
  filename: string;
  contentType: string;
  size: number;
  storageKey: string;
};

const PUBLIC_FORM_SQL = `select f.id, f.team_id, f.settings, p.monthly_submissions, p.file_uploads, p.max_file_bytes
   from forms f join teams t on t.id = f.team_id join plans p on p.id = t.plan_id
  where f.id = $1 and f.status = 'published' and f.deleted_at is null`;

function toPublicForm(r: Record<string, unknown>): PublicForm {
  return {
    id: r.id as string,
    teamId: r.team_id as string,
    settings: formSettings({ settings: r.settings }),
    monthlyLimit: r.monthly_submissions as number | null,
    fileUploads: r.file_uploads as boolean,
    maxFileBytes: Number(r.max_file_bytes),
  };
}

const isFormId = (id: string) => /^frm_[0-9a-z]{26}$/.test(id);

export async function findPublicForm(ctx: AppContext, formId: string): Promise<PublicForm | null> {
  if (!isFormId(formId)) return null;
  const { rows } = await ctx.pool.query({ name: 'intake_public_form', text: PUBLIC_FORM_SQL, values: [formId] });
  return rows[0] ? toPublicForm(rows[0]) : null;
}

/**
 * The form a post is for, and the post counted in its client's per-minute window (`ingest:<form>:<ip
 * hash>`), in one round trip. A post to a form that does not take posts is not counted.
 */
export async function openPublicForm(
  ctx: AppContext,
  formId: string,
  ipHash: string,
): Promise<{ form: PublicForm; hit: WindowHit } | null> {
  if (!isFormId(formId)) return null;
  const { rows } = await ctx.pool.query({
    name: 'intake_open_public_form',
    text: `with form as (${PUBLIC_FORM_SQL}),
      hit as (${windowHitSql(`'ingest:' || $1 || ':' || $2::text`, '60', 'from form')})
      select form.*, hit.hits, hit.reset from form, hit`,
    values: [formId, ipHash],
  });
  pruneWindows(ctx);
  const r = rows[0];
  return r ? { form: toPublicForm(r), hit: { hits: r.hits, resetSeconds: Math.max(1, r.reset) } } : null;
}

/** Accepted POSTs this period against the plan (every accepted post counts, spam included). */
export async function quotaReached(ctx: AppContext, form: PublicForm): Promise<boolean> {
  if (form.monthlyLimit === null) return false;
  const { rows } = await ctx.pool.query(
    'select coalesce(sum(submissions), 0)::int as used from usage_counters where team_id = $1 and period_start = $2',
    [form.teamId, currentPeriod().start],
  );
  return rows[0].used >= form.monthlyLimit;
}

export async function findIdempotent(ctx: AppContext, formId: string, key: string): Promise<string | null> {
  const { rows } = await ctx.pool.query(
    `select submission_id from idempotency_keys where form_id = $1 and key = $2 and created_at > now() - ${IDEMPOTENCY_WINDOW}`,
    [formId, key],
  );
  return rows[0]?.submission_id ?? null;
}

/** Client IPs are kept for the record but rate limits key on a keyed hash, never the address itself. */
export function hashIp(secretKey: Buffer, ip: string): string {
  return createHmac('sha256', secretKey).update(ip).digest('hex').slice(0, 32);
}

export function storageKeyFor(form: PublicForm, submissionId: string, fileId: string): string {
  return `teams/${form.teamId}/forms/${form.id}/${submissionId}/${fileId}`;
}

/**
 * Streams each spooled upload to object storage. On any failure the objects already written are
 * removed, so a failed upload leaves nothing behind.
 */
export async function uploadFiles(
  ctx: AppContext,
  form: PublicForm,
  submissionId: string,
  files: Array<{ field: string; filename: string; contentType: string; size: number; tmpPath: string }>,
): Promise<UploadedFile[]> {
  const uploaded: UploadedFile[] = [];
  try {
    for (const f of files) {
      const id = newId('file');
      const storageKey = storageKeyFor(form, submissionId, id);
      await ctx.storage.put(storageKey, fs.createReadStream(f.tmpPath), { contentType: f.contentType, size: f.size });
      uploaded.push({ id, field: f.field, filename: f.filename, contentType: f.contentType, size: f.size, storageKey });
    }
    return uploaded;
  } catch (err) {
    await ctx.storage.remove(uploaded.map((u) => u.storageKey)).catch(() => {});
    ctx.log.error({ err, formId: form.id }, 'file upload to storage failed');
    throw new AppError('internal_error', 'The files could not be stored; nothing was saved. Please try again.');
  }
}

export type NewSubmission = {
  id: string;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
  spamReason: SpamReason | null;
  files: UploadedFile[];
  idempotencyKey: string | null;
};

export type Accepted = { id: string; replayed: boolean };

/** SQLSTATEs raised by intake_guard() (migration 0002) to abort the accepting statement. */
const QUOTA_EXCEEDED = 'IQ001';
const KEY_HELD = 'IK001';

/**
 * Stores an accepted submission in ONE statement — its row, its file records, the usage and field-name
 * counters, the idempotency key and (for clean submissions) its process-submission job, written by
 * pg-boss's own insert embedded as a CTE — so all of it commits atomically before the 2xx and nothing
 * acknowledged can be lost. Conditions on what the statement saw abort it whole: the quota (the sum of
 * the counters before this post) and an idempotency key held by another post. One round trip, and the
 * counter rows it locks are released at once.
 */
export async function acceptSubmission(ctx: AppContext, form: PublicForm, s: NewSubmission): Promise<Accepted> {
  const status = s.spamReason ? 'spam' : 'received';
  const values: unknown[] = [];
  const p = (value: unknown) => `$${values.push(value)}`;
  const team = p(form.teamId);
  const formId = p(form.id);
  const period = p(currentPeriod().start);
  const id = p(s.id);
  const ctes = [
    `submission as (
       insert into submissions (id, team_id, form_id, status, spam_reason, payload, metadata)
       values (${id}, ${team}, ${formId}, ${p(status)}, ${p(s.spamReason)}, ${p(JSON.stringify(s.payload))}, ${p(JSON.stringify(s.metadata))}))`,
    `usage as (
       insert into usage_counters (team_id, period_start, shard, submissions) values (${team}, ${period}, ${p(randomInt(COUNTER_SHARDS))}, 1)
       on conflict (team_id, period_start, shard) do update set submissions = usage_counters.submissions + 1
       returning 1)`,
    // No lock is taken for field names already known.
    `fields as (
       insert into form_fields (form_id, name, ordinal) select ${formId}, name, ord from unnest(${p(Object.keys(s.payload))}::text[]) with ordinality as f(name, ord)
       on conflict do nothing)`,
  ];
  if (s.files.length) {
    const col = (f: (u: UploadedFile) => unknown, type: string) => `${p(s.files.map(f))}::${type}[]`;
    ctes.push(`files as (
       insert into submission_files (id, team_id, form_id, submission_id, field, filename, content_type, size_bytes, storage_key)
       select * from unnest(${col((f) => f.id, 'text')}, ${col(() => form.teamId, 'text')}, ${col(() => form.id, 'text')},
         ${col(() => s.id, 'text')}, ${col((f) => f.field, 'text')}, ${col((f) => f.filename, 'text')},
         ${col((f) => f.contentType, 'text')}, ${col((f) => f.size, 'bigint')}, ${col((f) => f.storageKey, 'text')}))`);
  }
  if (s.idempotencyKey) {
    ctes.push(`claim as (
       insert into idempotency_keys (form_id, key, submission_id) values (${formId}, ${p(s.idempotencyKey)}, ${id})
       on conflict (form_id, key) do update set submission_id = excluded.submission_id, created_at = now()
         where idempotency_keys.created_at <= now() - ${IDEMPOTENCY_WINDOW}
       returning 1)`);
  }
  if (status === 'received') {
    const job = await ctx.queue.insertStatement(processSubmission, { submissionId: s.id });
    ctes.push(`job as (${job.text.replace(/\$1\b/g, p(job.value))})`);
  }
  // The counters' sum is read from the statement's snapshot, before its own increment: "<" the limit.
  const quota = form.monthlyLimit === null
    ? 'true'
    : `(select coalesce(sum(submissions), 0) from usage_counters where team_id = ${team} and period_start = ${period}) < ${p(form.monthlyLimit)}`;
  const claimed = s.idempotencyKey ? '(select count(*) from claim) = 1' : 'true';
  const text = `with ${ctes.join(',\n')}
    select intake_guard(${quota}, '${QUOTA_EXCEEDED}') and intake_guard(${claimed}, '${KEY_HELD}') as ok from usage`;
  const shape = [s.files.length > 0, !!s.idempotencyKey, status === 'received', form.monthlyLimit !== null].map(Number).join('');
  try {
    await ctx.pool.query({ name: `intake_accept_${shape}`, text, values });
  } catch (err) {
    // Nothing of this post was kept: its uploaded objects go too.
    await ctx.storage.remove(s.files.map((f) => f.storageKey)).catch(() => {});
    const code = (err as { code?: string }).code;
    if (code === QUOTA_EXCEEDED) throw quotaExceeded(form);
    if (code === KEY_HELD) {
      const held = await findIdempotent(ctx, form.id, s.idempotencyKey!);
      if (held) return { id: held, replayed: true };
    }
    throw err;
  }
  if (status === 'received') ctx.queue.wake(processSubmission);
  return { id: s.id, replayed: false };
}

export function quotaExceeded(form: PublicForm): AppError {
  return new AppError('quota_exceeded', `This form's team has used its ${form.monthlyLimit} submissions for this month.`);
}

export function idempotencyKeyFrom(header: string | undefined): string | null {
  if (!header) return null;
  const key = header.trim();
  if (!key) return null;
  if (key.length > 255) throw new AppError('validation_failed', 'Idempotency-Key is limited to 255 characters.');
  return createHash('sha256').update(key).digest('hex');
}
