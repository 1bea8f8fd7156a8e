/**
 * Signed storage URLs (issue #4 acceptance): the URLs in `files[].url` of GET …/submissions/{id} and the
 * 302 Location of GET …/files/{file} are checked against an AWS Signature Version 4 query-string signer
 * written here from the AWS specification with node:crypto only — not the minio client's code. The
 * embedded s3rver enforces URL expiry but never checks signatures, so the signature equality below is
 * the only thing that proves the URLs would be accepted by MinIO or S3; the expiry checks re-sign URLs
 * with this signer (so they would be valid on a real S3 too) and let s3rver judge the time window.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, startTestApp } from '../support/harness.ts';

const t = await startTestApp();

// ---------------------------------------------------------------------------------------------------
// An independent SigV4 presigner / verifier (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html)
// ---------------------------------------------------------------------------------------------------

const REGION = 'us-east-1';
const SERVICE = 's3';
const ALGORITHM = 'AWS4-HMAC-SHA256';

/** URI-encode per SigV4: every byte except the unreserved A–Z a–z 0–9 - _ . ~ as %XY (upper-case hex). */
function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The query string as the server receives it: raw `k=v` pairs, percent-decoded (no `+` → space rule). */
function parseQuery(search: string): Array<[string, string]> {
  return search
    .replace(/^\?/, '')
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const i = pair.indexOf('=');
      const [k, v] = i === -1 ? [pair, ''] : [pair.slice(0, i), pair.slice(i + 1)];
      return [decodeURIComponent(k), decodeURIComponent(v)];
    });
}

function canonicalQuery(params: Array<[string, string]>): string {
  return params
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

/** S3 canonical URI: each path segment decoded and encoded once (slashes kept). */
function canonicalUri(pathname: string): string {
  return pathname
    .split('/')
    .map((segment) => uriEncode(decodeURIComponent(segment)))
    .join('/');
}

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
const sha256Hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');

function signingKey(secret: string, day: string, region = REGION, service = SERVICE): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
}

type SignatureParts = { canonicalRequest: string; stringToSign: string; signature: string };

/**
 * The signature of a presigned GET URL as S3 computes it: only the `host` header is signed (the only
 * one a browser following the link is certain to send), the payload is UNSIGNED-PAYLOAD, and every
 * query parameter except X-Amz-Signature is part of the canonical request.
 */
function computeSignature(url: URL, secret: string): SignatureParts {
  const params = parseQuery(url.search).filter(([k]) => k !== 'X-Amz-Signature');
  const get = (name: string) => params.find(([k]) => k === name)?.[1] ?? '';
  const amzDate = get('X-Amz-Date');
  const [, day, region, service, terminator] = get('X-Amz-Credential').split('/');
  expect(terminator).toBe('aws4_request');
  const signedHeaders = get('X-Amz-SignedHeaders').split(';');
  const headerValues: Record<string, string> = { host: url.host };
  const canonicalHeaders = signedHeaders
    .map((h) => `${h}:${(headerValues[h] ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const canonicalRequest = [
    'GET',
    canonicalUri(url.pathname),
    canonicalQuery(params),
    canonicalHeaders,
    signedHeaders.join(';'),
    'UNSIGNED-PAYLOAD',
  ].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = [ALGORITHM, amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signature = createHmac('sha256', signingKey(secret, day!, region, service))
    .update(stringToSign, 'utf8')
    .digest('hex');
  return { canonicalRequest, stringToSign, signature };
}

const amzDateOf = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

function parseAmzDate(s: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (!m) throw new Error(`bad X-Amz-Date ${s}`);
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

/**
 * Presigns `url` (its path and any extra query parameters, e.g. response-content-disposition) afresh
 * for `date`: replaces the X-Amz-* parameters and computes the signature with the signer above.
 */
function presign(url: URL, opts: { accessKey: string; secret: string; date: Date; expires: number }): URL {
  const out = new URL(url.toString());
  const kept = parseQuery(url.search).filter(([k]) => !k.startsWith('X-Amz-'));
  const amzDate = amzDateOf(opts.date);
  const params: Array<[string, string]> = [
    ...kept,
    ['X-Amz-Algorithm', ALGORITHM],
    ['X-Amz-Credential', `${opts.accessKey}/${amzDate.slice(0, 8)}/${REGION}/${SERVICE}/aws4_request`],
    ['X-Amz-Date', amzDate],
    ['X-Amz-Expires', String(opts.expires)],
    ['X-Amz-SignedHeaders', 'host'],
  ];
  out.search = `?${canonicalQuery(params)}`;
  const { signature } = computeSignature(out, opts.secret);
  out.search = `${out.search}&X-Amz-Signature=${signature}`;
  return out;
}

// ---------------------------------------------------------------------------------------------------

const storage = new URL(inject('storageUrl'));
const credentials = { accessKey: decodeURIComponent(storage.username), secret: decodeURIComponent(storage.password) };
const FILENAME = "Résumé (final) O'Brien 100%.txt";

/** Everything a presigned download URL from Intake must satisfy; returns the parsed URL. */
function expectValidPresignedUrl(raw: string, opts: { key: string; filename: string }): URL {
  const url = new URL(raw);
  // Host and path: the configured storage endpoint, path-style bucket/key.
  expect(url.protocol).toBe(storage.protocol);
  expect(url.host).toBe(storage.host);
  expect(decodeURIComponent(url.pathname)).toBe(`/${t.config.storageBucket}/${opts.key}`);
  const params = new Map(parseQuery(url.search));
  expect(params.get('X-Amz-Algorithm')).toBe(ALGORITHM);
  expect(params.get('X-Amz-Expires')).toBe('60');
  expect(params.get('X-Amz-SignedHeaders')).toBe('host');
  const date = params.get('X-Amz-Date')!;
  expect(Math.abs(parseAmzDate(date) - Date.now())).toBeLessThan(5_000);
  expect(params.get('X-Amz-Credential')).toBe(
    `${credentials.accessKey}/${date.slice(0, 8)}/${REGION}/${SERVICE}/aws4_request`,
  );
  // The download name rides in the signed query (RFC 6266 / 5987 ext-value), so it cannot be swapped.
  const disposition = params.get('response-content-disposition')!;
  expect(disposition).toMatch(/^attachment; filename\*=UTF-8''[A-Za-z0-9!#$&+\-.^_`|~%]+$/);
  expect(decodeURIComponent(disposition.replace(/^attachment; filename\*=UTF-8''/, ''))).toBe(opts.filename);

  const provided = params.get('X-Amz-Signature');
  expect(provided).toMatch(/^[0-9a-f]{64}$/);
  const { signature, canonicalRequest } = computeSignature(url, credentials.secret);
  expect(signature, `canonical request:\n${canonicalRequest}`).toBe(provided);
  expect(canonicalRequest).toContain('response-content-disposition=attachment%3B%20filename%2A%3DUTF-8%27%27');
  // Leaving response-content-disposition out (or changing it) changes the signature: it is signed.
  const stripped = new URL(url.toString());
  stripped.search = `?${parseQuery(url.search)
    .filter(([k]) => k !== 'response-content-disposition')
    .map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`)
    .join('&')}`;
  expect(computeSignature(stripped, credentials.secret).signature).not.toBe(provided);
  return url;
}

async function fetchBytes(url: URL | string): Promise<{ status: number; body: Buffer; disposition: string | null }> {
  const res = await fetch(url);
  return {
    status: res.status,
    body: Buffer.from(await res.arrayBuffer()),
    disposition: res.headers.get('content-disposition'),
  };
}

async function submissionWithFiles() {
  const owner = await makeTeam(t, { plan: 'pro' });
  const form = await makePublishedForm(t, owner);
  const bytes = randomBytes(4096);
  const second = Buffer.from('second file\n');
  const posted = await t.http
    .post(form.endpoint)
    .set('Accept', 'application/json')
    .field('name', 'Ada')
    .attach('cv', bytes, { filename: FILENAME, contentType: 'application/octet-stream' })
    .attach('notes', second, { filename: 'notes.txt', contentType: 'text/plain' });
  expect(posted.status).toBe(201);
  const { rows } = await t.ctx.db.query<{ id: string; filename: string; storage_key: string }>(
    'select id, filename, storage_key from submission_files where submission_id = $1 order by created_at, id',
    [posted.body.id],
  );
  expect(rows).toHaveLength(2);
  const byName = Object.fromEntries(rows.map((r) => [r.filename, r]));
  return {
    owner,
    form,
    submissionId: posted.body.id as string,
    files: { cv: { ...byName[FILENAME]!, bytes }, notes: { ...byName['notes.txt']!, bytes: second } },
  };
}

describe('the independent SigV4 signer', () => {
  it('reproduces the AWS documentation example for a presigned GET', () => {
    // https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html ("An example")
    const url = presign(new URL('https://examplebucket.s3.amazonaws.com/test.txt'), {
      accessKey: 'AKIAIOSFODNN7EXAMPLE',
      secret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      date: new Date('2013-05-24T00:00:00Z'),
      expires: 86400,
    });
    expect(url.searchParams.get('X-Amz-Signature')).toBe(
      'aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    );
  });
});

describe('signed storage URLs', () => {
  it('files[].url of GET …/submissions/{id}: SigV4-valid, 60 s, host, signed disposition, serves the stored bytes', async () => {
    const { owner, form, submissionId, files } = await submissionWithFiles();
    const res = await t.http.get(`/v1/forms/${form.id}/submissions/${submissionId}`).set(bearer(owner.token));
    expect(res.status).toBe(200);
    const listed = res.body.data.files as Array<{ id: string; filename: string; url: string; url_expires_at: string }>;
    expect(listed.map((f) => f.filename)).toEqual([FILENAME, 'notes.txt']);
    for (const f of listed) {
      const stored = f.filename === FILENAME ? files.cv : files.notes;
      const url = expectValidPresignedUrl(f.url, { key: stored.storage_key, filename: f.filename });
      const signedAt = parseAmzDate(url.searchParams.get('X-Amz-Date')!);
      expect(Math.abs(Date.parse(f.url_expires_at) - (signedAt + 60_000))).toBeLessThan(2_000);
      const got = await fetchBytes(url);
      expect(got.status).toBe(200);
      expect(got.body.equals(stored.bytes)).toBe(true);
      expect(got.disposition).toBe(url.searchParams.get('response-content-disposition'));
    }
  });

  it('the 302 Location of GET …/files/{file}: SigV4-valid, fresh on every request, serves the stored bytes', async () => {
    const { owner, form, submissionId, files } = await submissionWithFiles();
    const path = `/v1/forms/${form.id}/submissions/${submissionId}/files/${files.cv.id}`;
    const first = await t.http.get(path).set(bearer(owner.token)).redirects(0);
    expect(first.status).toBe(302);
    const url = expectValidPresignedUrl(first.headers.location!, { key: files.cv.storage_key, filename: FILENAME });
    const got = await fetchBytes(url);
    expect(got.status).toBe(200);
    expect(got.body.equals(files.cv.bytes)).toBe(true);
    expect(got.disposition).toBe(`attachment; filename*=UTF-8''${uriEncode(FILENAME)}`);
    // A new request a second later gets a newly dated, newly signed URL.
    await new Promise((r) => setTimeout(r, 1_100));
    const second = await t.http.get(path).set(bearer(owner.token)).redirects(0);
    const again = expectValidPresignedUrl(second.headers.location!, { key: files.cv.storage_key, filename: FILENAME });
    expect(again.searchParams.get('X-Amz-Date')).not.toBe(url.searchParams.get('X-Amz-Date'));
    expect(again.searchParams.get('X-Amz-Signature')).not.toBe(url.searchParams.get('X-Amz-Signature'));
  });

  it('expires after 60 seconds: a URL dated more than 60 s ago is refused, a freshly signed one works', async () => {
    const { owner, form, submissionId, files } = await submissionWithFiles();
    const res = await t.http
      .get(`/v1/forms/${form.id}/submissions/${submissionId}/files/${files.notes.id}`)
      .set(bearer(owner.token))
      .redirects(0);
    const issued = expectValidPresignedUrl(res.headers.location!, {
      key: files.notes.storage_key,
      filename: 'notes.txt',
    });

    // Re-signing Intake's URL at its own X-Amz-Date reproduces it exactly (the signer round-trips).
    const same = presign(issued, {
      ...credentials,
      date: new Date(parseAmzDate(issued.searchParams.get('X-Amz-Date')!)),
      expires: 60,
    });
    expect(same.searchParams.get('X-Amz-Signature')).toBe(issued.searchParams.get('X-Amz-Signature'));

    const at = (secondsAgo: number) =>
      presign(issued, { ...credentials, date: new Date(Date.now() - secondsAgo * 1000), expires: 60 });
    const expired = await fetchBytes(at(61));
    expect(expired.status).toBe(403);
    expect(expired.body.toString()).toContain('Request has expired');
    const longExpired = await fetchBytes(at(3_600));
    expect(longExpired.status).toBe(403);
    // Still inside the window (50 s of 60 used) and fresh: served.
    const late = await fetchBytes(at(50));
    expect(late.status).toBe(200);
    expect(late.body.equals(files.notes.bytes)).toBe(true);
    const fresh = await fetchBytes(at(0));
    expect(fresh.status).toBe(200);
    expect(fresh.body.equals(files.notes.bytes)).toBe(true);
    // The original, un-touched URL works as issued.
    expect((await fetchBytes(issued)).status).toBe(200);
  });

  it("is 404 for another team's file and never signs a URL for it", async () => {
    const { form, submissionId, files } = await submissionWithFiles();
    const other = await makeTeam(t, { plan: 'pro' });
    const res = await t.http
      .get(`/v1/forms/${form.id}/submissions/${submissionId}/files/${files.cv.id}`)
      .set(bearer(other.token))
      .redirects(0);
    expect(res.status).toBe(404);
    expect(res.headers.location).toBeUndefined();
  });
});
