import { PUBLIC_POST_LIMITS } from '../../../contract/public-endpoint.ts';

/** Limits of a post to the public endpoint: the body parsers enforce them while reading; beyond them is refused, never truncated. */
export const INGEST_LIMITS = {
  ...PUBLIC_POST_LIMITS,
  /** multipart as a whole: every file at its limit plus the fields */
  multipartBytes: PUBLIC_POST_LIMITS.files * PUBLIC_POST_LIMITS.fileBytes + 2 * 1024 * 1024,
} as const;

/** The most field names a form learns (its export columns), enforced by a trigger; later names export in `_other`. */
export const FORM_FIELD_LIMIT = 500;

/** What a body reader is told for one post: the per-file limit, and whether files are taken at all. */
export type BodyLimits = { maxFileBytes: number; filesAllowed: boolean };

/** A form's file limit: its plan's, within the endpoint's own; a plan without uploads takes no file. */
export function bodyLimitsFor(plan: { fileUploads: boolean; maxFileBytes: number }): BodyLimits {
  const planBytes = plan.fileUploads && plan.maxFileBytes > 0 ? plan.maxFileBytes : INGEST_LIMITS.fileBytes;
  return { maxFileBytes: Math.min(planBytes, INGEST_LIMITS.fileBytes), filesAllowed: plan.fileUploads };
}
