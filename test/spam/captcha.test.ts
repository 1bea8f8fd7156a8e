import tls from 'node:tls';
import { Agent, setGlobalDispatcher } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { CaptchaProvider } from '../../contract/form-features.ts';
import {
  startCaptchaServer,
  SITEVERIFY_PATHS,
  type FailureMode,
  type SiteverifyApi,
} from '../support/captcha-server.ts';
import { makePublishedForm, submissionsOf } from '../support/forms.ts';
import { bearer, makeTeam, startTestApp, type TestApp, type TestMember } from '../support/harness.ts';
import { testCertificate } from '../support/tls.ts';

// The app asks the providers with undici's global dispatcher: make it trust the test certificate (and the
// machine's own roots), so verification runs over real HTTPS to the local siteverify server.
setGlobalDispatcher(new Agent({ connect: { ca: [...tls.rootCertificates, testCertificate().cert] } }));

const cap = await startCaptchaServer();
afterAll(() => cap.close());

// Posts come through a "proxy" on loopback, so each can carry its own client address (X-Forwarded-For),
// and the per-address limits stay out of reach: every post is judged on its CAPTCHA alone.
const appEnv = {
  ...cap.env,
  INTAKE_TRUST_PROXY: 'loopback',
  INTAKE_INGEST_RATE_LIMIT: '10000',
  INTAKE_INGEST_FLOOD_LIMIT: '10000',
};
const t = await startTestApp(appEnv);
// The same, but giving up on the provider after 300 ms.
const quick = await startTestApp({ ...appEnv, INTAKE_CAPTCHA_TIMEOUT_MS: '300' });

afterEach(() => cap.recover());

const PROVIDERS: CaptchaProvider[] = ['turnstile', 'hcaptcha', 'recaptcha_v2', 'recaptcha_v3'];
const API: Record<CaptchaProvider, SiteverifyApi> = {
  turnstile: 'turnstile',
  hcaptcha: 'hcaptcha',
  recaptcha_v2: 'recaptcha',
  recaptcha_v3: 'recaptcha',
};
const TOKEN_FIELD: Record<CaptchaProvider, string> = {
  turnstile: 'cf-turnstile-response',
  hcaptcha: 'h-captcha-response',
  recaptcha_v2: 'g-recaptcha-response',
  recaptcha_v3: 'g-recaptcha-response',
};

let ipCounter = 0;
/** A fresh client address (TEST-NET-3), so each post's `remoteip` is its own. */
const nextIp = () => `203.0.113.${(ipCounter++ % 250) + 1}`;

type CaptchaForm = { id: string; endpoint: string; owner: TestMember; provider: CaptchaProvider; secret: string };

/** A published form of a new team, its CAPTCHA set through `PUT /v1/forms/{form}` with a fresh secret. */
async function captchaForm(
  app: TestApp,
  provider: CaptchaProvider,
  extra: { min_score?: number; secret?: string } = {},
): Promise<CaptchaForm> {
  const owner = await makeTeam(app);
  const form = await makePublishedForm(app, owner);
  const secret = extra.secret ?? cap.newSecret(API[provider]);
  const captcha: Record<string, unknown> = { provider, secret_key: secret };
  if (extra.min_score !== undefined) captcha.min_score = extra.min_score;
  const res = await app.http.put(`/v1/forms/${form.id}`).set(bearer(owner.token)).send({ settings: { captcha } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { ...form, owner, provider, secret };
}

/** A good token for the form's site (reCAPTCHA v3: with this score). */
const goodToken = (f: CaptchaForm, score = 0.9) =>
  cap.issueToken(API[f.provider], f.secret, f.provider === 'recaptcha_v3' ? { score } : {});

/** A JSON post, as a script sends it, from `ip`. */
const postJson = (app: TestApp, f: { endpoint: string }, body: Record<string, unknown>, ip = nextIp()) =>
  app.http.post(f.endpoint).set('X-Forwarded-For', ip).set('Accept', 'application/json').send(body);

/** An HTML form post, as a browser navigates. */
const postBrowser = (app: TestApp, f: { endpoint: string }, fields: Record<string, string>, ip = nextIp()) =>
  app.http
    .post(f.endpoint)
    .set('X-Forwarded-For', ip)
    .set('Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')
    .set('Referer', 'https://site.example/contact')
    .type('form')
    .send(new URLSearchParams(fields).toString());

async function storedCount(app: TestApp, formId: string): Promise<number> {
  const { rows } = await app.ctx.db.query<{ n: string }>(
    'select count(*)::text as n from submissions where form_id = $1',
    [formId],
  );
  return Number(rows[0]!.n);
}

/** The verify requests that arrive while `fn` runs. */
async function verifiesDuring(fn: () => Promise<unknown>) {
  const before = cap.requests.length;
  await fn();
  return cap.requests.slice(before);
}

const expectCaptchaFailed = (res: {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}) => {
  expect(res.status).toBe(422);
  expect(res.headers['content-type']).toMatch(/application\/json/);
  expect(res.body).toEqual({ error: 'captcha_failed', message: expect.stringMatching(/CAPTCHA/) });
};

describe('a good token, verified with each provider over HTTPS', () => {
  it.each(PROVIDERS)(
    '%s: 201, stored without the token; the provider got the secret, the token and the client address',
    async (provider) => {
      const f = await captchaForm(t, provider);
      const token = goodToken(f);
      const ip = nextIp();
      let res!: Awaited<ReturnType<typeof postJson>>;
      const seen = await verifiesDuring(async () => {
        res = await postJson(t, f, { name: 'Ada', message: 'Hello', [TOKEN_FIELD[provider]]: token }, ip);
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ ok: true, id: expect.stringMatching(/^subm_/) });

      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({
        api: API[provider],
        method: 'POST',
        path: SITEVERIFY_PATHS[API[provider]],
        contentType: expect.stringMatching(/^application\/x-www-form-urlencoded/),
        // The decrypted secret, the token as posted, the client's address (X-Forwarded-For via the trusted proxy).
        params: { secret: f.secret, response: token, remoteip: ip },
      });

      const stored = await submissionsOf(t, f.id);
      expect(stored).toHaveLength(1);
      expect(stored[0]!.id).toBe(res.body.id);
      expect(stored[0]!.status).toBe('received');
      expect(stored[0]!.spam_reason).toBeNull();
      expect(stored[0]!.payload).toEqual({ name: 'Ada', message: 'Hello' });
      expect(stored[0]!.metadata.ip).toBe(ip);
      expect(stored[0]!.metadata.captcha).toEqual({
        provider,
        outcome: 'passed',
        score: provider === 'recaptcha_v3' ? 0.9 : null,
        hostname: 'site.example',
      });
      expect(JSON.stringify(stored[0]!.payload) + JSON.stringify(stored[0]!.metadata)).not.toContain(token);
    },
  );

  it('a browser posting a good token is redirected (303) to the thank-you page', async () => {
    const f = await captchaForm(t, 'turnstile');
    const res = await postBrowser(t, f, { name: 'Ada', 'cf-turnstile-response': goodToken(f) });
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(new RegExp(`^/f/${f.id}/thanks`));
    const [s] = await submissionsOf(t, f.id);
    expect(s!.status).toBe('received');
    expect(s!.payload).toEqual({ name: 'Ada' });
  });

  it('hCaptcha also fills g-recaptcha-response: that name alone is accepted too', async () => {
    const f = await captchaForm(t, 'hcaptcha');
    const token = goodToken(f);
    const res = await postJson(t, f, { name: 'Ada', 'g-recaptcha-response': token });
    expect(res.status).toBe(201);
    expect(cap.requests.at(-1)!.params.response).toBe(token);
    expect((await submissionsOf(t, f.id))[0]!.payload).toEqual({ name: 'Ada' });
  });

  it('every token field is stripped from the payload, whatever the provider (and with no CAPTCHA at all)', async () => {
    const f = await captchaForm(t, 'turnstile');
    const res = await postJson(t, f, {
      name: 'Ada',
      'cf-turnstile-response': goodToken(f),
      'h-captcha-response': 'x',
      'g-recaptcha-response': 'y',
    });
    expect(res.status).toBe(201);
    expect((await submissionsOf(t, f.id))[0]!.payload).toEqual({ name: 'Ada' });

    const owner = await makeTeam(t);
    const plain = await makePublishedForm(t, owner);
    const seen = await verifiesDuring(async () => {
      const r = await postJson(t, plain, {
        name: 'Bob',
        'cf-turnstile-response': 'a',
        'h-captcha-response': 'b',
        'g-recaptcha-response': 'c',
      });
      expect(r.status).toBe(201);
    });
    expect(seen).toHaveLength(0);
    const [s] = await submissionsOf(t, plain.id);
    expect(s!.payload).toEqual({ name: 'Bob' });
    expect(s!.metadata.captcha).toBeUndefined();
  });
});

describe('a missing or refused token stores nothing (422 captcha_failed)', () => {
  it.each(PROVIDERS)('%s: no token, or a blank one → 422 without asking the provider', async (provider) => {
    const f = await captchaForm(t, provider);
    const seen = await verifiesDuring(async () => {
      expectCaptchaFailed(await postJson(t, f, { name: 'Ada' }));
      expectCaptchaFailed(await postJson(t, f, { name: 'Ada', [TOKEN_FIELD[provider]]: '   ' }));
      expectCaptchaFailed(await postJson(t, f, { name: 'Ada', [TOKEN_FIELD[provider]]: 'x'.repeat(4097) }));
    });
    expect(seen).toHaveLength(0);
    expect(await storedCount(t, f.id)).toBe(0);
  });

  it("another provider's token field does not count", async () => {
    const f = await captchaForm(t, 'turnstile');
    // The token is good, but a Turnstile widget never posts it under hCaptcha's name.
    expectCaptchaFailed(await postJson(t, f, { name: 'Ada', 'h-captcha-response': goodToken(f) }));
    expect(await storedCount(t, f.id)).toBe(0);
  });

  it.each(PROVIDERS)(
    '%s: an unknown token, a token of another site and a replayed token are refused',
    async (provider) => {
      const f = await captchaForm(t, provider);
      const other = await captchaForm(t, provider);
      const field = TOKEN_FIELD[provider];
      const seen = await verifiesDuring(async () => {
        expectCaptchaFailed(await postJson(t, f, { name: 'Ada', [field]: 'forged-token-value' }));
        expectCaptchaFailed(await postJson(t, f, { name: 'Ada', [field]: goodToken(other) }));
        const token = goodToken(f);
        expect((await postJson(t, f, { name: 'First', [field]: token })).status).toBe(201);
        expectCaptchaFailed(await postJson(t, f, { name: 'Replay', [field]: token }));
      });
      // Each was asked, with this form's secret; the provider's answers say why.
      expect(seen.map((r) => r.params.secret)).toEqual([f.secret, f.secret, f.secret, f.secret]);
      const stored = await submissionsOf(t, f.id);
      expect(stored.map((s) => s.payload.name)).toEqual(['First']);
    },
  );

  it('a form whose secret the provider does not know (invalid-input-secret) takes nothing', async () => {
    // A secret this provider never issued (a typo, a revoked key): it answers invalid-input-secret.
    const f = await captchaForm(t, 'recaptcha_v2', { secret: '6L-not-a-real-secret-key-000000000000000' });
    const token = cap.issueToken('recaptcha', cap.newSecret('recaptcha'));
    expectCaptchaFailed(await postJson(t, f, { name: 'Ada', 'g-recaptcha-response': token }));
    expect(cap.requests.at(-1)!.params.secret).toBe('6L-not-a-real-secret-key-000000000000000');
    expect(await storedCount(t, f.id)).toBe(0);
  });

  it('a browser whose token is refused gets a 422 page asking to try again, not JSON', async () => {
    const f = await captchaForm(t, 'hcaptcha');
    const res = await postBrowser(t, f, { name: 'Ada', 'h-captcha-response': 'forged-token-value' });
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('Please try again');
    expect(res.text).not.toContain('captcha_failed');
    expect(() => JSON.parse(res.text)).toThrow();
    // A missing token too.
    const missing = await postBrowser(t, f, { name: 'Ada' });
    expect(missing.status).toBe(422);
    expect(missing.text).toContain('Please try again');
    expect(await storedCount(t, f.id)).toBe(0);
  });
});

describe('reCAPTCHA v3 scores', () => {
  it('the default min_score is 0.5: below is refused, at or above is stored with its score', async () => {
    const f = await captchaForm(t, 'recaptcha_v3');
    const view = await t.http.get(`/v1/forms/${f.id}`).set(bearer(f.owner.token));
    expect(view.body.data.settings.captcha.min_score).toBe(0.5);
    expectCaptchaFailed(await postJson(t, f, { name: 'Low', 'g-recaptcha-response': goodToken(f, 0.3) }));
    expect((await postJson(t, f, { name: 'Edge', 'g-recaptcha-response': goodToken(f, 0.5) })).status).toBe(201);
    expect((await postJson(t, f, { name: 'High', 'g-recaptcha-response': goodToken(f, 0.7) })).status).toBe(201);
    const stored = await submissionsOf(t, f.id);
    expect(stored.map((s) => [s.payload.name, (s.metadata.captcha as { score: number }).score])).toEqual([
      ['Edge', 0.5],
      ['High', 0.7],
    ]);
  });

  it("the form's own min_score decides", async () => {
    const f = await captchaForm(t, 'recaptcha_v3', { min_score: 0.8 });
    expectCaptchaFailed(await postJson(t, f, { name: 'Low', 'g-recaptcha-response': goodToken(f, 0.7) }));
    expect((await postJson(t, f, { name: 'High', 'g-recaptcha-response': goodToken(f, 0.9) })).status).toBe(201);
    expect((await submissionsOf(t, f.id)).map((s) => s.payload.name)).toEqual(['High']);
  });
});

describe('a provider that cannot be asked: the post is kept as spam (captcha_unverified), answered like success', () => {
  const modes: Array<[Exclude<FailureMode, 'hang' | 'stall-body'>, RegExp]> = [
    ['http500', /^HTTP 500$/],
    ['not-json', /^the answer is not JSON$/],
    ['internal-error', /^internal-error$/],
    // undici's code for a connection closed before the answer.
    ['close', /^(UND_ERR_SOCKET|ECONNRESET)$/],
  ];
  it.each(modes)('%s → 201, stored as spam', async (mode, reason) => {
    const f = await captchaForm(t, 'turnstile');
    cap.failWith(mode, 'turnstile');
    const token = goodToken(f);
    const seen = await verifiesDuring(async () => {
      const res = await postJson(t, f, { name: 'Ada', 'cf-turnstile-response': token });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ ok: true, id: expect.stringMatching(/^subm_/) });
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.params).toMatchObject({ secret: f.secret, response: token });
    const stored = await submissionsOf(t, f.id);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.status).toBe('spam');
    expect(stored[0]!.spam_reason).toBe('captcha_unverified');
    expect(stored[0]!.payload).toEqual({ name: 'Ada' });
    expect(stored[0]!.metadata.captcha).toEqual({
      provider: 'turnstile',
      outcome: 'unverified',
      reason: expect.stringMatching(reason),
    });
  });

  it('a provider that never answers is given up after INTAKE_CAPTCHA_TIMEOUT_MS (300 ms) → 201, spam', async () => {
    const f = await captchaForm(quick, 'recaptcha_v2');
    cap.failWith('hang', 'recaptcha');
    const started = Date.now();
    const res = await postJson(quick, f, { name: 'Ada', 'g-recaptcha-response': goodToken(f) });
    const took = Date.now() - started;
    expect(res.status).toBe(201);
    expect(took).toBeGreaterThanOrEqual(300);
    expect(took).toBeLessThan(3000);
    const stored = await submissionsOf(quick, f.id);
    expect(stored).toHaveLength(1);
    expect(stored[0]!).toMatchObject({ status: 'spam', spam_reason: 'captcha_unverified' });
    expect(stored[0]!.metadata.captcha).toEqual({ provider: 'recaptcha_v2', outcome: 'unverified', reason: 'timeout' });
  });

  it('an answer whose body stops half-way is given up after the timeout too → 201, spam', async () => {
    const f = await captchaForm(quick, 'hcaptcha');
    cap.failWith('stall-body', 'hcaptcha');
    const started = Date.now();
    const res = await postJson(quick, f, { name: 'Ada', 'h-captcha-response': goodToken(f) });
    const took = Date.now() - started;
    expect(res.status).toBe(201);
    expect(took).toBeGreaterThanOrEqual(300);
    expect(took).toBeLessThan(3000);
    const stored = await submissionsOf(quick, f.id);
    expect(stored).toHaveLength(1);
    expect(stored[0]!).toMatchObject({ status: 'spam', spam_reason: 'captcha_unverified' });
    expect(stored[0]!.metadata.captcha).toEqual({ provider: 'hcaptcha', outcome: 'unverified', reason: 'timeout' });
  });

  it('a browser is redirected (303) as on success; the other providers are not affected', async () => {
    const f = await captchaForm(t, 'hcaptcha');
    const ok = await captchaForm(t, 'turnstile');
    cap.failWith('http500', 'hcaptcha');
    const res = await postBrowser(t, f, { name: 'Ada', 'h-captcha-response': goodToken(f) });
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(new RegExp(`^/f/${f.id}/thanks`));
    expect((await submissionsOf(t, f.id))[0]!).toMatchObject({ status: 'spam', spam_reason: 'captcha_unverified' });
    expect((await postJson(t, ok, { name: 'Bob', 'cf-turnstile-response': goodToken(ok) })).status).toBe(201);
    expect((await submissionsOf(t, ok.id))[0]!.status).toBe('received');
  });

  it('once the provider is back, posts are verified again', async () => {
    const f = await captchaForm(t, 'turnstile');
    cap.failWith('http500');
    expect((await postJson(t, f, { name: 'Down', 'cf-turnstile-response': goodToken(f) })).status).toBe(201);
    cap.recover();
    expect((await postJson(t, f, { name: 'Up', 'cf-turnstile-response': goodToken(f) })).status).toBe(201);
    expectCaptchaFailed(await postJson(t, f, { name: 'Forged', 'cf-turnstile-response': 'forged' }));
    const stored = await submissionsOf(t, f.id);
    expect(stored.map((s) => [s.payload.name, s.status, s.spam_reason])).toEqual([
      ['Down', 'spam', 'captcha_unverified'],
      ['Up', 'received', null],
    ]);
  });
});

describe('the secret is write-only', () => {
  it('the API shows only its last 4 characters; the database holds it encrypted', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const secret = cap.newSecret('hcaptcha');
    const put = await t.http
      .put(`/v1/forms/${form.id}`)
      .set(bearer(owner.token))
      .send({ settings: { captcha: { provider: 'hcaptcha', secret_key: secret } } });
    expect(put.status).toBe(200);
    expect(put.body.data.settings.captcha).toEqual({
      provider: 'hcaptcha',
      secret_last4: secret.slice(-4),
      min_score: null,
    });
    expect(put.text).not.toContain(secret);

    const get = await t.http.get(`/v1/forms/${form.id}`).set(bearer(owner.token));
    expect(get.status).toBe(200);
    expect(get.body.data.settings.captcha).toEqual({
      provider: 'hcaptcha',
      secret_last4: secret.slice(-4),
      min_score: null,
    });
    expect(get.text).not.toContain(secret);
    expect(get.text).not.toContain('secret_encrypted');

    const list = await t.http.get('/v1/forms').set(bearer(owner.token));
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(secret);
    expect(list.text).not.toContain('secret_encrypted');

    const { rows } = await t.ctx.db.query<{ settings: string; captcha: Record<string, unknown> }>(
      "select settings::text as settings, settings->'captcha' as captcha from forms where id = $1",
      [form.id],
    );
    expect(rows[0]!.settings).not.toContain(secret);
    expect(rows[0]!.captcha).toEqual({
      provider: 'hcaptcha',
      secret_encrypted: expect.stringMatching(/^v1\./),
      secret_last4: secret.slice(-4),
      min_score: null,
    });

    // A form created with its CAPTCHA in one go is held the same way.
    const created = await t.http
      .post('/v1/forms')
      .set(bearer(owner.token))
      .send({ name: 'Other', settings: { captcha: { provider: 'turnstile', secret_key: secret } } });
    expect(created.status).toBe(201);
    expect(created.text).not.toContain(secret);
    expect(created.body.data.settings.captcha).toEqual({
      provider: 'turnstile',
      secret_last4: secret.slice(-4),
      min_score: null,
    });
  });
});

describe('CAPTCHA settings', () => {
  const put = (f: { id: string; owner: TestMember }, captcha: unknown) =>
    t.http.put(`/v1/forms/${f.id}`).set(bearer(f.owner.token)).send({ settings: { captcha } });
  const captchaOf = async (f: { id: string; owner: TestMember }) =>
    (await t.http.get(`/v1/forms/${f.id}`).set(bearer(f.owner.token))).body.data.settings.captcha;
  const expect400 = (res: { status: number; body: Record<string, unknown> }, path: string) => {
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
    expect((res.body.details as Array<{ path: string }>).map((d) => d.path)).toContain(path);
  };

  it('min_score is for reCAPTCHA v3 only (400), and nothing changes', async () => {
    const f = await captchaForm(t, 'turnstile');
    const before = await captchaOf(f);
    expect400(
      await put(f, { provider: 'turnstile', secret_key: cap.newSecret('turnstile'), min_score: 0.5 }),
      'settings.captcha.min_score',
    );
    expect400(
      await put(f, { provider: 'recaptcha_v2', secret_key: cap.newSecret('recaptcha'), min_score: 0.5 }),
      'settings.captcha.min_score',
    );
    expect(await captchaOf(f)).toEqual(before);
    // Still verified with the first secret.
    expect((await postJson(t, f, { 'cf-turnstile-response': goodToken(f) })).status).toBe(201);
    expect(cap.requests.at(-1)!.params.secret).toBe(f.secret);
  });

  it('a new provider needs its secret_key (400)', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const f = { id: form.id, owner };
    expect400(await put(f, { provider: 'hcaptcha' }), 'settings.captcha.secret_key');
    expect(await captchaOf(f)).toBeNull();
    expect400(
      await t.http
        .post('/v1/forms')
        .set(bearer(owner.token))
        .send({ name: 'x', settings: { captcha: { provider: 'turnstile' } } }),
      'settings.captcha.secret_key',
    );
    const turnstile = await captchaForm(t, 'turnstile');
    expect400(await put(turnstile, { provider: 'hcaptcha' }), 'settings.captcha.secret_key');
    expect((await captchaOf(turnstile)).provider).toBe('turnstile');
    // An unknown key or provider is refused by the contract.
    expect((await put(turnstile, { provider: 'turnstile', secret: 'x' })).status).toBe(400);
    expect((await put(turnstile, { provider: 'friendlycaptcha', secret_key: 'x' })).status).toBe(400);
  });

  it("changing reCAPTCHA v3's min_score without secret_key keeps the secret", async () => {
    const f = await captchaForm(t, 'recaptcha_v3', { min_score: 0.3 });
    const res = await put(f, { provider: 'recaptcha_v3', min_score: 0.8 });
    expect(res.status).toBe(200);
    expect(res.body.data.settings.captcha).toEqual({
      provider: 'recaptcha_v3',
      secret_last4: f.secret.slice(-4),
      min_score: 0.8,
    });
    expectCaptchaFailed(await postJson(t, f, { 'g-recaptcha-response': goodToken(f, 0.5) }));
    expect(cap.requests.at(-1)!.params.secret).toBe(f.secret);
    expect((await postJson(t, f, { name: 'High', 'g-recaptcha-response': goodToken(f, 0.9) })).status).toBe(201);
    expect(cap.requests.at(-1)!.params.secret).toBe(f.secret);
    // Saving the same provider again without min_score keeps the form's.
    expect((await put(f, { provider: 'recaptcha_v3' })).body.data.settings.captcha.min_score).toBe(0.8);
  });

  it('a new secret_key replaces the old one', async () => {
    const f = await captchaForm(t, 'turnstile');
    const next = cap.newSecret('turnstile');
    const res = await put(f, { provider: 'turnstile', secret_key: next });
    expect(res.status).toBe(200);
    expect(res.body.data.settings.captcha.secret_last4).toBe(next.slice(-4));
    // Tokens of the old key's site are refused now (sent with the new secret); the new site's pass.
    expectCaptchaFailed(await postJson(t, f, { 'cf-turnstile-response': goodToken(f) }));
    expect(cap.requests.at(-1)!.params.secret).toBe(next);
    expect((await postJson(t, f, { 'cf-turnstile-response': cap.issueToken('turnstile', next) })).status).toBe(201);
  });

  it('captcha: null removes it: posts without a token are taken again, the provider is not asked', async () => {
    const f = await captchaForm(t, 'hcaptcha');
    expectCaptchaFailed(await postJson(t, f, { name: 'Before' }));
    const res = await put(f, null);
    expect(res.status).toBe(200);
    expect(res.body.data.settings.captcha).toBeNull();
    const { rows } = await t.ctx.db.query<{ captcha: unknown }>(
      "select settings->'captcha' as captcha from forms where id = $1",
      [f.id],
    );
    expect(rows[0]!.captcha).toBeNull();
    const seen = await verifiesDuring(async () => {
      expect((await postJson(t, f, { name: 'After' })).status).toBe(201);
    });
    expect(seen).toHaveLength(0);
    const stored = await submissionsOf(t, f.id);
    expect(stored.map((s) => [s.payload.name, s.status])).toEqual([['After', 'received']]);
  });
});
