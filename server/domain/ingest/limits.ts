import { PUBLIC_POST_LIMITS } from '../../../contract/public-endpoint.ts';
import { AppError, validationFailed } from '../shared/errors.ts';
import { jsonShape } from '../shared/json-walk.ts';

/** Limits of a post to the public endpoint: the body parsers enforce them while reading; beyond them is refused, never truncated. */
export const INGEST_LIMITS = {
  ...PUBLIC_POST_LIMITS,
  /** multipart as a whole: every file at its limit plus the fields */
  multipartBytes: PUBLIC_POST_LIMITS.files * PUBLIC_POST_LIMITS.fileBytes + 2 * 1024 * 1024,
} as const;

export { FORM_FIELD_LIMIT } from '../../infra/db/queries/forms.ts';

/** What a body reader is told for one post: the per-file limit, and whether files are taken at all. */
export type BodyLimits = { maxFileBytes: number; filesAllowed: boolean };

/** A form's file limit: its plan's, within the endpoint's own; a plan without uploads takes no file. */
export function bodyLimitsFor(plan: { fileUploads: boolean; maxFileBytes: number }): BodyLimits {
  const planBytes = plan.fileUploads && plan.maxFileBytes > 0 ? plan.maxFileBytes : INGEST_LIMITS.fileBytes;
  return { maxFileBytes: Math.min(planBytes, INGEST_LIMITS.fileBytes), filesAllowed: plan.fileUploads };
}

/**
 * A server-side submit's fields (already parsed JSON) within the public endpoint's limits: the same names,
 * counts, depth and value sizes a browser's post is held to.
 */
export function checkPostedFields(fields: Record<string, unknown>): void {
  const L = INGEST_LIMITS;
  const names = Object.keys(fields);
  if (names.length > L.fields) throw new AppError('payload_too_large', `At most ${L.fields} fields are accepted.`);
  const long = names.find((n) => n.length === 0 || n.length > L.fieldName);
  if (long !== undefined) {
    throw validationFailed([
      {
        in: 'body',
        path: `fields.${long.slice(0, L.fieldName)}`,
        message: `Field names are 1 to ${L.fieldName} characters.`,
      },
    ]);
  }
  const shape = jsonShape(fields, { maxDepth: L.jsonDepth, maxNodes: L.values });
  if (shape.depth > L.jsonDepth) {
    throw validationFailed([
      { in: 'body', path: 'fields', message: `Fields nested deeper than ${L.jsonDepth} levels are refused.` },
    ]);
  }
  if (shape.nodes > L.values)
    throw new AppError('payload_too_large', `At most ${L.values} values are accepted in all.`);
  if (shape.longestString > L.fieldValueBytes) {
    throw new AppError('payload_too_large', `A value or key exceeds ${L.fieldValueBytes} characters.`);
  }
}
