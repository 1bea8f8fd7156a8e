import { request } from 'undici';
import type { CaptchaProvider } from '../../../contract/form-features.ts';
import type { Config } from '../../config.ts';
import { judge, type StoredCaptcha, type Verification } from './verification.ts';

/** The providers' documented answers are small; anything longer is not one. */
const ANSWER_LIMIT = 64 * 1024;
/** Provider error codes that say the provider, not the token, failed: the post is kept as unverified spam. */
const PROVIDER_FAULTS = new Set(['internal-error']);

export type CaptchaVerifier = (
  captcha: StoredCaptcha & { secret: string },
  token: string,
  remoteIp: string,
) => Promise<Verification>;

function verifyUrl(config: Config, provider: CaptchaProvider): string {
  if (provider === 'turnstile') return config.captchaVerifyUrls.turnstile;
  if (provider === 'hcaptcha') return config.captchaVerifyUrls.hcaptcha;
  return config.captchaVerifyUrls.recaptcha;
}

/**
 * Asks the provider's siteverify API about a token (the three providers share one protocol), within the
 * timeout: no answer, a non-200 or malformed answer is `unverified`, never a pass.
 */
export function siteverify(config: Config): CaptchaVerifier {
  return async (captcha, token, remoteIp) => {
    const body = new URLSearchParams({ secret: captcha.secret, response: token, remoteip: remoteIp }).toString();
    let status: number;
    let text: string;
    try {
      const res = await request(verifyUrl(config, captcha.provider), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body,
        signal: AbortSignal.timeout(config.captchaTimeoutMs),
      });
      status = res.statusCode;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > ANSWER_LIMIT) {
          res.body.destroy();
          return { outcome: 'unverified', reason: 'the answer is too large' };
        }
        chunks.push(chunk as Buffer);
      }
      text = Buffer.concat(chunks).toString('utf8');
    } catch (err) {
      const e = err as { name?: string; code?: string; message?: string };
      return {
        outcome: 'unverified',
        reason: e.name === 'TimeoutError' ? 'timeout' : (e.code ?? e.message ?? 'network error'),
      };
    }
    if (status !== 200) return { outcome: 'unverified', reason: `HTTP ${status}` };
    let answer: Record<string, unknown>;
    try {
      answer = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return { outcome: 'unverified', reason: 'the answer is not JSON' };
    }
    if (typeof answer?.success !== 'boolean')
      return { outcome: 'unverified', reason: 'the answer has no success flag' };
    const errorCodes = Array.isArray(answer['error-codes'])
      ? answer['error-codes'].filter((c): c is string => typeof c === 'string').slice(0, 10)
      : [];
    if (!answer.success && errorCodes.some((c) => PROVIDER_FAULTS.has(c)))
      return { outcome: 'unverified', reason: errorCodes.join(', ') };
    return judge(captcha, {
      success: answer.success,
      score: typeof answer.score === 'number' ? answer.score : null,
      hostname: typeof answer.hostname === 'string' ? answer.hostname.slice(0, 255) : null,
      errorCodes,
    });
  };
}
