import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { filesOf, makePublishedForm, submissionsOf } from '../support/forms.ts';
import { newId } from '../../server/domain/shared/ids.ts';
import { makeTeam } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';

const t = await startLiveTestApp();

type Outcome = { status: number; body: string; sentBytes: number; closedMs: number; answeredMs: number };

/**
 * A multipart post of one file of `fileBytes`, written as fast as the server takes it, like curl or fetch
 * do. Records when the answer came (from the start), how much had been sent by then, and when the
 * connection closed.
 */
function postFile(path: string, fileBytes: number, opts: { field?: boolean } = {}): Promise<Outcome> {
  const boundary = 'xBOUNDARYx';
  const head = Buffer.from(
    (opts.field ? `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda\r\n` : '') +
      `--${boundary}\r\nContent-Disposition: form-data; name="upload"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const url = new URL(path, t.baseUrl);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = 0;
    let status = 0;
    let body = '';
    const req = http.request(url, {
      method: 'POST',
      headers: {
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': head.length + fileBytes + tail.length,
        Accept: 'application/json',
      },
    });
    req.on('response', (res) => {
      answered = performance.now() - started;
      status = res.statusCode!;
      res.on('data', (c: Buffer) => (body += c.toString()));
    });
    req.on('error', () => {}); // the server closing mid-upload is expected (EPIPE / ECONNRESET)
    req.on('close', () =>
      resolve({ status, body, sentBytes: sent, closedMs: performance.now() - started, answeredMs: answered }),
    );
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const write = () => {
      if (!req.writable) return;
      let ok = true;
      if (sent === 0) ok = req.write(head);
      while (ok && sent < fileBytes && req.writable) {
        const n = Math.min(chunk.length, fileBytes - sent);
        sent += n;
        ok = req.write(n === chunk.length ? chunk : chunk.subarray(0, n));
      }
      if (sent >= fileBytes) req.end(tail);
      else req.once('drain', write);
    };
    write();
    setTimeout(() => reject(new Error(`no answer after 20 s (sent ${sent} bytes)`)), 20_000).unref();
  });
}

describe('uploads over the limits', () => {
  for (const mb of [11, 100]) {
    it(`a ${mb} MB file gets 413 as soon as it crosses 10 MB, and the connection closes`, async () => {
      const owner = await makeTeam(t, { plan: 'pro' });
      const form = await makePublishedForm(t, owner);
      const out = await postFile(`/f/${form.id}`, mb * 1024 * 1024, { field: true });
      expect(out.status).toBe(413);
      expect(JSON.parse(out.body)).toMatchObject({ error: 'payload_too_large' });
      expect(out.answeredMs).toBeLessThan(10_000);
      // Closed without reading the rest: well short of the whole body for 100 MB.
      if (mb === 100) expect(out.sentBytes).toBeLessThan(60 * 1024 * 1024);
      expect(await submissionsOf(t, form.id)).toEqual([]);
      expect(await filesOf(t, form.id)).toEqual([]);
    });
  }

  it('a plan without uploads is refused (402) at the first file part, not after reading it all', async () => {
    const owner = await makeTeam(t, { plan: 'free' });
    const form = await makePublishedForm(t, owner);
    const out = await postFile(`/f/${form.id}`, 30 * 1024 * 1024);
    expect(out.status).toBe(402);
    expect(JSON.parse(out.body)).toMatchObject({ error: 'plan_limit_reached' });
    expect(out.sentBytes).toBeLessThan(20 * 1024 * 1024);
    expect(await submissionsOf(t, form.id)).toEqual([]);
  });
});

describe("the plan's file storage", () => {
  it('is enforced at ingest: a post whose files would exceed it is 402 and stores nothing', async () => {
    const owner = await makeTeam(t, { plan: 'pro' }); // 10 GiB of files
    const form = await makePublishedForm(t, owner);
    const limit = 10 * 1024 ** 3;
    // Stored files filling all but 100 bytes of the plan (rows only: their size is what counts).
    const sub = newId('subm');
    await t.ctx.db.query(
      `insert into submissions (id, team_id, form_id, status, payload) values ($1, $2, $3, 'received', '{}')`,
      [sub, owner.teamId, form.id],
    );
    await t.ctx.db.query(
      `insert into submission_files (id, team_id, form_id, submission_id, field, filename, content_type, size_bytes, storage_key)
       values ($1, $2, $3, $4, 'f', 'old.bin', 'application/octet-stream', $5, 'storage-test/old')`,
      [newId('file'), owner.teamId, form.id, sub, limit - 100],
    );
    const over = await t.http
      .post(`/f/${form.id}`)
      .set('Accept', 'application/json')
      .attach('cv', Buffer.alloc(101), { filename: 'cv.pdf' });
    expect(over.status).toBe(402);
    expect(over.body).toMatchObject({ error: 'plan_limit_reached', limit });
    expect((await filesOf(t, form.id)).map((f) => f.filename)).toEqual(['old.bin']);
    const fits = await t.http
      .post(`/f/${form.id}`)
      .set('Accept', 'application/json')
      .attach('cv', Buffer.alloc(100), { filename: 'cv.pdf' });
    expect(fits.status).toBe(201);
  });
});

describe('multipart parts', () => {
  it('a part without Content-Disposition is refused (400), not silently dropped', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const form = await makePublishedForm(t, owner);
    const b = 'pArTbOuNdArY';
    const body =
      `--${b}\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda\r\n` +
      `--${b}\r\nContent-Type: text/plain\r\n\r\nthe message, without a name\r\n` +
      `--${b}--\r\n`;
    const res = await t.http
      .post(`/f/${form.id}`)
      .set('Accept', 'application/json')
      .set('Content-Type', `multipart/form-data; boundary=${b}`)
      .send(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'validation_failed' });
    expect(await submissionsOf(t, form.id)).toEqual([]);
    // The same post with every part named is taken.
    const ok = body.replace('Content-Type: text/plain', 'Content-Disposition: form-data; name="message"');
    const taken = await t.http
      .post(`/f/${form.id}`)
      .set('Accept', 'application/json')
      .set('Content-Type', `multipart/form-data; boundary=${b}`)
      .send(ok);
    expect(taken.status).toBe(201);
    expect((await submissionsOf(t, form.id))[0]!.payload).toEqual({
      name: 'Ada',
      message: 'the message, without a name',
    });
  });
});
