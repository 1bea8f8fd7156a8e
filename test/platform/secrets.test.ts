import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import supertest from 'supertest';
import { describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { clusterDir } from '../../server/infra/db/embedded-postgres.ts';
import { EXPORT_LINK_SECONDS, fileLink } from '../../server/domain/submissions/file-links.ts';
import { createApp } from '../../server/transports/http/app.ts';
import { boot } from '../../server/main.ts';
import { unsubscribeLink, actionLink } from '../../server/domain/notifications/links.ts';
import { deriveKeys, loadSecretKey } from '../../server/infra/secret-key.ts';
import { encryptSecret, generateSecret, secretLast4 } from '../../server/infra/outbound/signing.ts';
import { hashToken } from '../../server/domain/accounts/tokens.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, startTestApp, testEnv } from '../support/harness.ts';
import { keyNeedles, rememberSecrets, scanRunLogs, scanText } from '../support/secret-scan.ts';

const t = await startTestApp();

/** A team with a form holding one submission with one file, and the /d link its CSV export gives. */
async function exportedFile() {
  const owner = await makeTeam(t, { plan: 'pro' });
  const form = await makePublishedForm(t, owner);
  await t.http
    .post(form.endpoint)
    .set('Accept', 'application/json')
    .attach('cv', Buffer.from('%PDF'), { filename: 'cv.pdf' });
  const csv = await t.http
    .get(`/v1/forms/${form.id}/submissions/export?format=csv`)
    .set(bearer(owner.token))
    .buffer(true);
  const link = new URL(/http:\/\/intake\.test\/d\/[^\s,]+/.exec(csv.text)![0]);
  const fileId = link.pathname.split('/').pop()!;
  return { owner, form, link, fileId, path: `${link.pathname}${link.search}` };
}

describe('keys', () => {
  it('one per purpose, derived from the server secret, none equal to it or to each other', () => {
    const secret = loadSecretKey(loadConfig(testEnv()));
    const keys = deriveKeys(secret);
    const all = [secret, ...Object.values(keys)].map((k) => k.toString('hex'));
    expect(new Set(all).size).toBe(all.length);
    expect(Object.values(keys).every((k) => k.length === 32)).toBe(true);
    expect(deriveKeys(secret).linkSigning.equals(keys.linkSigning)).toBe(true); // stable across processes
  });
});

describe('export download links (/d/{file})', () => {
  it('work while the form is live, stop while it is in the trash, and work again once restored', async () => {
    const { owner, form, path } = await exportedFile();
    expect((await t.http.get(path)).status).toBe(302);
    await t.http.delete(`/v1/forms/${form.id}`).set(bearer(owner.token));
    expect((await t.http.get(path)).status).toBe(404);
    await t.http.post(`/v1/forms/${form.id}/restore`).set(bearer(owner.token));
    expect((await t.http.get(path)).status).toBe(302);
  });

  it('are refused past 7 days ahead, even with a valid signature', async () => {
    const { form, fileId, owner } = await exportedFile();
    const key = t.ctx.keys.linkSigning;
    const at = (seconds: number) => Math.floor(Date.now() / 1000) + seconds;
    const ok = new URL(
      fileLink('http://intake.test', key, fileId, {
        teamId: owner.teamId,
        formId: form.id,
        expires: at(EXPORT_LINK_SECONDS),
      }),
    );
    expect((await t.http.get(`${ok.pathname}${ok.search}`)).status).toBe(302);
    const far = new URL(
      fileLink('http://intake.test', key, fileId, {
        teamId: owner.teamId,
        formId: form.id,
        expires: at(EXPORT_LINK_SECONDS + 86_400),
      }),
    );
    // Refused as every bad link is (404, one body: test/ingest/public-guards.test.ts), so none tells which files exist.
    expect((await t.http.get(`${far.pathname}${far.search}`)).status).toBe(404);
  });

  it('are tied to the file’s team and form: a signature made for another does not verify', async () => {
    const { form, fileId, owner } = await exportedFile();
    const other = await makeTeam(t);
    const expires = Math.floor(Date.now() / 1000) + 3600;
    for (const scope of [
      { teamId: other.teamId, formId: form.id, expires },
      { teamId: owner.teamId, formId: 'frm_00000000000000000000000000', expires },
    ]) {
      const u = new URL(fileLink('http://intake.test', t.ctx.keys.linkSigning, fileId, scope));
      expect((await t.http.get(`${u.pathname}${u.search}`)).status).toBe(404);
    }
    // Signed with the server secret itself (the old scheme) or another purpose's key: refused.
    for (const key of [loadSecretKey(loadConfig(testEnv())), t.ctx.keys.ipHashing]) {
      const u = new URL(
        fileLink('http://intake.test', key, fileId, { teamId: owner.teamId, formId: form.id, expires }),
      );
      expect((await t.http.get(`${u.pathname}${u.search}`)).status).toBe(404);
    }
  });
});

describe('no key in SQL text or logs', () => {
  const pgLog = path.join(clusterDir(path.join(inject('scratchDir'), 'pg')), 'server.log');
  it.skipIf(!fs.existsSync(pgLog))(
    'an export, failing or not, leaves the keys out of the Postgres log and the server log',
    async () => {
      const secret = loadSecretKey(loadConfig(testEnv()));
      const needles = [secret, ...Object.values(deriveKeys(secret))].flatMap((k) => [
        k.toString('hex'),
        k.toString('base64'),
      ]);
      // Every statement of a fresh app's connections goes to the Postgres log from here on.
      const dbName = new URL(inject('databaseUrl')).pathname.slice(1);
      await t.ctx.db.query(`alter database "${dbName}" set log_statement = 'all'`);
      const lines: string[] = [];
      const sink = new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) });
      try {
        const rt = await boot(loadConfig(testEnv()), {
          http: false,
          worker: false,
          services: true,
          log: pino({ level: 'trace' }, sink),
        });
        try {
          const app = supertest(createApp(rt.ctx));
          const { owner, form } = await exportedFile();
          for (const format of ['csv', 'json']) {
            expect(
              (
                await app
                  .get(`/v1/forms/${form.id}/submissions/export?format=${format}`)
                  .set(bearer(owner.token))
                  .buffer(true)
              ).status,
            ).toBe(200);
          }
          // A failing one: the form is gone by the time the query runs (the statement and its error are logged).
          expect(
            (await app.get(`/v1/forms/frm_00000000000000000000000000/submissions/export`).set(bearer(owner.token)))
              .status,
          ).toBe(404);
        } finally {
          await rt.close();
        }
      } finally {
        await t.ctx.db.query(`alter database "${dbName}" reset log_statement`);
      }
      const logged = fs.readFileSync(pgLog, 'utf8');
      expect(logged).toContain("current_setting('intake.link_key')"); // the log did record the export's statements
      for (const needle of needles) {
        expect(logged.includes(needle), 'Postgres log').toBe(false);
        expect(lines.join('').includes(needle), 'server log').toBe(false);
      }
    },
  );
});

describe("the scan of the run's logs (test/support/secret-scan.ts, run when the run ends)", () => {
  const logLine = (fields: Record<string, unknown>) =>
    JSON.stringify({ level: 40, time: Date.now(), pid: 1, hostname: 'h', ...fields, msg: 'something happened' });

  /** One log line per kind of secret, each made the way the server makes it. */
  async function secretLines() {
    const owner = await makeTeam(t);
    const secret = loadSecretKey(t.config);
    const webhookSecret = generateSecret();
    return {
      'API token': logLine({ authorization: `Bearer ${owner.token}` }),
      'webhook secret': logLine({ webhook: { id: 'wh_01kadc1x3w9cnpjt0v4fq2sg3e', secret: webhookSecret } }),
      'signed link token': [
        logLine({
          url: actionLink(t.ctx, { id: 'subm_01kadc1x3w9cnpjt0v4fq2sg3e', teamId: owner.teamId }, 'delete').url,
        }),
        logLine({
          path: new URL(
            unsubscribeLink(t.ctx, { id: 'frm_01kadc1x3w9cnpjt0v4fq2sg3e', teamId: owner.teamId }, 'a@example.test'),
          ).pathname,
        }),
      ],
      'export link signature': logLine({
        link: fileLink('http://intake.test', t.ctx.keys.linkSigning, 'file_01kadc1x3w9cnpjt0v4fq2sg3e', {
          teamId: owner.teamId,
          formId: 'frm_01kadc1x3w9cnpjt0v4fq2sg3e',
          expires: 1_900_000_000,
        }),
      }),
      'Turnstile secret': logLine({ params: { secret: `0x4AAAAAA${randomBytes(16).toString('hex')}` } }),
      'hCaptcha secret': `secret=0x${randomBytes(20).toString('hex')}&response=P1_abc`,
      'reCAPTCHA secret': logLine({
        settings: {
          captcha: { provider: 'recaptcha_v2', secret_key: `6L${randomBytes(30).toString('base64url').slice(0, 38)}` },
        },
      }),
      'the server secret': `2026-01-01 00:00:00.000 UTC [42] LOG:  execute <unnamed>: select $1\n2026-01-01 00:00:00.000 UTC [42] DETAIL:  Parameters: $1 = '\\x${secret.toString('hex')}'`,
      'the linkSigning key': logLine({ key: t.ctx.keys.linkSigning.toString('base64') }),
      'the webhookSecrets key': logLine({ key: t.ctx.keys.webhookSecrets.toString('base64url') }),
      'password in a URL': [
        logLine({
          err: { message: 'connect ECONNREFUSED', url: 'postgres://intake:Zr7sV3qLp9wX@db.internal:5432/intake' },
        }),
        'Error: Invalid login: 535 for smtp://mailer:hunter2hunter2@smtp.example.com:587',
      ],
    };
  }

  it('finds each kind of secret, by its format or as a key of the run, and reports it redacted', async () => {
    const lines = await secretLines();
    const known = keyNeedles(loadSecretKey(t.config));
    for (const [kind, line] of Object.entries(lines)) {
      for (const l of [line].flat()) {
        const found = scanText(l, known);
        expect(
          found.map((f) => f.kind),
          l,
        ).toEqual([kind]);
        // The excerpt names the kind and shows none of the secret.
        expect(found[0]!.excerpt).toContain(`[${kind}`);
        expect(scanText(found[0]!.excerpt, known), found[0]!.excerpt).toEqual([]);
      }
    }
  });

  it('passes a clean log: ids, last4s, hashes, encrypted secrets, masked URLs, CAPTCHA responses, cursors', async () => {
    const owner = await makeTeam(t);
    const webhookSecret = generateSecret();
    const known = keyNeedles(loadSecretKey(t.config));
    const clean = [
      logLine({
        token: { id: owner.tokenId, name: 'ci', last4: owner.token.slice(-4) },
        teamId: owner.teamId,
        userId: owner.userId,
      }),
      logLine({ webhook: { id: 'wh_01kadc1x3w9cnpjt0v4fq2sg3e', secret_last4: secretLast4(webhookSecret) } }),
      `DETAIL:  Parameters: $1 = '${hashToken(owner.token)}', $2 = '${encryptSecret(t.ctx.keys.webhookSecrets, webhookSecret)}'`,
      `DETAIL:  Parameters: $1 = '${encryptSecret(t.ctx.keys.captchaSecrets, `0x${randomBytes(20).toString('hex')}`)}'`,
      logLine({
        url: 'postgres://postgres@127.0.0.1:5432/intake',
        masked: 'smtp://mailer:***@smtp.example.com',
        example: 'https://example.com/a@b',
      }),
      logLine({
        captcha: {
          provider: 'turnstile',
          secret_last4: 'a1b2',
          response: `0.${randomBytes(48).toString('base64url')}`,
        },
      }),
      logLine({
        cursor: Buffer.from(JSON.stringify(['2026-01-01T00:00:00Z', 'subm_01kadc1x3w9cnpjt0v4fq2sg3e'])).toString(
          'base64url',
        ),
      }),
      logLine({
        sha256: randomBytes(32).toString('hex'),
        etag: randomBytes(16).toString('hex'),
        file: 'file_01kadc1x3w9cnpjt0v4fq2sg3e.pdf',
      }),
      `LOG:  execute <unnamed>: select id from tokens where token_hash = $1 and revoked_at is null`,
    ];
    for (const line of clean) expect(scanText(line, known), line).toEqual([]);
  });

  it('fails when a captured log holds a secret, naming the file and line; passes when none does', async () => {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-scan-'));
    try {
      fs.mkdirSync(path.join(scratch, 'logs'));
      const secret = randomBytes(32);
      const configured = {
        INTAKE_SECRET_KEY: 'the operator-chosen secret',
        DATABASE_URL: 'postgres://intake:Zr7sV3qLp9wX@db/intake',
      };
      rememberSecrets(scratch, { secretKeys: [secret], env: configured });
      fs.writeFileSync(
        path.join(scratch, 'logs', 'clean.app.1-1.log'),
        `${logLine({ id: 'tok_01kadc1x3w9cnpjt0v4fq2sg3e' })}\n`,
      );
      expect(await scanRunLogs(scratch)).toMatch(/^secret scan: 1 log files, .*: no secrets$/);

      const token = `intk_${'a1B2c3D4e5'.repeat(4)}`;
      fs.writeFileSync(
        path.join(scratch, 'logs', 'leaky.worker.1-2.log'),
        `${logLine({ ok: true })}\n${logLine({ token })}\n`,
      );
      fs.writeFileSync(
        path.join(scratch, 'logs', 'config.serve.1-3.log'),
        `${logLine({ config: { secretKey: configured.INTAKE_SECRET_KEY, db: { password: 'Zr7sV3qLp9wX' } } })}\n`,
      );
      const pgLog = path.join(scratch, 'server.log');
      const link = `http://intake.test/d/file_01kadc1x3w9cnpjt0v4fq2sg3e?expires=1900000000&signature=${randomBytes(32).toString('hex')}`;
      fs.writeFileSync(
        pgLog,
        `LOG:  statement: select 1\nDETAIL:  Parameters: $1 = '\\x${deriveKeys(secret).erasureValues.toString('hex')}'\nDETAIL:  Parameters: $6 = '{"{\\"url\\":\\"${link}\\"}"}'\n`,
      );
      fs.writeFileSync(path.join(scratch, 'logs', 'links.app.1-4.log'), `${logLine({ link })}\n`);
      const failed = await scanRunLogs(scratch, { postgresLog: pgLog }).then(
        () => null,
        (err: Error) => err.message,
      );
      expect(failed).toMatch(/secrets in the run's logs/);
      expect(failed).toContain('logs/leaky.worker.1-2.log:2: API token');
      expect(failed).toContain('server.log:2: the erasureValues key');
      // A delivery's stored request body, with its signed file links, may show in the statement log; not in an app's.
      expect(failed).not.toContain('server.log:3');
      expect(failed).toContain('logs/links.app.1-4.log:1: export link signature');
      expect(failed).toMatch(
        /logs\/config\.serve\.1-3\.log:1: a configured secret or password\n.*\n.*logs\/config\.serve\.1-3\.log:1: a configured secret or password/,
      );
      for (const shown of [configured.INTAKE_SECRET_KEY, 'Zr7sV3qLp9wX']) expect(failed).not.toContain(shown);
      expect(failed).not.toContain(token);
      expect(failed).not.toContain(deriveKeys(secret).erasureValues.toString('hex'));
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
});
