import { createHash, createHmac } from 'node:crypto';
import { IDEMPOTENCY_KEY_MAX } from '../../../contract/public-endpoint.ts';
import type { AppContext } from '../../context.ts';
import * as forms from '../../infra/db/queries/forms.ts';
import * as inserts from '../../infra/db/queries/submission-inserts.ts';
import { teamStorageBytes } from '../../infra/db/queries/submissions.ts';
import { deleteObjects, notificationEmail, processSubmission, spamRulesJob } from '../../infra/queue/definitions.ts';
import { limitSubject } from './client-address.ts';
import { AppError, notFound, validationFailed } from '../shared/errors.ts';
import { isOutage, serviceUnavailable } from '../shared/outages.ts';
import { isAllowedOrigin, postingOrigin, redirectTarget } from '../forms/origins.ts';
import { captchaToken, withoutTokens, type StoredCaptcha, type Verification } from '../spam/captcha.ts';
import { applySchema, type FieldErrors } from '../forms/field-schema.ts';
import { formSettings, storedSettings } from '../spam/stored-rules.ts';
import { decryptSecret } from '../../infra/outbound/signing.ts';
import { newId, isId } from '../shared/ids.ts';
import { bodyLimitsFor } from './limits.ts';
import { currentPeriod } from '../accounts/plans.ts';
import { pruneWindows } from '../accounts/rate-windows.ts';
import { screen, type SpamReason } from '../spam/spam.ts';
import {
  closedByDate,
  duplicateSubmission,
  formClosed,
  formStatus,
  uniqueKeys,
  type UniqueKey,
} from '../forms/admission.ts';
import type { FormStatus } from '../../../contract/form-admission.ts';
import { announceClosed } from '../forms/closing.ts';
import { teamOfForm } from '../forms/form-teams.ts';

/** Reserved control fields: kept out of the payload, recorded in metadata. */
const CONTROL_PREFIX = '_';

export type {
  ClientFacts,
  FieldValue,
  IncomingPost,
  IngestOutcome,
  PostedBody,
  PostedFile,
  PublicForm,
} from './post.ts';
import type { FieldValue, IncomingPost, IngestOutcome, PostedFile, PublicForm } from './post.ts';

function toPublicForm(r: forms.PublicFormRow): PublicForm {
  const stored = storedSettings(r.settings);
  return {
    id: r.id,
    teamId: r.team_id,
    settings: formSettings(stored),
    captcha: stored.captcha,
    notifySpam: stored.notify_spam && stored.notification_mode === 'instant' && r.notification_count > 0,
    spamRules: r.spam_rules,
    monthlyLimit: r.monthly_submissions,
    fileUploads: r.file_uploads,
    maxFileBytes: Number(r.max_file_bytes),
    storageLimit: r.storage_bytes === null ? null : Number(r.storage_bytes),
    kept: r.kept,
  };
}

/** The form behind `/f/{form}` when it takes posts (for the CORS preflight), or null. */
export async function findPublicForm(ctx: AppContext, formId: string): Promise<PublicForm | null> {
  if (!isId('frm', formId)) return null;
  const teamId = await teamOfForm(ctx, formId);
  const row = teamId && (await forms.findPublicForm(ctx.db, teamId, formId));
  return row ? toPublicForm(row) : null;
}

/** `GET /f/{form}/status`: whether the form takes posts now (its dates, its limit), or null for no such form. */
export async function publicFormStatus(ctx: AppContext, formId: string): Promise<FormStatus | null> {
  const form = await findPublicForm(ctx, formId);
  return form && formStatus(form.settings, new Date(), form.kept);
}

/** Rate limits key on a keyed hash of the address (or its IPv6 /64), never the address itself. */
export function hashIp(key: Buffer, ip: string): string {
  return createHmac('sha256', key).update(limitSubject(ip)).digest('hex').slice(0, 32);
}

/** 404 for a form that takes no posts, saying why when it is only a draft (never another team's detail). */
async function notTakingPosts(ctx: AppContext, teamId: string, formId: string): Promise<AppError> {
  if ((await forms.formStatus(ctx.db, teamId, formId)) === 'draft') {
    return new AppError(
      'not_found',
      'This form is not published: it takes no submissions until its owner publishes it.',
    );
  }
  return notFound('Form');
}

function idempotencyKeyHash(key: string | null): string | null {
  const trimmed = key?.trim();
  if (!trimmed) return null;
  if (trimmed.length > IDEMPOTENCY_KEY_MAX) {
    throw validationFailed([
      {
        in: 'header',
        path: 'idempotency-key',
        message: `Idempotency-Key is limited to ${IDEMPOTENCY_KEY_MAX} characters.`,
      },
    ]);
  }
  return createHash('sha256').update(trimmed).digest('hex');
}

function quotaExceeded(form: PublicForm): AppError {
  return new AppError(
    'quota_exceeded',
    `This form's team has used its ${form.monthlyLimit} submissions for this month.`,
  );
}

function firstString(value: FieldValue | undefined): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return null;
}

/**
 * The public endpoint's rules, in order. Everything that can refuse a post without its body (form, origin,
 * quota, flood, idempotency) runs before the body is read. Spam is stored and answered exactly like success.
 */
export async function ingestPost(ctx: AppContext, post: IncomingPost): Promise<IngestOutcome> {
  if (!isId('frm', post.formId)) throw notFound('Form');
  const ipHash = post.client.ip === null ? null : hashIp(ctx.keys.ipHashing, post.client.ip);
  const period = currentPeriod().start;
  const teamId = await teamOfForm(ctx, post.formId);
  if (!teamId) throw notFound('Form');
  const opened = await forms.openPublicForm(
    ctx.db,
    teamId,
    post.formId,
    ipHash && `ingest:${post.formId}:${ipHash}`,
    period,
  );
  pruneWindows(ctx);
  if (!opened) throw await notTakingPosts(ctx, teamId, post.formId);
  const form = toPublicForm(opened);
  if (post.client.origin && !isAllowedOrigin(form.settings, post.client.origin)) {
    throw new AppError('forbidden', 'This origin may not post to this form.');
  }
  post.onForm?.(form);
  if (opened.used !== null && form.monthlyLimit !== null && opened.used >= form.monthlyLimit) throw quotaExceeded(form);
  if (opened.hits > ctx.config.ingestFloodLimit) {
    const retryAfter = Math.max(1, opened.reset);
    throw new AppError('rate_limited', 'Too many submissions from this address. Try again later.', {
      retry_after: retryAfter,
    });
  }

  const idempotencyKey = idempotencyKeyHash(post.idempotencyKey);
  if (idempotencyKey) {
    const existing = await inserts.findIdempotent(ctx.db, form.teamId, form.id, idempotencyKey);
    if (existing)
      return { form, id: existing, replayed: true, redirect: redirectTarget(form.settings, null), bodyKind: null };
  }
  const closed = closedByDate(form.settings, new Date()) ?? (isFull(form) ? 'limit_reached' : null);
  if (closed) throw formClosed(form.settings, closed);

  const body = await post.readBody(bodyLimitsFor(form));
  try {
    if (body.files.length && !form.fileUploads) {
      throw new AppError('plan_limit_reached', "File uploads are not included in this form's plan.");
    }
    // Without a prototype: a field named `__proto__` must not give the controls inherited values.
    const posted: Record<string, FieldValue> = Object.create(null);
    const controls: Record<string, FieldValue> = Object.create(null);
    for (const [k, v] of Object.entries(withoutTokens(body.fields)))
      (k.startsWith(CONTROL_PREFIX) ? controls : posted)[k] = v;
    const checked = applySchema({
      fields: form.settings.fields,
      unknownFields: form.settings.unknown_fields,
      payload: posted,
      files: body.files,
    });
    if (Object.keys(checked.errors).length) throw fieldErrors(checked.errors);
    const payload = checked.payload as Record<string, FieldValue>;
    if (checked.files.length && form.storageLimit !== null) await assertStorageLeft(ctx, form, checked.files);
    const fromServer = post.apiTokenId !== undefined;
    const captcha =
      form.captcha && post.client.ip !== null && !fromServer
        ? await verifyCaptcha(ctx, form.captcha, body.fields, post.client.ip)
        : null;
    const spamReason =
      screen({
        settings: form.settings,
        payload,
        controls,
        replyTo: firstString(controls._replyto),
        rateLimited: opened.hits > ctx.config.ingestRateLimit,
        honeypot: !fromServer,
      }) ?? (captcha?.outcome === 'unverified' ? 'captcha_unverified' : null);
    const id = newId('subm');
    const keys = spamReason === null ? uniqueKeys(ctx.keys.uniqueValues, form.id, form.settings.unique, payload) : [];
    const files = await uploadFiles(ctx, form, id, checked.files);
    const accepted = await accept(ctx, form, {
      id,
      payload,
      files,
      spamReason,
      idempotencyKey,
      keys,
      apiTokenId: post.apiTokenId ?? null,
      metadata: {
        ip: post.client.ip,
        ip_hash: ipHash,
        user_agent: post.client.userAgent,
        referrer: post.client.referrer,
        origin: post.client.origin,
        content_type: body.kind,
        controls,
        ...(captcha ? { captcha: { provider: form.captcha!.provider, ...captchaRecord(captcha) } } : {}),
      },
    });
    return {
      form,
      ...accepted,
      redirect: redirectTarget(form.settings, firstString(controls._next), postingOrigin(post.client)),
      bodyKind: body.kind,
      spamReason,
    };
  } finally {
    body.discard();
  }
}

/** The public endpoint's 422 for a post that breaks the form's schema: what to fix, per field. */
function fieldErrors(errors: FieldErrors): AppError {
  const count = Object.keys(errors).length;
  return new AppError(
    'validation_failed',
    count === 1 ? 'One field needs attention.' : `${count} fields need attention.`,
    { fields: errors },
    422,
  );
}

/**
 * The CAPTCHA, verified with its provider: a missing or refused token is 422 `captcha_failed` (nothing
 * stored); a provider that cannot be asked leaves the outcome `unverified` (the post is kept as spam).
 */
async function verifyCaptcha(
  ctx: AppContext,
  captcha: StoredCaptcha,
  fields: Record<string, FieldValue>,
  ip: string,
): Promise<Verification> {
  const token = captchaToken(captcha.provider, fields);
  const failed = () =>
    new AppError(
      'captcha_failed',
      'The CAPTCHA was not completed or has expired. Please go back, complete it and send the form again.',
    );
  if (!token || token.length > 4096) throw failed();
  const verification = await ctx.verifyCaptcha(
    { ...captcha, secret: decryptSecret(ctx.keys.captchaSecrets, captcha.secret_encrypted) },
    token,
    ip,
  );
  if (verification.outcome === 'failed') throw failed();
  if (verification.outcome === 'unverified')
    ctx.log.warn(
      { provider: captcha.provider, reason: verification.reason },
      'CAPTCHA provider unreachable: post kept as spam',
    );
  return verification;
}

/** What the submission's metadata keeps of the verification. */
function captchaRecord(v: Verification): Record<string, unknown> {
  if (v.outcome === 'passed') return { outcome: v.outcome, score: v.score, hostname: v.hostname };
  if (v.outcome === 'unverified') return { outcome: v.outcome, reason: v.reason.slice(0, 200) };
  return { outcome: v.outcome, error_codes: v.errorCodes };
}

/** A post whose files would take the team past its plan's storage is 402 (concurrent uploads may overshoot by their size). */
async function assertStorageLeft(ctx: AppContext, form: PublicForm, files: PostedFile[]): Promise<void> {
  const used = await teamStorageBytes(ctx.db, form.teamId);
  const adding = files.reduce((n, f) => n + f.size, 0);
  if (used + adding > form.storageLimit!) {
    throw new AppError(
      'plan_limit_reached',
      `This form's team has used its file storage (${form.storageLimit} bytes).`,
      {
        limit: form.storageLimit,
      },
    );
  }
}

export function storageKeyFor(form: PublicForm, submissionId: string, fileId: string): string {
  return `teams/${form.teamId}/forms/${form.id}/${submissionId}/${fileId}`;
}

/** Streams each spooled upload to object storage; on any failure the objects already written are removed. */
async function uploadFiles(
  ctx: AppContext,
  form: PublicForm,
  submissionId: string,
  files: PostedFile[],
): Promise<inserts.FileInsert[]> {
  const uploaded: inserts.FileInsert[] = [];
  // The key cut off is included: a non-atomic store can hold part of an object whose PUT failed.
  const written: string[] = [];
  try {
    for (const f of files) {
      const id = newId('file');
      const storageKey = storageKeyFor(form, submissionId, id);
      written.push(storageKey);
      await ctx.storage.put(storageKey, f.open(), { contentType: f.contentType, size: f.size });
      uploaded.push({ id, field: f.field, filename: f.filename, contentType: f.contentType, size: f.size, storageKey });
    }
    return uploaded;
  } catch (err) {
    await removeObjects(ctx, written);
    if (isOutage(err)) {
      ctx.log.warn({ err, formId: form.id }, 'object storage unreachable: upload refused');
      throw serviceUnavailable();
    }
    ctx.log.error({ err, formId: form.id }, 'file upload to storage failed');
    throw new AppError('internal_error', 'The files could not be stored; nothing was saved. Please try again.');
  }
}

/** Removes a refused post's objects, or queues a delete-objects job when storage is down. */
async function removeObjects(ctx: AppContext, keys: string[]): Promise<void> {
  if (!keys.length) return;
  try {
    await ctx.storage.remove(keys);
  } catch (err) {
    ctx.log.warn({ err, count: keys.length }, 'could not remove the objects of a refused post; queued for removal');
    await ctx.queue
      .send(deleteObjects, { keys })
      .catch((e: unknown) => ctx.log.error({ err: e, keys }, 'could not queue the removal of orphan objects'));
  }
}

/** The form keeps its `max_submissions` already (as read when the post was admitted). */
function isFull(form: PublicForm): boolean {
  return form.settings.max_submissions !== null && (form.kept ?? 0) >= form.settings.max_submissions;
}

type NewSubmission = {
  id: string;
  keys: UniqueKey[];
  apiTokenId: string | null;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
  spamReason: SpamReason | null;
  files: inserts.FileInsert[];
  idempotencyKey: string | null;
};

/** Stores the submission with its job in one statement, so nothing acknowledged can be lost; wakes workers after commit. */
async function accept(ctx: AppContext, form: PublicForm, s: NewSubmission): Promise<{ id: string; replayed: boolean }> {
  const clean = s.spamReason === null;
  // A clean post carries its processing job, shared with the batch; spam carries the job of the form's spam
  // rules when it has any (which notifies after them), else its own notification when asked.
  const spamRules = !clean && form.spamRules;
  const notifySpam = !clean && !spamRules && form.notifySpam;
  const job: inserts.AcceptJob | null = clean
    ? {
        batchable: true,
        insert: (ids, teamId) =>
          ctx.queue.embeddedInsert(
            processSubmission,
            ids.length === 1 ? { submissionId: ids[0]!, teamId } : { submissionIds: ids, teamId },
          ),
      }
    : spamRules
      ? {
          batchable: false,
          insert: () => ctx.queue.embeddedInsert(spamRulesJob, { submissionId: s.id, teamId: form.teamId }),
        }
      : notifySpam
        ? {
            batchable: false,
            insert: () => ctx.queue.embeddedInsert(notificationEmail, { submissionId: s.id, teamId: form.teamId }),
          }
        : null;
  let filled: boolean;
  try {
    ({ filled } = await inserts.acceptSubmission(
      ctx.db,
      {
        id: s.id,
        teamId: form.teamId,
        formId: form.id,
        status: clean ? 'received' : 'spam',
        spamReason: s.spamReason,
        payload: s.payload,
        metadata: s.metadata,
        files: s.files,
        idempotencyKey: s.idempotencyKey,
        usagePeriod: currentPeriod().start,
        monthlyLimit: form.monthlyLimit,
        entryLimit: clean ? form.settings.max_submissions : null,
        uniqueKeys: s.keys,
        apiTokenId: s.apiTokenId,
        stage: form.settings.stages[0]!.key,
      },
      job,
    ));
  } catch (err) {
    // Nothing of this post was kept: its uploaded objects go too.
    await removeObjects(
      ctx,
      s.files.map((f) => f.storageKey),
    );
    const code = (err as { code?: string }).code;
    if (code === inserts.QUOTA_EXCEEDED) throw quotaExceeded(form);
    if (code === inserts.LIMIT_REACHED) throw formClosed(form.settings, 'limit_reached');
    // A concurrent post with the same Idempotency-Key may have stored these values first: its answer is ours.
    if (s.idempotencyKey && (code === inserts.KEY_HELD || inserts.isDuplicate(err))) {
      const held = await inserts.findIdempotent(ctx.db, form.teamId, form.id, s.idempotencyKey);
      if (held) return { id: held, replayed: true };
    }
    if (inserts.isDuplicate(err)) throw await duplicateOf(ctx, form, s.keys);
    throw err;
  }
  if (clean) ctx.queue.wake(processSubmission);
  if (notifySpam) ctx.queue.wake(notificationEmail);
  if (spamRules) ctx.queue.wake(spamRulesJob);
  if (filled) await announceClosed(ctx, form.id);
  return { id: s.id, replayed: false };
}

/** The 409 for a post whose key the statement found held: the first rule whose key is held within its window. */
async function duplicateOf(ctx: AppContext, form: PublicForm, keys: UniqueKey[]): Promise<AppError> {
  const held = new Set(await inserts.heldUniqueKeys(ctx.db, form.teamId, keys));
  const holding = keys.find((k) => held.has(k.key)) ?? keys[0]!;
  return duplicateSubmission(form.settings.unique[holding.rule]!);
}
