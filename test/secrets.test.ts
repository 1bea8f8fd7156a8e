import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import supertest from 'supertest';
import { describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../server/config.ts';
import { clusterDir } from '../server/db/embedded-postgres.ts';
import { EXPORT_LINK_SECONDS, fileLink } from '../server/domain/file-links.ts';
import { createApp } from '../server/http/app.ts';
import { boot } from '../server/main.ts';
import { deriveKeys, loadSecretKey } from '../server/secret-key.ts';
import { makePublishedForm } from './support/forms.ts';
import { bearer, makeTeam, startTestApp, testEnv } from './support/harness.ts';

const t = await startTestApp();

/** A team with a form holding one submission with one file, and the /d link its CSV export gives. */
async function exportedFile() {
  const owner = await makeTeam(t, { plan: 'pro' });
  const form = await makePublishedForm(t, owner);
  await t.http.post(form.endpoint).set('Accept', 'application/json').attach('cv', Buffer.from('%PDF'), { filename: 'cv.pdf' });
  const csv = await t.http.get(`/v1/forms/${form.id}/submissions/export?format=csv`).set(bearer(owner.token)).buffer(true);
  const link = new URL(/http:\/\/intake\.test\/d\/\S+/.exec(csv.text)![0]);
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
    const ok = new URL(fileLink('http://intake.test', key, fileId, { teamId: owner.teamId, formId: form.id, expires: at(EXPORT_LINK_SECONDS) }));
    expect((await t.http.get(`${ok.pathname}${ok.search}`)).status).toBe(302);
    const far = new URL(fileLink('http://intake.test', key, fileId, { teamId: owner.teamId, formId: form.id, expires: at(EXPORT_LINK_SECONDS + 86_400) }));
    expect((await t.http.get(`${far.pathname}${far.search}`)).status).toBe(403);
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
      expect((await t.http.get(`${u.pathname}${u.search}`)).status).toBe(403);
    }
    // Signed with the server secret itself (the old scheme) or another purpose's key: refused.
    for (const key of [loadSecretKey(loadConfig(testEnv())), t.ctx.keys.ipHashing]) {
      const u = new URL(fileLink('http://intake.test', key, fileId, { teamId: owner.teamId, formId: form.id, expires }));
      expect((await t.http.get(`${u.pathname}${u.search}`)).status).toBe(403);
    }
  });
});

describe('no key in SQL text or logs', () => {
  const pgLog = path.join(clusterDir(path.join(inject('scratchDir'), 'pg')), 'server.log');
  it.skipIf(!fs.existsSync(pgLog))('an export, failing or not, leaves the keys out of the Postgres log and the server log', async () => {
    const secret = loadSecretKey(loadConfig(testEnv()));
    const needles = [secret, ...Object.values(deriveKeys(secret))].flatMap((k) => [k.toString('hex'), k.toString('base64')]);
    // Every statement of a fresh app's connections goes to the Postgres log from here on.
    const dbName = new URL(inject('databaseUrl')).pathname.slice(1);
    await t.ctx.db.query(`alter database "${dbName}" set log_statement = 'all'`);
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) });
    try {
      const rt = await boot(loadConfig(testEnv()), { http: false, worker: false, services: true, log: pino({ level: 'trace' }, sink) });
      try {
        const app = supertest(createApp(rt.ctx));
        const { owner, form } = await exportedFile();
        for (const format of ['csv', 'json']) {
          expect((await app.get(`/v1/forms/${form.id}/submissions/export?format=${format}`).set(bearer(owner.token)).buffer(true)).status).toBe(200);
        }
        // A failing one: the form is gone by the time the query runs (the statement and its error are logged).
        expect((await app.get(`/v1/forms/frm_00000000000000000000000000/submissions/export`).set(bearer(owner.token))).status).toBe(404);
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
  });
});
