import { createHash, createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  decryptSecret,
  encryptSecret,
  generateSecret,
  secretHash,
  secretLast4,
  signatureHeaders,
} from '../../server/infra/outbound/signing.ts';

const now = () => Math.floor(Date.now() / 1000);

describe('webhook secrets', () => {
  it('are whsec_ + base64 of 32 random bytes', () => {
    const a = generateSecret();
    const b = generateSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(a).not.toBe(b);
  });

  it('have a last-4 and a SHA-256 hash of the secret text', () => {
    const secret = 'whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=';
    expect(secretLast4(secret)).toBe('Hh8=');
    expect(secretHash(secret)).toBe(createHash('sha256').update(secret, 'utf8').digest('hex'));
    expect(secretHash(secret)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('signatureHeaders', () => {
  // The Standard Webhooks specification's own example (github.com/standard-webhooks/standard-webhooks).
  const specSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const specBody = '{"test": 2432232314}';

  it('matches the Standard Webhooks published test vector', () => {
    const h = signatureHeaders([specSecret], 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, specBody);
    expect(h['webhook-signature']).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    expect(h['X-Service-Signature']).toBe('v1=e96203c6de850e7dc1fde7489ef6140b402d3a5a64fe250cd2eef9830fac1cef');
  });

  // Fixed vectors (computed with `openssl dgst -sha256 -mac HMAC`), shipped so receivers in any language can check
  // their implementation; a UTF-8 body and a rotated pair, current secret first.
  const current = 'whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=';
  const previous = specSecret;
  const body = '{"name":"Zoë 😀"}';

  it('produces the exact expected headers for a fixed secret, id, timestamp and body', () => {
    expect(signatureHeaders([current], 'whd_01', 1700000000, body)).toEqual({
      'X-Service-Timestamp': '1700000000',
      'X-Service-Signature': 'v1=4af9394a5a979b9f87a4d52a2d1ea186f8a57496d8b50a60ea8e70e1ca7bcf4c',
      'webhook-id': 'whd_01',
      'webhook-timestamp': '1700000000',
      'webhook-signature': 'v1,yhhNmrWc3zMQbx5zZrjRrnLD1SLwRi08KgG5ybUKxZI=',
    });
    expect(signatureHeaders([current, previous], 'whd_01', 1700000000, body)).toEqual({
      'X-Service-Timestamp': '1700000000',
      'X-Service-Signature':
        'v1=4af9394a5a979b9f87a4d52a2d1ea186f8a57496d8b50a60ea8e70e1ca7bcf4c v1=4a62d52c5a64eb67e77bad488b2e61cc18af13fe822cce11cd732646e9b787fd',
      'webhook-id': 'whd_01',
      'webhook-timestamp': '1700000000',
      'webhook-signature':
        'v1,yhhNmrWc3zMQbx5zZrjRrnLD1SLwRi08KgG5ybUKxZI= v1,XypL+0xwcWOA76DjJsG0MRIx9UplrlHjw5wXfmavjtU=',
    });
  });

  it('signs with the decoded key bytes, as an independent node:crypto computation shows', () => {
    const secret = generateSecret();
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const ts = now();
    const text = JSON.stringify({ hello: 'wörld', n: [1, 2, 3] });
    const h = signatureHeaders([secret], 'whd_x', ts, text);
    expect(h['X-Service-Timestamp']).toBe(String(ts));
    expect(h['X-Service-Signature']).toBe(`v1=${createHmac('sha256', key).update(`${ts}.${text}`).digest('hex')}`);
    expect(h['webhook-signature']).toBe(
      `v1,${createHmac('sha256', key).update(`whd_x.${ts}.${text}`).digest('base64')}`,
    );
    // Not the secret's text as a key: that would be a different (and non-interoperable) signature.
    expect(h['X-Service-Signature']).not.toBe(
      `v1=${createHmac('sha256', secret).update(`${ts}.${text}`).digest('hex')}`,
    );
  });

  it('is accepted by the standardwebhooks package', () => {
    const secret = generateSecret();
    const text = JSON.stringify({ type: 'submission.created', payload: { msg: 'hi 😀' } });
    const headers = signatureHeaders([secret], 'whd_abc', now(), text);
    expect(new Webhook(secret).verify(text, headers)).toEqual(JSON.parse(text));
    expect(() => new Webhook(secret).verify(`${text} `, headers)).toThrow();
    expect(() => new Webhook(generateSecret()).verify(text, headers)).toThrow();
  });

  it('during a rotation signs with both secrets, and each alone verifies', () => {
    const next = generateSecret();
    const old = generateSecret();
    const text = '{"ok":true}';
    const headers = signatureHeaders([next, old], 'whd_rot', now(), text);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(headers['X-Service-Signature']).toMatch(/^v1=[0-9a-f]{64} v1=[0-9a-f]{64}$/);
    expect(new Webhook(next).verify(text, headers)).toEqual({ ok: true });
    expect(new Webhook(old).verify(text, headers)).toEqual({ ok: true });
    expect(() => new Webhook(generateSecret()).verify(text, headers)).toThrow();
  });
});

describe('secret encryption', () => {
  const key = randomBytes(32);

  it('round-trips, with a fresh IV each time', () => {
    const secret = generateSecret();
    const a = encryptSecret(key, secret);
    const b = encryptSecret(key, secret);
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain(secret.slice(6, 20));
    expect(decryptSecret(key, a)).toBe(secret);
    expect(decryptSecret(key, b)).toBe(secret);
    // iv (12) + tag (16) + the 50-byte secret.
    expect(Buffer.from(a.slice(3), 'base64url')).toHaveLength(12 + 16 + secret.length);
  });

  it('refuses a wrong key', () => {
    const stored = encryptSecret(key, generateSecret());
    expect(() => decryptSecret(randomBytes(32), stored)).toThrow(/cannot be decrypted/);
  });

  it('refuses a flipped byte anywhere (IV, tag or ciphertext)', () => {
    const stored = encryptSecret(key, generateSecret());
    const raw = Buffer.from(stored.slice(3), 'base64url');
    for (const at of [0, 11, 12, 27, 28, raw.length - 1]) {
      const bad = Buffer.from(raw);
      bad[at]! ^= 0x01;
      expect(() => decryptSecret(key, `v1.${bad.toString('base64url')}`), `byte ${at}`).toThrow(/cannot be decrypted/);
    }
  });

  it('refuses a truncated value (a short GCM tag) and an unknown format', () => {
    const stored = encryptSecret(key, generateSecret());
    const raw = Buffer.from(stored.slice(3), 'base64url');
    expect(() => decryptSecret(key, `v1.${raw.subarray(0, 20).toString('base64url')}`)).toThrow(/truncated/);
    expect(() => decryptSecret(key, `v1.${raw.subarray(0, raw.length - 1).toString('base64url')}`)).toThrow(
      /cannot be decrypted/,
    );
    expect(() => decryptSecret(key, stored.slice(3))).toThrow(/unknown format/);
  });
});
