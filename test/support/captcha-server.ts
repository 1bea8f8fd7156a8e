import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { testCertificate } from './tls.ts';

/** The three siteverify APIs (reCAPTCHA v2 and v3 share Google's). */
export type SiteverifyApi = 'turnstile' | 'hcaptcha' | 'recaptcha';

/** Where each API answers on this server, as on the real hosts. */
export const SITEVERIFY_PATHS: Record<SiteverifyApi, string> = {
  turnstile: '/turnstile/v0/siteverify',
  hcaptcha: '/hcaptcha/siteverify',
  recaptcha: '/recaptcha/api/siteverify',
};

/** One verify request as the server got it. */
export type VerifyRequest = {
  /** 1-based arrival order. */
  n: number;
  /** The API whose path was asked (null: an unknown path, answered 404). */
  api: SiteverifyApi | null;
  method: string;
  path: string;
  contentType: string;
  /** The form-urlencoded parameters (`secret`, `response`, `remoteip`, …); each name's first value. */
  params: Record<string, string>;
  /** The raw body. */
  body: string;
};

/**
 * A way for the provider to fail instead of answering: HTTP 500 (an HTML error page, as a load balancer
 * sends), never answer (`hang`: the socket stays open), send the headers and half the JSON and then
 * nothing (`stall-body`), drop the connection (`close`), a 200 that is not JSON, or a documented answer
 * saying the provider itself failed (`internal-error`, Turnstile's code).
 */
export type FailureMode = 'http500' | 'hang' | 'stall-body' | 'close' | 'not-json' | 'internal-error';

/** What a good token stands for: the site it was solved on, and for reCAPTCHA v3 its score and action. */
export type TokenOptions = { hostname?: string; score?: number; action?: string };

export type CaptchaServer = {
  /** https://localhost:<port> (the certificate names localhost). */
  url: string;
  /** Each API's full siteverify URL. */
  urls: Record<SiteverifyApi, string>;
  /** The app's environment pointing its three verify URLs here. */
  env: Record<string, string>;
  /** Every request so far, in arrival order. */
  requests: VerifyRequest[];
  /** A new secret key the API accepts (its sitekey's). */
  newSecret(api: SiteverifyApi): string;
  /**
   * A token a widget of `secret`'s site would post after a solved challenge: valid once. reCAPTCHA tokens
   * with a `score` are v3's (answered with `score` and `action`), without one v2's.
   */
  issueToken(api: SiteverifyApi, secret: string, opts?: TokenOptions): string;
  /** Fail every request to `api` (all APIs when omitted) as `mode` says, until `recover()`. */
  failWith(mode: FailureMode, api?: SiteverifyApi): void;
  recover(): void;
  /** Stops listening and destroys every open socket, hanging ones included. */
  close(): Promise<void>;
};

type Token = {
  api: SiteverifyApi;
  secret: string;
  used: boolean;
  hostname: string;
  score: number | null;
  action: string;
  issuedAt: Date;
};

type Answer = Record<string, unknown>;

const json = (res: ServerResponse, status: number, body: Answer) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
};

/** The error answer each API documents: `success: false` with `error-codes` (Turnstile adds `messages`). */
function refusal(api: SiteverifyApi, codes: string[]): Answer {
  return api === 'turnstile'
    ? { success: false, 'error-codes': codes, messages: [] }
    : { success: false, 'error-codes': codes };
}

/** The success answer each API documents for a token. */
function success(api: SiteverifyApi, token: Token): Answer {
  const challenge_ts = token.issuedAt.toISOString();
  if (api === 'turnstile') {
    return {
      success: true,
      challenge_ts,
      hostname: token.hostname,
      'error-codes': [],
      action: token.action,
      cdata: '',
      metadata: { ephemeral_id: `x:${randomBytes(10).toString('hex')}` },
    };
  }
  if (api === 'hcaptcha') return { success: true, challenge_ts, hostname: token.hostname, credit: false };
  // reCAPTCHA: v3 tokens carry a score and the action the page named; v2 answers have neither.
  if (token.score !== null)
    return { success: true, challenge_ts, hostname: token.hostname, score: token.score, action: token.action };
  return { success: true, challenge_ts, hostname: token.hostname };
}

/**
 * A local stand-in for the CAPTCHA providers' siteverify APIs over real HTTPS (self-signed, see tls.ts):
 * Cloudflare Turnstile, hCaptcha and Google reCAPTCHA (v2 and v3) as each documents the exchange —
 * POST `secret`, `response`, `remoteip` form-urlencoded, a JSON answer with `success`, `error-codes`,
 * `challenge_ts`, `hostname`, and the API's own extras (reCAPTCHA v3 `score` and `action`, hCaptcha
 * `credit`, Turnstile `action`, `cdata`, `metadata`). Secrets and tokens are issued by the server; a token
 * is valid for its own site's secret and only once, like the real ones:
 *
 * - no secret → `missing-input-secret`; an unknown one → `invalid-input-secret`;
 * - no token → `missing-input-response`; an unknown one → `invalid-input-response`;
 * - a token of another site → `invalid-input-response` (hCaptcha: `sitekey-secret-mismatch`);
 * - a token verified before → `timeout-or-duplicate` (hCaptcha: `invalid-or-already-seen-response`);
 * - anything but a form-urlencoded POST → `bad-request`.
 *
 * Every request is recorded, parsed, whatever the answer.
 */
export async function startCaptchaServer(): Promise<CaptchaServer> {
  const { key, cert } = testCertificate();
  const requests: VerifyRequest[] = [];
  const secrets = new Map<string, SiteverifyApi>();
  const tokens = new Map<string, Token>();
  const failures = new Map<SiteverifyApi | 'all', FailureMode>();
  const sockets = new Set<Socket>();

  const fail = (mode: FailureMode, api: SiteverifyApi, req: IncomingMessage, res: ServerResponse): void => {
    if (mode === 'hang') return;
    if (mode === 'close') return void req.socket.destroy();
    if (mode === 'stall-body') {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      return void res.write('{"success":');
    }
    if (mode === 'http500') {
      res.writeHead(500, { 'content-type': 'text/html' });
      return void res.end('<html><body><h1>500 Internal Server Error</h1></body></html>');
    }
    if (mode === 'not-json') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return void res.end('<!DOCTYPE html><html><body>Please enable cookies.</body></html>');
    }
    json(res, 200, refusal(api, ['internal-error']));
  };

  const verify = (api: SiteverifyApi, r: VerifyRequest): Answer => {
    if (r.method !== 'POST' || !r.contentType.toLowerCase().startsWith('application/x-www-form-urlencoded'))
      return refusal(api, ['bad-request']);
    const { secret, response } = r.params;
    if (!secret) return refusal(api, ['missing-input-secret']);
    if (secrets.get(secret) !== api) return refusal(api, ['invalid-input-secret']);
    if (!response) return refusal(api, ['missing-input-response']);
    const token = tokens.get(response);
    if (!token || token.api !== api) return refusal(api, ['invalid-input-response']);
    if (token.secret !== secret)
      return refusal(api, [api === 'hcaptcha' ? 'sitekey-secret-mismatch' : 'invalid-input-response']);
    if (token.used)
      return refusal(api, [api === 'hcaptcha' ? 'invalid-or-already-seen-response' : 'timeout-or-duplicate']);
    token.used = true;
    return success(api, token);
  };

  const server = https.createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      const api = (Object.keys(SITEVERIFY_PATHS) as SiteverifyApi[]).find((a) => SITEVERIFY_PATHS[a] === path) ?? null;
      const body = Buffer.concat(chunks).toString('utf8');
      const params: Record<string, string> = {};
      for (const [k, v] of new URLSearchParams(body)) if (!(k in params)) params[k] = v;
      const r: VerifyRequest = {
        n: requests.length + 1,
        api,
        method: req.method ?? '',
        path: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        params,
        body,
      };
      requests.push(r);
      if (!api) return void json(res, 404, { error: 'not found' });
      const mode = failures.get(api) ?? failures.get('all');
      if (mode) return fail(mode, api, req, res);
      json(res, 200, verify(api, r));
    });
  });
  server.keepAliveTimeout = 10_000;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const url = `https://localhost:${port}`;
  const urls = {
    turnstile: url + SITEVERIFY_PATHS.turnstile,
    hcaptcha: url + SITEVERIFY_PATHS.hcaptcha,
    recaptcha: url + SITEVERIFY_PATHS.recaptcha,
  };

  return {
    url,
    urls,
    env: {
      INTAKE_TURNSTILE_VERIFY_URL: urls.turnstile,
      INTAKE_HCAPTCHA_VERIFY_URL: urls.hcaptcha,
      INTAKE_RECAPTCHA_VERIFY_URL: urls.recaptcha,
    },
    requests,
    newSecret(api) {
      // Shaped like the real ones: Turnstile `0x4AAA…`, hCaptcha `0x…` (40 hex), reCAPTCHA `6L…` (40 chars).
      const secret =
        api === 'turnstile'
          ? `0x4AAAAAA${randomBytes(16).toString('hex')}`
          : api === 'hcaptcha'
            ? `0x${randomBytes(20).toString('hex')}`
            : `6L${randomBytes(28).toString('base64url').slice(0, 38)}`;
      secrets.set(secret, api);
      return secret;
    },
    issueToken(api, secret, opts = {}) {
      if (secrets.get(secret) !== api) throw new Error(`issueToken: ${secret} is not a ${api} secret of this server`);
      const value = `${api === 'turnstile' ? '0.' : api === 'hcaptcha' ? 'P1_' : '03A'}${randomBytes(48).toString('base64url')}`;
      tokens.set(value, {
        api,
        secret,
        used: false,
        hostname: opts.hostname ?? 'site.example',
        score: opts.score ?? null,
        action: opts.action ?? 'submit',
        issuedAt: new Date(),
      });
      return value;
    },
    failWith(mode, api) {
      failures.set(api ?? 'all', mode);
    },
    recover() {
      failures.clear();
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
