/**
 * Limits of a post to the public endpoint, in one place: the body parsers enforce them while reading,
 * the ingest rules derive the per-form file limit from them. Anything beyond them is refused (413 or
 * 400), never truncated.
 */
export const INGEST_LIMITS = {
  fields: 200,
  fieldName: 64,
  fieldValueBytes: 64 * 1024,
  files: 10,
  /** Per file, whatever the plan allows beyond it (DESIGN: 10 MB per file, 10 files). */
  fileBytes: 10 * 1024 * 1024,
  /** urlencoded and JSON bodies */
  bodyBytes: 1024 * 1024,
  /** multipart as a whole: every file at its limit plus the fields */
  multipartBytes: 10 * 10 * 1024 * 1024 + 2 * 1024 * 1024,
  jsonDepth: 5,
  /** Every value of a JSON body counted: fields, list items, nested keys' values. */
  jsonValues: 2_000,
} as const;

/**
 * The most field names a form learns in its life (its export columns): a trigger enforces it in the
 * database (migration 0006); names past it stay in the payload and export in `_other`.
 */
export const FORM_FIELD_LIMIT = 500;

/** What a body reader is told for one post: the per-file limit, and whether files are taken at all. */
export type BodyLimits = { maxFileBytes: number; filesAllowed: boolean };

/** A form's file limit: its plan's, within the endpoint's own; a plan without uploads takes no file. */
export function bodyLimitsFor(plan: { fileUploads: boolean; maxFileBytes: number }): BodyLimits {
  const planBytes = plan.fileUploads && plan.maxFileBytes > 0 ? plan.maxFileBytes : INGEST_LIMITS.fileBytes;
  return { maxFileBytes: Math.min(planBytes, INGEST_LIMITS.fileBytes), filesAllowed: plan.fileUploads };
}
