import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchChromium, type HeadlessBrowser } from '../support/browser.ts';
import { makeTeam } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';

const t = await startLiveTestApp();
const origin = t.baseUrl;

let session: Promise<{ browser: HeadlessBrowser; page: Page }> | undefined;
const requested: string[] = [];
const consoleErrors: string[] = [];

// data: and blob: URLs are built inside the page (swagger-ui's icons, downloads); nothing leaves it.
const isLocal = (url: string) => url.startsWith(`${origin}/`) || url.startsWith('data:') || url.startsWith('blob:');

/** The browser and its one page, launched by the first test that needs it; a launch error fails each test. */
function openPage(): Promise<{ browser: HeadlessBrowser; page: Page }> {
  session ??= (async () => {
    const browser = await launchChromium();
    // Record every request the page makes, and never let one reach the network.
    await browser.context.route('**/*', (route) => (isLocal(route.request().url()) ? route.continue() : route.abort()));
    browser.context.on('request', (request) => void requested.push(request.url()));
    const page = await browser.context.newPage();
    page.on('console', (message) => void (message.type() === 'error' && consoleErrors.push(message.text())));
    page.on('pageerror', (error) => void consoleErrors.push(error.message));
    return { browser, page };
  })();
  return session;
}

afterAll(async () => {
  await session?.then(
    ({ browser }) => browser.close(),
    () => undefined,
  );
});

describe('/v1/docs in headless Chromium', () => {
  it('renders every operation from local assets only', { timeout: 90_000 }, async () => {
    const { page } = await openPage();
    const response = await page.goto(`${origin}/v1/docs`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'self'");

    // Swagger UI parses the whole document (~550 kB) before it shows the first operation: seconds, more on a
    // machine running the rest of the suite.
    for (const id of ['operations-Account-getMe', 'operations-Tokens-createToken', 'operations-Billing-listInvoices']) {
      await page.locator(`#${id}`).waitFor({ state: 'visible', timeout: 45_000 });
    }
    await expect(page.locator('#operations-Account-getMe').textContent()).resolves.toContain('/v1/me');
    await expect(page.locator('button.authorize').isVisible()).resolves.toBe(true);

    // The public form endpoint, under its own tag, with no lock: it takes no token.
    const submit = page.locator('#operations-Public_endpoint-submitForm');
    await submit.waitFor({ state: 'visible', timeout: 15_000 });
    await expect(submit.locator('.opblock-summary-method').textContent()).resolves.toBe('POST');
    await expect(submit.locator('.opblock-summary-path').textContent()).resolves.toContain('/f/{form}');
    await expect(submit.locator('.authorization__btn').count()).resolves.toBe(0);
    await expect(page.locator('#operations-Account-getMe .authorization__btn').count()).resolves.toBe(1);
    await page.locator('#operations-Public_endpoint-preflightForm').waitFor({ state: 'visible', timeout: 15_000 });
    await submit.locator('.opblock-summary-control').click();
    const mediaTypes = submit.locator('.opblock-section-request-body select option');
    await mediaTypes.first().waitFor({ state: 'attached', timeout: 15_000 });
    await expect(mediaTypes.allTextContents()).resolves.toEqual([
      'application/x-www-form-urlencoded',
      'multipart/form-data',
      'application/json',
    ]);
    const statuses = (await submit.locator('.responses-table tr.response .response-col_status').allTextContents()).map(
      (s) => s.trim(),
    );
    expect(statuses).toEqual([
      '201',
      '303',
      '400',
      '402',
      '403',
      '404',
      '408',
      '413',
      '415',
      '422',
      '429',
      '500',
      '503',
    ]);
    await expect(page.locator('#operations-tag-Public_endpoint').textContent()).resolves.toContain('Public endpoint');

    expect(requested.some((url) => url === `${origin}/v1/openapi.json`)).toBe(true);
    expect(requested.filter((url) => !isLocal(url))).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it('authorizes with a bearer token and executes GET /v1/me', { timeout: 60_000 }, async () => {
    const { page } = await openPage();
    if (!page.url().startsWith(`${origin}/v1/docs`)) await page.goto(`${origin}/v1/docs/`, { waitUntil: 'load' });
    const owner = await makeTeam(t);
    await page.locator('button.authorize').click();
    const dialog = page.locator('.dialog-ux');
    await dialog.locator('input').first().fill(owner.token);
    await dialog.locator('button.modal-btn.auth.authorize').click();
    await dialog.locator('button.btn-done').click();

    const operation = page.locator('#operations-Account-getMe');
    await operation.locator('.opblock-summary-control').click();
    const call = page.waitForResponse((r) => r.url() === `${origin}/v1/me`);
    await operation.locator('button.execute').click();
    const response = await call;
    expect(response.status()).toBe(200);
    expect(await response.request().headerValue('authorization')).toBe(`Bearer ${owner.token}`);

    const live = operation.locator('.live-responses-table');
    await live.locator('.response-col_status', { hasText: '200' }).waitFor({ state: 'visible', timeout: 15_000 });
    await expect(live.textContent()).resolves.toContain(owner.teamId);

    expect(requested.filter((url) => !isLocal(url))).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
