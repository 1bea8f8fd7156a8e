import type { AppContext } from '../../context.ts';
import type { SubmissionEventRow } from '../../infra/db/queries/webhook-events.ts';
import type { SubmissionEvent } from '../../infra/outbound/providers.ts';
import { EXPORT_LINK_SECONDS, fileLink } from '../submissions/file-links.ts';
import { iso } from '../shared/timestamps.ts';

/** A submission event (`submission.created` by default), as every provider renders it; files as signed links valid 7 days. */
export function submissionEvent(ctx: AppContext, s: SubmissionEventRow, type: SubmissionEvent['type'] = 'submission.created'): SubmissionEvent {
  const scope = { teamId: s.team_id, formId: s.form_id, expires: Math.floor(Date.now() / 1000) + EXPORT_LINK_SECONDS };
  return {
    type,
    submission_id: s.id,
    form_id: s.form_id,
    form_name: s.form_name,
    received_at: iso(s.received_at),
    payload: s.payload,
    files: s.files.map((f) => ({ ...f, url: fileLink(ctx.config.baseUrl, ctx.keys.linkSigning, f.id, scope) })),
    meta: { category: s.category, score: s.score, referrer: s.referrer, user_agent: s.user_agent },
    ...(type === 'submission.spam' ? { spam_reason: s.spam_reason } : {}),
  };
}
