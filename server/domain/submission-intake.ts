import { createHash, createHmac, randomInt } from 'node:crypto';
import fs from 'node:fs';
import type { FormSettings } from '../../contract/forms.ts';
import type { AppContext } from '../context.ts';
import { withTransaction } from '../db/sql.ts';
import { processSubmission } from '../jobs/definitions.ts';
import { AppError } from './errors.ts';
import { formSettings } from './forms.ts';
import { newId } from './ids.ts';
import { currentPeriod } from './plans.ts';
import { pruneWindows, windowHitSql, type WindowHit } from './rate-windows.ts';
import type { SpamReason } from './spam.ts';

const COUNTER_SHARDS = 128;
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

/**
 * Stores an accepted submission: its row, file records, counters, idempotency key and (for clean
 * submissions) its process-submission job, all in one transaction — committed before the 2xx, so
 * nothing acknowledged can be lost. A key another request holds wins: that first submission is returned.
 */
export async function acceptSubmission(ctx: AppContext, form: PublicForm, s: NewSubmission): Promise<Accepted> {
  const status = s.spamReason ? 'spam' : 'received';
  const period = currentPeriod().start;
  try {
    return await withTransaction(ctx.pool, async (client) => {
      // The job first: the counter rows locked by the next statement are then held only until the
      // commit right after it, not across another round trip (concurrent posts share counter shards).
      if (status === 'received') await ctx.queue.send(processSubmission, { submissionId: s.id }, { db: client });
      // One statement: the row, the usage counter and new field names (no lock is taken for names
      // already known). With a quota, the limit is enforced again here, on the increment itself.
      const counted = await client.query({
        name: form.monthlyLimit === null ? 'intake_accept' : 'intake_accept_quota',
        text: `with submission as (
           insert into submissions (id, team_id, form_id, status, spam_reason, payload, metadata)
           values ($6, $1, $4, $7, $8, $9, $10)
         ), usage as (
           insert into usage_counters (team_id, period_start, shard, submissions) values ($1, $2, $3, 1)
           on conflict (team_id, period_start, shard) do update set submissions = usage_counters.submissions + 1
           returning 1
         ), fields as (
           insert into form_fields (form_id, name, ordinal) select $4, name, ord from unnest($5::text[]) with ordinality as f(name, ord)
           on conflict do nothing
         )
         select ${form.monthlyLimit === null ? '0' : '(select coalesce(sum(submissions), 0) from usage_counters where team_id = $1 and period_start = $2)'}::int as used
           from usage`,
        values: [
          form.teamId, period, randomInt(COUNTER_SHARDS), form.id, Object.keys(s.payload),
          s.id, status, s.spamReason, JSON.stringify(s.payload), JSON.stringify(s.metadata),
        ],
      });
      // The statement's own increment is not visible to its select, hence ">=" against the limit.
      if (form.monthlyLimit !== null && counted.rows[0].used >= form.monthlyLimit) throw quotaExceeded(form);
      if (s.files.length) {
        await client.query(
          `insert into submission_files (id, team_id, form_id, submission_id, field, filename, content_type, size_bytes, storage_key)
           select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[])`,
          [
            s.files.map((f) => f.id),
            s.files.map(() => form.teamId),
            s.files.map(() => form.id),
            s.files.map(() => s.id),
            s.files.map((f) => f.field),
            s.files.map((f) => f.filename),
            s.files.map((f) => f.contentType),
            s.files.map((f) => f.size),
            s.files.map((f) => f.storageKey),
          ],
        );
      }
      if (s.idempotencyKey) {
        const claimed = await client.query(
          `insert into idempotency_keys (form_id, key, submission_id) values ($1, $2, $3)
           on conflict (form_id, key) do update set submission_id = excluded.submission_id, created_at = now()
             where idempotency_keys.created_at <= now() - ${IDEMPOTENCY_WINDOW}
           returning submission_id`,
          [form.id, s.idempotencyKey, s.id],
        );
        if (!claimed.rowCount) throw new KeyHeld();
      }
      return { id: s.id, replayed: false };
    });
  } catch (err) {
    // Rolled back: nothing of this post is kept, its uploaded objects included.
    await ctx.storage.remove(s.files.map((f) => f.storageKey)).catch(() => {});
    if (err instanceof KeyHeld) {
      const held = await findIdempotent(ctx, form.id, s.idempotencyKey!);
      if (held) return { id: held, replayed: true };
    }
    throw err;
  }
}

/** A concurrent request with the same Idempotency-Key committed first. */
class KeyHeld extends Error {}

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
