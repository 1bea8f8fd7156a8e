import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Flags that keep Chromium from talking to anything but the pages it is sent to. */
const OFFLINE_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export type HeadlessBrowser = { context: BrowserContext; close: () => Promise<void> };

/**
 * The system's headless Chromium with a fresh profile. A missing browser is an error, not a skip:
 * CI installs it (`apt-get install -y chromium`), so its absence means the check did not run.
 */
export async function launchChromium(options: { javaScriptEnabled?: boolean } = {}): Promise<HeadlessBrowser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} is missing: install it with \`apt-get update && apt-get install -y chromium\`.`);
  }
  const profile = mkdtempSync(path.join(tmpdir(), 'intake-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: OFFLINE_ARGS,
    // A persistent context's settings are fixed at launch: a page without JavaScript needs its own browser.
    javaScriptEnabled: options.javaScriptEnabled ?? true,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
