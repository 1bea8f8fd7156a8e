import type { CaptchaProvider } from '../../../contract/form-features.ts';

/** A CAPTCHA verification's vocabulary, below both the domain's rules and the adapter that asks the provider. */

/** reCAPTCHA v3's least accepted score when the form sets none (Google's suggested starting point). */
export const DEFAULT_MIN_SCORE = 0.5;

/** The form's CAPTCHA as stored in its settings, its secret encrypted. */
export type StoredCaptcha = {
  provider: CaptchaProvider;
  secret_encrypted: string;
  secret_last4: string;
  min_score: number | null;
};

/** What the provider answered: passed, refused (why), or could not be asked (why). */
export type Verification =
  | { outcome: 'passed'; score: number | null; hostname: string | null }
  | { outcome: 'failed'; errorCodes: string[]; score: number | null }
  | { outcome: 'unverified'; reason: string };

/** Whether the provider's answer lets the post in: success, and for reCAPTCHA v3 a score at or above the form's. */
export function judge(
  captcha: Pick<StoredCaptcha, 'provider' | 'min_score'>,
  answer: { success: boolean; score: number | null; errorCodes: string[]; hostname: string | null },
): Verification {
  if (!answer.success) return { outcome: 'failed', errorCodes: answer.errorCodes, score: answer.score };
  if (captcha.provider === 'recaptcha_v3') {
    const min = captcha.min_score ?? DEFAULT_MIN_SCORE;
    if (answer.score === null || answer.score < min)
      return { outcome: 'failed', errorCodes: ['score-too-low'], score: answer.score };
  }
  return { outcome: 'passed', score: answer.score, hostname: answer.hostname };
}
