import { createHmac } from 'node:crypto';
import {
  DEFAULT_CLOSED_MESSAGE,
  DEFAULT_DUPLICATE_MESSAGE,
  type ClosedReason,
  type FormStatus,
  type UniqueRule,
} from '../../../contract/form-admission.ts';
import type { FormSettings } from '../../../contract/forms.ts';
import { AppError, type ErrorDetail } from '../shared/errors.ts';

/** Who may submit, when and how often: a form's dates, entry limit and unique rules. */

type Admission = Pick<
  FormSettings,
  'unique' | 'max_submissions' | 'opens_at' | 'closes_at' | 'closed_message' | 'closed_redirect_url' | 'fields'
>;

/** The problems of a form's admission settings, each naming its field (400 `validation_failed`). */
export function admissionProblems(s: Admission): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const problem = (path: string, message: string) => details.push({ in: 'body', path: `settings.${path}`, message });
  if (s.opens_at && s.closes_at && Date.parse(s.closes_at) <= Date.parse(s.opens_at)) {
    problem('closes_at', 'closes_at must be after opens_at.');
  }
  const named = new Set(s.fields.map((f) => f.name));
  const seen = new Map<string, number>();
  s.unique.forEach((rule, i) => {
    if (new Set(rule.fields).size !== rule.fields.length) problem(`unique.${i}.fields`, 'A field is named twice.');
    const earlier = seen.get(ruleIdentity(rule));
    if (earlier !== undefined) problem(`unique.${i}`, `Compares the same fields the same way as rule ${earlier}.`);
    seen.set(ruleIdentity(rule), i);
    for (const [j, field] of rule.fields.entries()) {
      if (field.startsWith('_')) {
        problem(`unique.${i}.fields.${j}`, `"${field}" is a control field (it starts with "_"): it is never stored.`);
      } else if (named.size && !named.has(field)) {
        problem(`unique.${i}.fields.${j}`, `"${field}" is not a field of the form's schema.`);
      }
    }
  });
  return details;
}

/** An instant as stored and shown: UTC, milliseconds. */
export function storedInstant(value: string | null | undefined): string | null {
  return value ? new Date(value).toISOString() : null;
}

/** Why the form takes no post at `now` by its dates, or null. */
export function closedByDate(s: Admission, now: Date): ClosedReason | null {
  if (s.opens_at && now.getTime() < Date.parse(s.opens_at)) return 'not_yet_open';
  if (s.closes_at && now.getTime() >= Date.parse(s.closes_at)) return 'closed';
  return null;
}

/** The form's status for `GET /f/{form}/status`, given the clean submissions it keeps (when it has a limit). */
export function formStatus(s: Admission, now: Date, kept: number | null): FormStatus {
  const remaining = s.max_submissions === null ? null : Math.max(0, s.max_submissions - (kept ?? 0));
  const reason = closedByDate(s, now) ?? (remaining === 0 ? 'limit_reached' : null);
  return { open: reason === null, reason, opens_at: s.opens_at, closes_at: s.closes_at, remaining };
}

/** 403 `form_closed`: nothing was stored. */
export function formClosed(s: Admission, reason: ClosedReason): AppError {
  return new AppError('form_closed', s.closed_message ?? DEFAULT_CLOSED_MESSAGE, {
    reason,
    opens_at: s.opens_at,
    closes_at: s.closes_at,
  });
}

/** 409 `duplicate_submission` for the rule a post repeats. */
export function duplicateSubmission(rule: UniqueRule): AppError {
  return new AppError('duplicate_submission', rule.message ?? DEFAULT_DUPLICATE_MESSAGE, { fields: rule.fields });
}

/** One value as a unique rule compares it; '' is empty. */
function normalized(value: unknown, how: UniqueRule['normalize']): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) {
    return value
      .map((v) => normalized(v, how))
      .filter((v) => v !== '')
      .sort()
      .join('\u001f');
  }
  const raw = typeof value === 'string' ? value : JSON.stringify(value);
  if (how === 'exact') return raw;
  const trimmed = raw.normalize('NFKC').trim().toLowerCase();
  return how === 'email' ? trimmed : trimmed.replace(/\s+/g, ' ');
}

/** What a rule's keys are made of: its fields (in any order) and how it compares them. */
function ruleIdentity(rule: Pick<UniqueRule, 'fields' | 'normalize'>): string {
  return JSON.stringify([[...rule.fields].sort(), rule.normalize]);
}

/** Whether `after` has a rule `before` had not (its fields or normalization are new): kept submissions must claim it. */
export function addsUniqueRule(before: UniqueRule[], after: UniqueRule[]): boolean {
  const known = new Set(before.map(ruleIdentity));
  return after.some((rule) => !known.has(ruleIdentity(rule)));
}

/** A unique rule's key for a post: which rule (its fields and normalization) and the digest of its values. */
export type UniqueKey = { rule: number; key: string; holdDays: number | null };

/**
 * The keys a clean post claims, one per rule that applies to it (a rule whose fields are all empty does not):
 * keyed digests of the form, the rule and the values, so the values are never stored a second time. The key
 * names the rule's fields and normalization, not its window or message, so editing those keeps what is held.
 * 128 bits: a chance collision among all forms' keys would need some 2^64 of them.
 */
export function uniqueKeys(
  secret: Buffer,
  formId: string,
  rules: UniqueRule[],
  payload: Record<string, unknown>,
): UniqueKey[] {
  const keys: UniqueKey[] = [];
  rules.forEach((rule, i) => {
    const values = rule.fields.map((f) => normalized(payload[f], rule.normalize));
    if (values.every((v) => v === '')) return;
    const identity = ruleIdentity(rule);
    const ordered = rule.fields.map((f, j) => [f, values[j]]).sort(([a], [b]) => (a! < b! ? -1 : 1));
    const key = createHmac('sha256', secret)
      .update(formId)
      .update('\u0000')
      .update(identity)
      .update('\u0000')
      .update(JSON.stringify(ordered))
      .digest()
      .subarray(0, 16)
      .toString('base64url');
    keys.push({ rule: i, key, holdDays: rule.window_days });
  });
  return keys;
}
