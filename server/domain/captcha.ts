import type { CaptchaProvider } from '../../contract/form-features.ts';
import { CAPTCHA_TOKEN_FIELDS } from '../../contract/public-endpoint.ts';

/**
 * CAPTCHA rules. The widget puts its token in a field of the post (hCaptcha also fills the reCAPTCHA
 * name, for compatibility); those fields are never stored. A post whose token is missing or refused
 * stores nothing (422 `captcha_failed`); when the provider cannot be reached the post is kept as spam,
 * reason `captcha_unverified`, so nothing a person sent is lost while the provider is down.
 */
export { CAPTCHA_TOKEN_FIELDS };

const TOKEN_FIELD: Record<CaptchaProvider, readonly string[]> = {
  turnstile: ['cf-turnstile-response'],
  hcaptcha: ['h-captcha-response', 'g-recaptcha-response'],
  recaptcha_v2: ['g-recaptcha-response'],
  recaptcha_v3: ['g-recaptcha-response'],
};

/** reCAPTCHA v3's least accepted score when the form sets none (Google's suggested starting point). */
export const DEFAULT_MIN_SCORE = 0.5;

/** The form's CAPTCHA as stored in its settings: the secret encrypted (see webhooks/signing.ts). */
export type StoredCaptcha = { provider: CaptchaProvider; secret_encrypted: string; secret_last4: string; min_score: number | null };

/** The token the widget posted for this provider (the first non-empty one), or null. */
export function captchaToken(provider: CaptchaProvider, fields: Record<string, unknown>): string | null {
  for (const name of TOKEN_FIELD[provider]) {
    const v = fields[name];
    const token = Array.isArray(v) ? v[0] : v;
    if (typeof token === 'string' && token.trim()) return token.trim();
  }
  return null;
}

/** The post's fields without the CAPTCHA tokens (whatever the form's provider: a token is never data). */
export function withoutTokens<T>(fields: Record<string, T>): Record<string, T> {
  const rest = { ...fields };
  for (const name of CAPTCHA_TOKEN_FIELDS) delete rest[name];
  return rest;
}

/** What the provider answered: passed, refused (why), or could not be asked (why). */
export type Verification =
  | { outcome: 'passed'; score: number | null; hostname: string | null }
  | { outcome: 'failed'; errorCodes: string[]; score: number | null }
  | { outcome: 'unverified'; reason: string };

/** Whether the provider's answer lets the post in: success, and for reCAPTCHA v3 a score at or above the form's. */
export function judge(captcha: Pick<StoredCaptcha, 'provider' | 'min_score'>, answer: { success: boolean; score: number | null; errorCodes: string[]; hostname: string | null }): Verification {
  if (!answer.success) return { outcome: 'failed', errorCodes: answer.errorCodes, score: answer.score };
  if (captcha.provider === 'recaptcha_v3') {
    const min = captcha.min_score ?? DEFAULT_MIN_SCORE;
    if (answer.score === null || answer.score < min) return { outcome: 'failed', errorCodes: ['score-too-low'], score: answer.score };
  }
  return { outcome: 'passed', score: answer.score, hostname: answer.hostname };
}
