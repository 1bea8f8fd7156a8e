import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError, type WebhookVerificationReason } from '../../sdk/index.ts';
import { generateSecret, signatureHeaders } from '../../server/infra/outbound/signing.ts';

const TS = 1_760_000_000;
const event = { type: 'submission.created', submission_id: 'sub_1', payload: { name: 'Zoë 😀', note: 'a & b' } };
const body = JSON.stringify(event);

/** The headers as a receiver sees them: Node lower-cases names. */
const lower = (h: Record<string, string>) =>
  Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
const only = (h: Record<string, string>, prefix: string) =>
  Object.fromEntries(Object.entries(h).filter(([k]) => k.toLowerCase().startsWith(prefix)));

function reasonOf(fn: () => unknown): WebhookVerificationReason | 'no error' {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return (err as WebhookVerificationError).reason;
  }
  return 'no error';
}

describe('verifyWebhook', () => {
  const secret = generateSecret();
  const headers = signatureHeaders([secret], 'whd_1', TS, body);

  it('accepts the headers Intake sends and returns the parsed body', () => {
    expect(verifyWebhook(secret, headers, body, { now: TS })).toEqual(event);
    expect(verifyWebhook(secret, lower(headers), Buffer.from(body), { now: TS + 10 })).toEqual(event);
    expect(verifyWebhook([secret], new Headers(headers), new TextEncoder().encode(body), { now: TS - 10 })).toEqual(
      event,
    );
  });

  it('accepts either scheme alone, header names in any case', () => {
    expect(verifyWebhook(secret, only(headers, 'x-service-'), body, { now: TS })).toEqual(event);
    expect(verifyWebhook(secret, only(headers, 'webhook-'), body, { now: TS })).toEqual(event);
    const shouting = Object.fromEntries(
      Object.entries(only(headers, 'webhook-')).map(([k, v]) => [k.toUpperCase(), v]),
    );
    expect(verifyWebhook(secret, shouting, body, { now: TS })).toEqual(event);
    expect(
      verifyWebhook(
        secret,
        { 'x-service-timestamp': [String(TS)], 'x-service-signature': [headers['X-Service-Signature']] },
        body,
        { now: TS },
      ),
    ).toEqual(event);
  });

  it("accepts a signature made by the standardwebhooks package's sign", () => {
    const signature = new Webhook(secret).sign('msg_2', new Date(TS * 1000), body);
    const h = { 'webhook-id': 'msg_2', 'webhook-timestamp': String(TS), 'webhook-signature': signature };
    expect(verifyWebhook(secret, h, body, { now: TS })).toEqual(event);
    // And the real clock by default.
    const ts = Math.floor(Date.now() / 1000);
    const live = {
      'webhook-id': 'msg_3',
      'webhook-timestamp': String(ts),
      'webhook-signature': new Webhook(secret).sign('msg_3', new Date(ts * 1000), body),
    };
    expect(verifyWebhook(secret, live, body)).toEqual(event);
  });

  it('accepts a rotated pair with either secret, and either secret list', () => {
    const next = generateSecret();
    const old = generateSecret();
    const both = signatureHeaders([next, old], 'whd_r', TS, body);
    for (const scheme of ['x-service-', 'webhook-']) {
      const h = only(both, scheme);
      expect(verifyWebhook(next, h, body, { now: TS })).toEqual(event);
      expect(verifyWebhook(old, h, body, { now: TS })).toEqual(event);
      expect(verifyWebhook([generateSecret(), old], h, body, { now: TS })).toEqual(event);
      expect(reasonOf(() => verifyWebhook(generateSecret(), h, body, { now: TS }))).toBe('invalid_signature');
    }
    // A receiver that already holds both secrets accepts a request signed by the old one only.
    expect(verifyWebhook([next, old], signatureHeaders([old], 'whd_o', TS, body), body, { now: TS })).toEqual(event);
  });

  it('refuses a tampered body, a wrong secret, or a changed id', () => {
    for (const h of [headers, only(headers, 'x-service-'), only(headers, 'webhook-')]) {
      expect(reasonOf(() => verifyWebhook(secret, h, body.replace('Zoë', 'Zoe'), { now: TS }))).toBe(
        'invalid_signature',
      );
      expect(reasonOf(() => verifyWebhook(generateSecret(), h, body, { now: TS }))).toBe('invalid_signature');
    }
    expect(
      reasonOf(() => verifyWebhook(secret, { ...only(headers, 'webhook-'), 'webhook-id': 'whd_2' }, body, { now: TS })),
    ).toBe('invalid_signature');
    expect(reasonOf(() => verifyWebhook([], headers, body, { now: TS }))).toBe('invalid_signature');
  });

  it('refuses malformed signatures without throwing anything else', () => {
    const sig = headers['X-Service-Signature'];
    for (const bad of [
      sig.slice(0, -2),
      `${sig}00`,
      'v1=',
      'v2=' + sig.slice(3),
      sig.replace('v1=', 'v1,'),
      'garbage',
      ' ',
    ]) {
      expect(
        reasonOf(() =>
          verifyWebhook(secret, { 'X-Service-Timestamp': String(TS), 'X-Service-Signature': bad }, body, { now: TS }),
        ),
      ).toBe('invalid_signature');
    }
  });

  it('refuses a timestamp outside the tolerance, old or in the future', () => {
    expect(verifyWebhook(secret, headers, body, { now: TS + 300 })).toEqual(event);
    expect(verifyWebhook(secret, headers, body, { now: TS - 300 })).toEqual(event);
    for (const h of [only(headers, 'x-service-'), only(headers, 'webhook-')]) {
      expect(reasonOf(() => verifyWebhook(secret, h, body, { now: TS + 301 }))).toBe('timestamp_out_of_tolerance');
      expect(reasonOf(() => verifyWebhook(secret, h, body, { now: TS - 301 }))).toBe('timestamp_out_of_tolerance');
    }
    expect(reasonOf(() => verifyWebhook(secret, headers, body, { now: TS + 61, toleranceSeconds: 60 }))).toBe(
      'timestamp_out_of_tolerance',
    );
    // With the real clock, a 2025 timestamp is long expired.
    expect(reasonOf(() => verifyWebhook(secret, headers, body))).toBe('timestamp_out_of_tolerance');
    const h = signatureHeaders([secret], 'whd_1', TS, body);
    expect(
      reasonOf(() =>
        verifyWebhook(secret, { ...h, 'X-Service-Timestamp': 'soon', 'webhook-timestamp': '1e9' }, body, { now: TS }),
      ),
    ).toBe('timestamp_out_of_tolerance');
  });

  it('refuses a secret that encodes no key, which anyone could sign with', () => {
    // What a forger sends: both schemes signed with an empty HMAC key.
    const forged = {
      'X-Service-Timestamp': String(TS),
      'X-Service-Signature': `v1=${createHmac('sha256', '').update(`${TS}.${body}`).digest('hex')}`,
    };
    const forgedStandard = {
      'webhook-id': 'msg_f',
      'webhook-timestamp': String(TS),
      'webhook-signature': `v1,${createHmac('sha256', '').update(`msg_f.${TS}.${body}`).digest('base64')}`,
    };
    for (const empty of ['', 'whsec_', 'whsec_!!!!', '   ']) {
      for (const h of [forged, forgedStandard]) {
        expect(() => verifyWebhook(empty, h, body, { now: TS })).toThrow(TypeError);
        expect(() => verifyWebhook([secret, empty], h, body, { now: TS })).toThrow(/secret is empty/);
      }
    }
    // Checked before the request is read, so a misconfigured receiver fails on its first request.
    expect(() => verifyWebhook('whsec_', {}, body, { now: TS })).toThrow(TypeError);
  });

  it('refuses a toleranceSeconds that would turn the timestamp check off', () => {
    const stale = { now: TS + 10 * 365 * 86_400 };
    for (const toleranceSeconds of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -1]) {
      expect(() => verifyWebhook(secret, headers, body, { ...stale, toleranceSeconds })).toThrow(RangeError);
      expect(() => verifyWebhook(secret, headers, body, { ...stale, toleranceSeconds })).toThrow(/toleranceSeconds/);
    }
    expect(verifyWebhook(secret, headers, body, { now: TS, toleranceSeconds: 0 })).toEqual(event);
    expect(reasonOf(() => verifyWebhook(secret, headers, body, { now: TS + 1, toleranceSeconds: 0 }))).toBe(
      'timestamp_out_of_tolerance',
    );
    expect(reasonOf(() => verifyWebhook(secret, headers, body, { now: Number.NaN }))).toBe(
      'timestamp_out_of_tolerance',
    );
  });

  it('refuses missing headers', () => {
    expect(reasonOf(() => verifyWebhook(secret, {}, body, { now: TS }))).toBe('missing_headers');
    expect(reasonOf(() => verifyWebhook(secret, new Headers(), body, { now: TS }))).toBe('missing_headers');
    expect(
      reasonOf(() =>
        verifyWebhook(secret, { 'X-Service-Signature': headers['X-Service-Signature'] }, body, { now: TS }),
      ),
    ).toBe('missing_headers');
    const { 'webhook-id': _id, ...noId } = only(headers, 'webhook-');
    expect(reasonOf(() => verifyWebhook(secret, noId, body, { now: TS }))).toBe('missing_headers');
    expect(
      reasonOf(() =>
        verifyWebhook(
          secret,
          { 'x-service-timestamp': undefined, 'x-service-signature': headers['X-Service-Signature'] },
          body,
          { now: TS },
        ),
      ),
    ).toBe('missing_headers');
  });

  it('is an Error with a message and a name', () => {
    try {
      verifyWebhook(secret, {}, body);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).name).toBe('WebhookVerificationError');
      expect((err as Error).message).toMatch(/header/);
    }
  });
});
