import type { z } from 'zod';
import { isHttpUrl } from '../../../contract/common.ts';
import type { FormSettings, FormSettingsInput } from '../../../contract/forms.ts';
import { DEFAULT_HONEYPOT_FIELD } from '../../../contract/public-endpoint.ts';
import { encryptSecret } from '../../infra/outbound/signing.ts';
import { DEFAULT_MIN_SCORE, type StoredCaptcha } from './captcha.ts';
import { checkCustomRegex } from './custom-regex.ts';
import { validationFailed, type ErrorDetail } from '../shared/errors.ts';
import { checkSchema, normalizeSchema } from '../forms/field-schema.ts';
import { admissionProblems, storedInstant } from '../forms/admission.ts';
import { DEFAULT_STAGES } from '../../../contract/triage.ts';
import { stageProblems } from '../submissions/triage-rules.ts';

export const DEFAULT_AUTORESPONDER: FormSettings['autoresponder'] = {
  enabled: false,
  subject: 'We received your message',
  body_markdown: 'Hello,\n\nThank you for getting in touch: we received your message and will reply soon.',
  from_name: null,
  reply_to: null,
};

/** A form's settings as stored in `forms.settings`: the view's, with the CAPTCHA secret encrypted. */
export type StoredSettings = Omit<FormSettings, 'captcha'> & {
  captcha: StoredCaptcha | null;
  disabled_rules?: DisabledRule[];
};

export const DEFAULT_SETTINGS: StoredSettings = {
  redirect_url: null,
  honeypot_field: DEFAULT_HONEYPOT_FIELD,
  allowed_origins: [],
  custom_rules: { blocked_emails: [], keywords: [], regex: [] },
  ai_threshold: 0.75,
  fields: [],
  unknown_fields: 'keep',
  captcha: null,
  autoresponder: DEFAULT_AUTORESPONDER,
  retention: { submissions_days: null, spam_days: 30 },
  notification_mode: 'instant',
  notify_spam: false,
  unique: [],
  max_submissions: null,
  opens_at: null,
  closes_at: null,
  closed_message: null,
  closed_redirect_url: null,
  stages: DEFAULT_STAGES,
};

export function checkHoneypotField(name: string): void {
  if (!name.startsWith('_')) {
    // A honeypot must be a control field, or real payload fields could be mistaken for bot bait.
    throw validationFailed([
      { in: 'body', path: 'settings.honeypot_field', message: 'The honeypot field name must start with "_".' },
    ]);
  }
}

/** A form's stored settings over the defaults (stored settings may lack newer keys). */
export function storedSettings(stored: unknown): StoredSettings {
  const s = (stored ?? {}) as Partial<StoredSettings>;
  const rules = { ...DEFAULT_SETTINGS.custom_rules, ...(s.custom_rules ?? {}) };
  return {
    // A stored redirect the contract refuses (not http(s)) reads as none: the endpoint must never send it as Location.
    redirect_url: s.redirect_url && isHttpUrl(s.redirect_url) ? s.redirect_url : DEFAULT_SETTINGS.redirect_url,
    honeypot_field: s.honeypot_field ?? DEFAULT_SETTINGS.honeypot_field,
    allowed_origins: s.allowed_origins ?? DEFAULT_SETTINGS.allowed_origins,
    custom_rules: { blocked_emails: rules.blocked_emails, keywords: rules.keywords, regex: rules.regex },
    ai_threshold: s.ai_threshold ?? DEFAULT_SETTINGS.ai_threshold,
    fields: normalizeSchema(s.fields ?? []),
    unknown_fields: s.unknown_fields ?? DEFAULT_SETTINGS.unknown_fields,
    captcha: s.captcha ?? null,
    autoresponder: { ...DEFAULT_AUTORESPONDER, ...(s.autoresponder ?? {}) },
    retention: { ...DEFAULT_SETTINGS.retention, ...(s.retention ?? {}) },
    notification_mode: s.notification_mode ?? DEFAULT_SETTINGS.notification_mode,
    notify_spam: s.notify_spam ?? DEFAULT_SETTINGS.notify_spam,
    unique: s.unique ?? DEFAULT_SETTINGS.unique,
    max_submissions: s.max_submissions ?? null,
    opens_at: s.opens_at ?? null,
    closes_at: s.closes_at ?? null,
    closed_message: s.closed_message ?? null,
    closed_redirect_url:
      s.closed_redirect_url && isHttpUrl(s.closed_redirect_url)
        ? s.closed_redirect_url
        : DEFAULT_SETTINGS.closed_redirect_url,
    stages: (s.stages?.length ? s.stages : DEFAULT_SETTINGS.stages).map(({ key, label, done }) => ({
      key,
      label,
      done,
    })),
    ...(s.disabled_rules?.length ? { disabled_rules: s.disabled_rules } : {}),
  };
}

/** A form's settings as the API shows them: never the CAPTCHA secret, only its last 4 characters. */
export function formSettings(stored: unknown): FormSettings {
  const { captcha, disabled_rules: _disabled, ...rest } = storedSettings(stored);
  return {
    ...rest,
    captcha: captcha && {
      provider: captcha.provider,
      secret_last4: captcha.secret_last4,
      min_score: captcha.min_score,
    },
  };
}

export type DisabledRule = { kind: 'regex'; pattern: string; reason: string };

/** Stored regexes RE2 cannot run (set aside by migration 0005), shown on the form until its regex rules are saved again. */
export function disabledRules(stored: unknown): DisabledRule[] {
  const list = (stored as { disabled_rules?: unknown } | null)?.disabled_rules;
  return Array.isArray(list) ? (list as DisabledRule[]) : [];
}

type SettingsInput = z.infer<typeof FormSettingsInput>;

/** The CAPTCHA after an edit: null removes it; a new provider needs its secret; min_score is reCAPTCHA v3's. */
function mergeCaptcha(
  current: StoredCaptcha | null,
  input: SettingsInput['captcha'],
  key: Buffer,
  details: ErrorDetail[],
): StoredCaptcha | null {
  if (input === undefined) return current;
  if (input === null) return null;
  const problem = (path: string, message: string) =>
    details.push({ in: 'body', path: `settings.captcha.${path}`, message });
  if (input.min_score !== undefined && input.provider !== 'recaptcha_v3')
    problem('min_score', 'min_score applies to reCAPTCHA v3 only.');
  const sameProvider = current?.provider === input.provider;
  if (!input.secret_key && !sameProvider) {
    problem('secret_key', "The provider's secret key is required.");
    return current;
  }
  const secret = input.secret_key
    ? { secret_encrypted: encryptSecret(key, input.secret_key), secret_last4: input.secret_key.slice(-4) }
    : { secret_encrypted: current!.secret_encrypted, secret_last4: current!.secret_last4 };
  const minScore =
    input.provider === 'recaptcha_v3'
      ? (input.min_score ?? (sameProvider ? current!.min_score : null) ?? DEFAULT_MIN_SCORE)
      : null;
  return { provider: input.provider, ...secret, min_score: minScore };
}

/**
 * The stored settings after an edit: settings are merged key by key, `custom_rules` per list, the
 * autoresponder field by field; the schema and rules are checked (400 naming each problem).
 */
export function mergeSettings(
  current: StoredSettings,
  input: SettingsInput | undefined,
  captchaKey: Buffer,
): StoredSettings {
  if (!input) return current;
  const details: ErrorDetail[] = [];
  const { custom_rules, captcha, autoresponder, retention, opens_at, closes_at, ...plain } = input;
  const merged: StoredSettings = {
    ...current,
    ...Object.fromEntries(Object.entries(plain).filter(([, v]) => v !== undefined)),
    fields: normalizeSchema(plain.fields ?? current.fields),
    custom_rules: { ...current.custom_rules, ...(custom_rules ?? {}) },
    captcha: mergeCaptcha(current.captcha, captcha, captchaKey, details),
    autoresponder: { ...current.autoresponder, ...(autoresponder ?? {}) },
    retention: { ...current.retention, ...(retention ?? {}) },
    opens_at: opens_at === undefined ? current.opens_at : storedInstant(opens_at),
    closes_at: closes_at === undefined ? current.closes_at : storedInstant(closes_at),
  };
  if (plain.fields) details.push(...checkSchema(plain.fields));
  details.push(...admissionProblems(merged), ...stageProblems(merged.stages));
  if (details.length) throw validationFailed(details);
  checkCustomRegex(merged.custom_rules.regex);
  checkHoneypotField(merged.honeypot_field);
  return merged;
}
