import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
// vitest's bundler (rolldown) ships oxc's minifier: the size bound is measured on real minified output.
import { minifySync } from 'rolldown/utils';
import { Agent, setGlobalDispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_HELPER_PATH } from '../../server/transports/http/browser-helper.ts';
import { launchChromium, type HeadlessBrowser } from '../support/browser.ts';
import { startCaptchaServer } from '../support/captcha-server.ts';
import { filesOf, makePublishedForm, readObject, submissionsOf } from '../support/forms.ts';
import { bearer, makeTeam } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';
import { testCertificate } from '../support/tls.ts';

// The app asks the CAPTCHA provider with undici's global dispatcher: trust the local siteverify server.
setGlobalDispatcher(new Agent({ connect: { ca: [...tls.rootCertificates, testCertificate().cert] } }));
const cap = await startCaptchaServer();
afterAll(() => cap.close());

// Three posts per form and address, then 429: one test reaches the limit, the others stay under it.
const t = await startLiveTestApp({ ...cap.env, INTAKE_INGEST_RATE_LIMIT: '10000', INTAKE_INGEST_FLOOD_LIMIT: '3' });
const SCRIPT = readFileSync(BROWSER_HELPER_PATH, 'utf8');

const SCHEMA = [
  { name: 'name', label: 'Your name', type: 'text', required: true, min: 2 },
  { name: 'email', label: 'E-mail', type: 'email', required: true },
  { name: 'age', type: 'integer', min: 18 },
  { name: 'terms', label: 'Terms', type: 'boolean', required: true },
];

// The site: pages served from another origin than Intake's, as a real site would.
const pages = new Map<string, string>();
/** Every POST the site (or its other-origin alias, localhost) received: a form's data sent where it must not go. */
const sitePosts: string[] = [];
const site = http.createServer((req, res) => {
  if (req.method === 'POST') sitePosts.push(`${req.headers.host}${req.url}`);
  const html = pages.get(req.url ?? '');
  res.writeHead(html ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end(html ?? '<!doctype html><title>Not found</title>');
});
site.listen(0, '127.0.0.1');
await once(site, 'listening');
afterAll(async () => {
  const closed = once(site, 'close');
  site.close();
  site.closeAllConnections(); // Chromium's preconnected sockets would otherwise hold close() open for minutes
  await closed;
});
const siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
let pageCount = 0;

/** A page of the site (its URL); the helper is loaded with `defer` in the head, before the form exists. */
function sitePage(body: string, head = `<script src="${t.baseUrl}/intake.js" defer></script>`): string {
  const path = `/page-${++pageCount}`;
  pages.set(
    path,
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Contact</title>${head}</head><body>${body}</body></html>`,
  );
  return `${siteOrigin}${path}`;
}

/** The contact form a site pastes, marked for the helper. */
const contactForm = (formId: string, attrs = '', extra = '') => `
  <form data-intake ${attrs} method="post" action="${t.baseUrl}/f/${formId}" enctype="multipart/form-data">
    <label>Name <input name="name"></label>
    <label for="email">E-mail</label><input id="email" name="email" aria-describedby="email-hint"><p id="email-hint">We answer here.</p>
    <label for="age">Age</label><input id="age" name="age">
    <label><input type="checkbox" name="terms"> I accept the terms</label>
    ${extra}
    <button type="submit">Send</button>
  </form>`;

const status = (page: Page) => page.locator('[data-intake-status]');
/** Waits until the helper has shown the outcome of a post (`success` or `error`). */
const settled = (page: Page, state: 'success' | 'error') =>
  page.waitForSelector(`[data-intake-status][data-intake-state="${state}"]`);

/** A control's accessibility state, and the message its aria-describedby names last and where that sits. */
async function fieldState(page: Page, name: string) {
  const input = `[name="${name}"]`;
  const describedBy = await page.getAttribute(input, 'aria-describedby');
  const id = describedBy?.split(' ').at(-1);
  const note = id ? page.locator(`[id="${id}"]`) : null;
  return {
    invalid: await page.getAttribute(input, 'aria-invalid'),
    describedBy,
    message: note ? await note.textContent() : null,
    // Right after the input, or after the label the input sits in.
    nextToInput: id
      ? (await page.locator(`${input} + [id="${id}"], label:has(${input}) + [id="${id}"]`).count()) === 1
      : false,
  };
}

let browser: HeadlessBrowser;
beforeAll(async () => {
  browser = await launchChromium();
  return () => browser.close();
});

describe('the browser helper (/intake.js) in headless Chromium', () => {
  it(
    'posts a good form without leaving the page: busy while sending, files kept, success shown, form reset',
    { timeout: 60_000 },
    async () => {
      const owner = await makeTeam(t);
      const form = await makePublishedForm(t, owner);
      const url = sitePage(
        contactForm(form.id, 'data-intake-success="Thanks, we got it."', '<input type="file" name="cv">'),
      );
      const page = await browser.context.newPage();
      await page.goto(url);
      await page.fill('input[name=name]', 'Ada Lovelace');
      await page.fill('input[name=email]', 'ada@example.com');
      await page.setInputFiles('input[name=cv]', {
        name: 'cv.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('Analytical Engine'),
      });

      // The post is held on its way out, so the page can be seen while it is sending.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      await page.route(`${t.baseUrl}/f/**`, async (route) => {
        await held;
        await route.continue();
      });
      const sent = page.waitForRequest(`${t.baseUrl}/f/${form.id}`);
      await page.click('button[type=submit]');
      const request = await sent;
      expect(request.headers().accept).toBe('application/json');
      expect(await page.isDisabled('button[type=submit]')).toBe(true);
      expect(await page.getAttribute('form', 'aria-busy')).toBe('true');
      expect(await status(page).textContent()).toBe('Sending…');
      release();

      await settled(page, 'success');
      expect(await status(page).textContent()).toBe('Thanks, we got it.');
      expect(await status(page).getAttribute('role')).toBe('status');
      expect(await status(page).getAttribute('aria-live')).toBe('polite');
      expect(page.url()).toBe(url); // no navigation
      expect(await page.isEnabled('button[type=submit]')).toBe(true);
      expect(await page.getAttribute('form', 'aria-busy')).toBeNull();
      expect(await page.inputValue('input[name=name]')).toBe(''); // reset for the next message

      const [stored] = await submissionsOf(t, form.id);
      expect(stored!.payload).toMatchObject({ name: 'Ada Lovelace', email: 'ada@example.com' });
      expect(stored!.metadata).toMatchObject({ origin: siteOrigin });
      const [file] = await filesOf(t, form.id);
      expect(file).toMatchObject({ field: 'cv', filename: 'cv.txt', content_type: 'text/plain' });
      expect((await readObject(t, file!.storage_key)).toString()).toBe('Analytical Engine');
      await page.close();
    },
  );

  it(
    'shows each field error next to its input, announces a summary, focuses the first bad field; a fixed post succeeds',
    { timeout: 60_000 },
    async () => {
      const owner = await makeTeam(t);
      const form = await makePublishedForm(t, owner, { settings: { fields: SCHEMA } });
      const page = await browser.context.newPage();
      await page.goto(sitePage(contactForm(form.id)));
      await page.fill('input[name=name]', 'A');
      await page.fill('input[name=email]', 'ada-at-example.com');
      await page.fill('input[name=age]', '12');
      await page.click('button[type=submit]');
      await settled(page, 'error');

      expect(await status(page).textContent()).toBe('4 fields need attention.');
      expect(await fieldState(page, 'name')).toEqual({
        invalid: 'true',
        describedBy: expect.stringMatching(/^intake-error-\d+$/),
        message: 'Your name must be at least 2 characters.',
        nextToInput: true,
      });
      // A description the page already had is kept, the message added after it.
      expect(await fieldState(page, 'email')).toEqual({
        invalid: 'true',
        describedBy: expect.stringMatching(/^email-hint intake-error-\d+$/),
        message: 'E-mail must be an e-mail address, like name@example.com.',
        nextToInput: true,
      });
      expect(await fieldState(page, 'age')).toMatchObject({
        invalid: 'true',
        message: 'age must be at least 18.',
        nextToInput: true,
      });
      expect(await fieldState(page, 'terms')).toMatchObject({
        invalid: 'true',
        message: 'Terms must be checked.',
        nextToInput: true,
      });
      expect(await page.evaluate('document.activeElement.getAttribute("name")')).toBe('name');
      expect(await page.isEnabled('button[type=submit]')).toBe(true);
      expect(await page.inputValue('input[name=email]')).toBe('ada-at-example.com'); // nothing typed is lost
      expect(await submissionsOf(t, form.id)).toEqual([]);

      await page.fill('input[name=name]', 'Ada Lovelace');
      await page.fill('input[name=email]', 'ada@example.com');
      await page.fill('input[name=age]', '36');
      await page.check('input[name=terms]');
      await page.click('button[type=submit]');
      await settled(page, 'success');
      expect(await status(page).textContent()).toBe('Thank you! Your message has been sent.');
      // The old errors are gone and the page's own description is as it was.
      expect(await page.locator('.intake-error').count()).toBe(0);
      expect(await fieldState(page, 'name')).toMatchObject({ invalid: null, describedBy: null });
      expect(await fieldState(page, 'email')).toMatchObject({
        invalid: null,
        describedBy: 'email-hint',
        message: 'We answer here.',
      });
      expect(await page.locator('[aria-invalid]').count()).toBe(0);
      const [stored] = await submissionsOf(t, form.id);
      expect(stored!.payload).toMatchObject({ name: 'Ada Lovelace', email: 'ada@example.com', age: 36, terms: true });
      await page.close();
    },
  );

  it(
    'a network error keeps what was typed, says to try again and re-enables the button; the retry succeeds',
    { timeout: 60_000 },
    async () => {
      const owner = await makeTeam(t);
      const form = await makePublishedForm(t, owner);
      const page = await browser.context.newPage();
      await page.goto(sitePage(contactForm(form.id)));
      await page.fill('input[name=name]', 'Ada Lovelace');
      await page.route(`${t.baseUrl}/f/**`, (route) => route.abort('internetdisconnected'));
      await page.click('button[type=submit]');
      await settled(page, 'error');
      expect(await status(page).textContent()).toBe('The form could not be sent. Check your connection and try again.');
      expect(await page.isEnabled('button[type=submit]')).toBe(true);
      expect(await page.getAttribute('form', 'aria-busy')).toBeNull();
      expect(await page.inputValue('input[name=name]')).toBe('Ada Lovelace');
      expect(await submissionsOf(t, form.id)).toEqual([]);

      await page.unroute(`${t.baseUrl}/f/**`);
      await page.click('button[type=submit]');
      await settled(page, 'success');
      expect((await submissionsOf(t, form.id)).map((s) => s.payload.name)).toEqual(['Ada Lovelace']);
      await page.close();
    },
  );

  it(
    "passes the CAPTCHA token through untouched, and shows the server's message when the check fails",
    { timeout: 60_000 },
    async () => {
      const owner = await makeTeam(t);
      const form = await makePublishedForm(t, owner);
      const secret = cap.newSecret('turnstile');
      const put = await t.http
        .put(`/v1/forms/${form.id}`)
        .set(bearer(owner.token))
        .send({ settings: { captcha: { provider: 'turnstile', secret_key: secret } } });
      expect(put.status).toBe(200);
      // What the Turnstile widget leaves in the form once solved (the widget itself needs the internet).
      const token = cap.issueToken('turnstile', secret);
      const page = await browser.context.newPage();
      await page.goto(
        sitePage(contactForm(form.id, '', `<input type="hidden" name="cf-turnstile-response" value="${token}">`)),
      );
      await page.fill('input[name=name]', 'Ada Lovelace');
      await page.click('button[type=submit]');
      await settled(page, 'success');
      expect(cap.requests.at(-1)!.params.response).toBe(token);
      const [stored] = await submissionsOf(t, form.id);
      expect(stored!.status).not.toBe('spam');
      expect(stored!.payload).not.toHaveProperty('cf-turnstile-response');

      // A token is good once: the same one again is refused, and the person reads why.
      await page.fill('input[name=name]', 'Ada again');
      await page.click('button[type=submit]');
      await settled(page, 'error');
      expect(await status(page).textContent()).toMatch(/^The CAPTCHA was not completed or has expired\./);
      expect(await submissionsOf(t, form.id)).toHaveLength(1);
      await page.close();
    },
  );

  it("shows any other refusal's own message (429 here), and the button works again", { timeout: 60_000 }, async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const page = await browser.context.newPage();
    await page.goto(sitePage(contactForm(form.id, '', '<input type="hidden" name="message" value="Hello">')));
    // The flood limit's window resets every minute on the minute: the four posts must share one.
    const leftInMinute = 60_000 - (Date.now() % 60_000);
    if (leftInMinute < 30_000) await new Promise((r) => setTimeout(r, leftInMinute + 100));
    for (let i = 0; i < 3; i++) {
      await page.click('button[type=submit]');
      await settled(page, 'success'); // the click already set "sending": this waits for the answer
    }
    await page.click('button[type=submit]');
    await settled(page, 'error');
    expect(await status(page).textContent()).toBe('Too many submissions from this address. Try again later.');
    expect(await page.isEnabled('button[type=submit]')).toBe(true);
    expect(await submissionsOf(t, form.id)).toHaveLength(3);
    await page.close();
  });

  it(
    'enhances a form added after the script ran, and follows _next after a good post',
    { timeout: 60_000 },
    async () => {
      const owner = await makeTeam(t);
      const form = await makePublishedForm(t, owner);
      const done = sitePage('<h1>Done</h1>', '');
      // The script at the end of the body, no defer: it runs before the page adds its form.
      const url = sitePage(
        `<div id="slot"></div><script src="${t.baseUrl}/intake.js"></script>
       <script>window.addEventListener('load', () => setTimeout(() => {
         document.getElementById('slot').innerHTML = ${JSON.stringify(contactForm(form.id, '', `<input type="hidden" name="_next" value="${done}">`))};
       }, 50));</script>`,
        '',
      );
      const page = await browser.context.newPage();
      await page.goto(url);
      await page.waitForSelector('form[data-intake]');
      expect(await page.evaluate('typeof window.Intake.enhance')).toBe('function');
      await page.fill('input[name=name]', 'Ada Lovelace');
      await Promise.all([page.waitForURL(done), page.click('button[type=submit]')]);
      expect(await page.textContent('h1')).toBe('Done');
      expect((await submissionsOf(t, form.id)).map((s) => s.payload.name)).toEqual(['Ada Lovelace']);
      await page.close();
    },
  );

  it(
    'without JavaScript the same form posts normally: the thank-you page, or the page listing problems',
    { timeout: 60_000 },
    async () => {
      const owner = await makeTeam(t);
      const plain = await makePublishedForm(t, owner);
      const strict = await makePublishedForm(t, owner, { settings: { fields: SCHEMA } });
      const noScript = await launchChromium({ javaScriptEnabled: false });
      try {
        const page = await noScript.context.newPage();
        await page.goto(sitePage(contactForm(plain.id)));
        await page.fill('input[name=name]', 'Ada Lovelace');
        const [thanks] = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
        expect(thanks!.url()).toMatch(new RegExp(`^${t.baseUrl}/f/${plain.id}/thanks`));
        expect(await page.textContent('h1')).toBe('Thank you!');
        expect((await submissionsOf(t, plain.id)).map((s) => s.payload.name)).toEqual(['Ada Lovelace']);

        await page.goto(sitePage(contactForm(strict.id)));
        await page.fill('input[name=name]', 'Ada Lovelace');
        await page.fill('input[name=email]', 'ada@example.com');
        const [refused] = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
        expect(refused!.status()).toBe(422);
        expect(await page.title()).toBe('Please check the form');
        expect(await page.locator('li').allTextContents()).toEqual(['Terms must be checked.']);
        expect(await submissionsOf(t, strict.id)).toEqual([]);
      } finally {
        await noScript.close();
      }
    },
  );
});

describe('the script itself', () => {
  it('is under 5 KB minified', () => {
    const minified = minifySync('intake.js', SCRIPT, { compress: true, mangle: true });
    expect(minified.errors).toEqual([]);
    const bytes = Buffer.byteLength(minified.code);
    expect(bytes, `${bytes} bytes minified (${gzipSync(minified.code).length} gzipped)`).toBeLessThan(5 * 1024);
  });

  it('GET /intake.js serves that file: JavaScript, cached a day, loadable from any site, 304 on revalidation', async () => {
    const res = await t.http.get('/intake.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=86400, stale-while-revalidate=604800');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.text).toBe(SCRIPT); // the SDK's file, byte for byte: one source
    const again = await t.http.get('/intake.js').set('If-None-Match', res.headers.etag!);
    expect(again.status).toBe(304);
    expect((await t.http.head('/intake.js')).status).toBe(200);
  });
});

describe('the helper follows only safe redirects and posts only to Intake (issue 25)', () => {
  /** The same site server under another origin (localhost, not 127.0.0.1): what an attacker's would be. */
  const otherOrigin = siteOrigin.replace('127.0.0.1', 'localhost');

  /** Posts a good form of `page` (its URL) and returns where the browser is once the helper settled. */
  async function submitAndSettle(url: string, formId: string) {
    const page = await browser.context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => void (dialogs.push(d.message()), d.dismiss()));
    await page.goto(url);
    await page.fill('input[name=name]', 'Ada Lovelace');
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.url().includes(`/f/${formId}`)),
      page.click('button[type=submit]'),
    ]);
    return { page, res, dialogs };
  }

  it(
    'never follows javascript:, data: or another origin the form does not allow; shows the success instead',
    { timeout: 60_000 },
    async () => {
      const owner = await makeTeam(t);
      const form = await makePublishedForm(t, owner);
      const targets = [
        ['_next', "javascript:document.title='pwned';alert('pwned')"],
        ['_next', `${otherOrigin}/elsewhere`],
        ['data-intake-redirect', 'data:text/html,<title>pwned</title>'],
      ];
      for (const [kind, target] of targets) {
        const hidden =
          kind === '_next' ? `<input type="hidden" name="_next" value="${target!.replace(/'/g, '&#39;')}">` : '';
        const attrs = kind === 'data-intake-redirect' ? `data-intake-redirect="${target}"` : '';
        const url = sitePage(contactForm(form.id, attrs, hidden));
        const { page, dialogs } = await submitAndSettle(url, form.id);
        await settled(page, 'success');
        expect(page.url(), target).toBe(url);
        expect(await page.title()).toBe('Contact');
        expect(dialogs).toEqual([]);
        expect(await status(page).textContent()).toBe('Thank you! Your message has been sent.');
        await page.close();
      }
    },
  );

  it(
    "follows a page's own origin, and another origin only when it is one of the form's allowed origins",
    { timeout: 60_000 },
    async () => {
      const owner = await makeTeam(t);
      const allowedForm = await makePublishedForm(t, owner, {
        settings: { allowed_origins: [siteOrigin, otherOrigin] },
      });
      const done = sitePage('<h1>Done</h1>', '').replace(siteOrigin, otherOrigin);
      const url = sitePage(contactForm(allowedForm.id, '', `<input type="hidden" name="_next" value="${done}">`));
      const { page } = await submitAndSettle(url, allowedForm.id);
      await page.waitForURL(done);
      expect(await page.textContent('h1')).toBe('Done');
      await page.close();
      // What told the helper: the JSON answer carries the redirect the server allows, and only that.
      const asked = (next: string) =>
        t.http
          .post(`/f/${allowedForm.id}`)
          .set('Origin', siteOrigin)
          .set('Accept', 'application/json')
          .type('form')
          .send({ name: 'x', _next: next });
      expect((await asked(done)).body).toEqual({ ok: true, id: expect.stringMatching(/^subm_/), redirect: done });
      expect((await asked('https://evil.example/x')).body).toEqual({ ok: true, id: expect.stringMatching(/^subm_/) });
      // A data-intake-redirect on the page's own origin, relative: followed without asking anyone.
      const form = await makePublishedForm(t, owner);
      const same = sitePage('<h1>Same</h1>', '');
      const page2 = (
        await submitAndSettle(
          sitePage(contactForm(form.id, `data-intake-redirect="${new URL(same).pathname}"`)),
          form.id,
        )
      ).page;
      await page2.waitForURL(same);
      expect(await page2.textContent('h1')).toBe('Same');
      await page2.close();
    },
  );

  it(
    "posts only to Intake's own /f/{form}: a form action or formaction elsewhere sends nothing anywhere",
    { timeout: 60_000 },
    async () => {
      const owner = await makeTeam(t);
      const form = await makePublishedForm(t, owner);
      const elsewhere = [
        `${otherOrigin}/collect`,
        `${siteOrigin}/collect`,
        `${t.baseUrl}/v1/forms`,
        `${t.baseUrl}/f/${form.id}/thanks`,
        'javascript:void 0',
      ];
      for (const action of elsewhere) {
        const page = await browser.context.newPage();
        const requests: string[] = [];
        page.on('request', (r) => void (r.method() === 'POST' && requests.push(r.url())));
        const viaButton = action.endsWith('/collect') && action.startsWith(otherOrigin);
        const html = viaButton
          ? contactForm(form.id).replace('<button type="submit">', `<button type="submit" formaction="${action}">`)
          : contactForm(form.id).replace(`action="${t.baseUrl}/f/${form.id}"`, `action="${action}"`);
        await page.goto(sitePage(html));
        await page.fill('input[name=name]', 'Ada Lovelace');
        await page.click('button[type=submit]');
        await settled(page, 'error');
        await new Promise((r) => setTimeout(r, 200));
        expect(requests, action).toEqual([]);
        await page.close();
      }
      expect(sitePosts).toEqual([]);
      expect(await submissionsOf(t, form.id)).toEqual([]);
    },
  );
});
