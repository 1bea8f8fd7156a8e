import type { CaptchaProvider } from '../../../contract/form-features.ts';
import { CAPTCHA_TOKEN_FIELDS } from '../../../contract/public-endpoint.ts';

/**
 * CAPTCHA rules. The widget's token fields are never stored. A missing or refused token stores nothing
 * (422); an unreachable provider keeps the post as spam, so nothing a person sent is lost.
 */
export { CAPTCHA_TOKEN_FIELDS };
export { DEFAULT_MIN_SCORE, judge, type StoredCaptcha, type Verification } from '../../infra/captcha/verification.ts';

const TOKEN_FIELD: Record<CaptchaProvider, readonly string[]> = {
  turnstile: ['cf-turnstile-response'],
  hcaptcha: ['h-captcha-response', 'g-recaptcha-response'],
  recaptcha_v2: ['g-recaptcha-response'],
  recaptcha_v3: ['g-recaptcha-response'],
};

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
