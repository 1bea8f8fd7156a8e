import type { z } from 'zod';
import type { SubmissionDetail, SubmissionListItem } from '../../../contract/submissions.ts';
import type { AppContext } from '../../context.ts';
import type {
  FileRow,
  SubmissionEventRow,
  SubmissionItemRow,
  SubmissionRow,
} from '../../infra/db/queries/submissions.ts';
import type { SubmissionEvent } from '../../infra/outbound/providers.ts';
import { parseFields } from '../shared/field-types.ts';
import { iso } from '../shared/timestamps.ts';
import { EXPORT_LINK_SECONDS, fileLink, SIGNED_URL_SECONDS } from './file-links.ts';

/** A submission row (submissionColumns) as each reader shows it: a list, the detail, an event (webhooks and the stream). */

function fileView(f: FileRow) {
  return { id: f.id, field: f.field, filename: f.filename, content_type: f.content_type, size: Number(f.size) };
}

/** A submission in a list (the `Submission` schema); files only when it has some. */
export function submissionView(r: SubmissionItemRow): z.infer<typeof SubmissionListItem> {
  return {
    id: r.id,
    status: r.status,
    spam_reason: r.spam_reason,
    category: r.category,
    ai_moderation: r.ai_moderation,
    payload: r.payload,
    received_at: iso(r.received_at),
    ...(r.files?.length ? { files: r.files.map(fileView) } : {}),
    tags: r.tags,
    stage: r.stage,
    assignee: r.assignee,
    notes_count: r.notes_count,
    updated_at: iso(r.updated_at),
  };
}

/** The strong ETag of a submission's version (its updated_at, to the microsecond). */
export const submissionEtag = (r: Pick<SubmissionRow, 'version'>): string => `"${r.version}"`;

/** One submission with its typed fields, its metadata and storage URLs signed for SIGNED_URL_SECONDS. */
export async function submissionDetail(ctx: AppContext, r: SubmissionRow): Promise<z.infer<typeof SubmissionDetail>> {
  const expiresAt = new Date(Date.now() + SIGNED_URL_SECONDS * 1000).toISOString();
  const files = await Promise.all(
    (r.files ?? []).map(async (f) => ({
      ...fileView(f),
      url: await ctx.storage.presignedGet(f.key, SIGNED_URL_SECONDS, f.filename || f.id),
      url_expires_at: expiresAt,
    })),
  );
  const { files: _files, ...item } = submissionView(r);
  return {
    ...item,
    form_id: r.form_id,
    fields: parseFields(r.payload),
    metadata: r.metadata,
    ...(files.length ? { files } : {}),
    autoresponse: r.autoresponse,
    source: r.api_token_id ? 'api' : 'form',
    api_token_id: r.api_token_id,
    etag: submissionEtag(r),
    rules_applied: r.rules_applied ?? [],
  };
}

/**
 * A submission event's body (`submission.created` by default), as every provider renders it and the stream
 * sends it: files as /d/ links valid EXPORT_LINK_SECONDS, `spam_reason` only on `submission.spam`.
 */
export function submissionEvent(
  ctx: AppContext,
  r: SubmissionEventRow,
  type: SubmissionEvent['type'] = 'submission.created',
): SubmissionEvent {
  const scope = { teamId: r.team_id, formId: r.form_id, expires: Math.floor(Date.now() / 1000) + EXPORT_LINK_SECONDS };
  return {
    type,
    submission_id: r.id,
    form_id: r.form_id,
    form_name: r.form_name,
    received_at: iso(r.received_at),
    payload: r.payload,
    files: (r.files ?? []).map((f) => ({
      id: f.id,
      filename: f.filename,
      content_type: f.content_type,
      size: Number(f.size),
      url: fileLink(ctx.config.baseUrl, ctx.keys.linkSigning, f.id, scope),
    })),
    meta: {
      category: r.category,
      score: r.ai_moderation?.score ?? null,
      referrer: r.metadata.referrer ?? null,
      user_agent: r.metadata.user_agent ?? null,
      source: r.api_token_id ? 'api' : 'form',
    },
    tags: r.tags,
    stage: r.stage,
    assignee: r.assignee,
    ...(type === 'submission.spam' ? { spam_reason: r.spam_reason } : {}),
  };
}
