import type { Response } from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { PAGE_CSP } from '../../server/transports/http/pages.ts';
import { launchChromium, type HeadlessBrowser } from '../support/browser.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';

/**
 * The headers every answer carries (issue 15): nothing names the framework, nothing may be sniffed or
 * framed, HTML pages run under a policy that allows their one stylesheet only, and answers that may
 * carry a secret or a signed URL are never stored by a cache.
 */

const t = await startLiveTestApp();
const owner = await makeTeam(t, { plan: 'scale' });
const form = await makePublishedForm(t, owner);

function expectHardened(res: Response, label: string) {
  expect(res.headers['x-powered-by'], label).toBeUndefined();
  expect(res.headers['x-content-type-options'], label).toBe('nosniff');
  expect(res.headers['content-security-policy'], label).toMatch(/default-src 'none'|default-src 'self'/);
  expect(res.headers['content-security-policy'], label).toContain("frame-ancestors 'none'");
}

const noStore = (res: Response) => res.headers['cache-control'];

describe('every answer', () => {
  it('has no X-Powered-By, has nosniff and a content security policy that forbids framing', async () => {
    const answers: Array<[string, Response]> = [
      ['healthz', await t.http.get('/healthz')],
      ['api success', await t.http.get('/v1/me').set(bearer(owner.token))],
      ['api 401', await t.http.get('/v1/me')],
      ['api 404 route', await t.http.get('/v1/nowhere').set(bearer(owner.token))],
      [
        'public post',
        await t.http.post(form.endpoint).set('Accept', 'application/json').send({ email: 'a@example.test' }),
      ],
      ['public 404', await t.http.post('/f/frm_00000000000000000000000000').send({ a: 1 })],
      ['thank-you page', await t.http.get(`${form.endpoint}/thanks`)],
      ['e-mail link page', await t.http.get('/v/not-a-token')],
      ['openapi document', await t.http.get('/v1/openapi.json')],
      ['browser helper', await t.http.get('/intake.js')],
    ];
    for (const [label, res] of answers) expectHardened(res, label);
  });

  it('a JSON answer opened as a page may load or run nothing', async () => {
    const res = await t.http.get('/v1/me').set(bearer(owner.token));
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    );
  });
});

describe('Cache-Control: no-store', () => {
  it('on every API and MCP answer: a new token, a webhook secret, a signed file URL, an error', async () => {
    const token = await t.http
      .post('/v1/tokens')
      .set(bearer(owner.token))
      .send({ name: 'headers', abilities: ['forms:read'] });
    expect(token.status).toBe(201);
    expect(noStore(token)).toBe('no-store');
    const hook = await t.http
      .post(`/v1/forms/${form.id}/webhooks`)
      .set(bearer(owner.token))
      .send({ label: 'h', url: 'https://93.184.215.14/hook' }); // a public IP literal: no DNS needed;
    expect(hook.status).toBe(201);
    expect(hook.body.secret).toMatch(/^whsec_/);
    expect(noStore(hook)).toBe('no-store');
    expect(noStore(await t.http.get(`/v1/forms/${form.id}/submissions`).set(bearer(owner.token)))).toBe('no-store');
    expect(noStore(await t.http.get('/v1/me'))).toBe('no-store');
    const mcp = await t.http
      .post('/mcp')
      .set(bearer(owner.token))
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    expect(mcp.status).toBe(200);
    expect(noStore(mcp)).toBe('no-store');
  });

  it('not on the public API reference, which is the same for everyone', async () => {
    expect(noStore(await t.http.get('/v1/openapi.json'))).not.toBe('no-store');
    expect(noStore(await t.http.get('/intake.js'))).toMatch(/^public/);
  });

  it('on the pages e-mail links open (their URL is a credential)', async () => {
    const res = await t.http.get('/u/not-a-token');
    expect(res.status).toBe(404);
    expect(noStore(res)).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });
});

describe('HTML pages', () => {
  let browser: HeadlessBrowser | null = null;
  afterAll(() => browser?.close());

  it('are served under the page policy: their stylesheet by hash, no script, forms post only here', async () => {
    for (const path of [`${form.endpoint}/thanks`, '/v/not-a-token', '/a/not-a-token']) {
      const res = await t.http.get(path);
      expect(res.headers['content-type'], path).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy'], path).toBe(PAGE_CSP);
    }
    expect(PAGE_CSP).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]{43}='; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/,
    );
    const refused = await t.http
      .post(form.endpoint)
      .set('Accept', 'text/html')
      .type('form')
      .send({ a: '1' })
      .redirects(0);
    expect(refused.status).toBe(303); // a browser post is redirected to the thank-you page checked above
  });

  it('render styled in Chromium with no policy violation (the hash matches the stylesheet)', async () => {
    browser = await launchChromium();
    const page = await browser.context.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.goto(`${t.baseUrl}${form.endpoint}/thanks`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Thank you!');
    // The stylesheet applied: body is a grid (the browser default is block).
    await expect(page.evaluate('getComputedStyle(document.body).display')).resolves.toBe('grid');
    // A script injected into the page would not run.
    const ran = await page.evaluate(`(() => {
      const s = document.createElement('script');
      s.textContent = 'window.__ran = true';
      document.body.append(s);
      return window.__ran === true;
    })()`);
    expect(ran).toBe(false);
    expect(violations.some((v) => /script/i.test(v))).toBe(true);
    expect(violations.filter((v) => /style/i.test(v))).toEqual([]);
  });
});
