import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium (installed by `.ci/run`); `CHROMIUM_PATH` overrides it. Never a downloaded browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where screenshots go (gitignored). */
export const ARTIFACTS = resolve(import.meta.dirname, '../../test-artifacts');

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launches the system chromium; fails with the install command when it is missing. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`no chromium at ${CHROMIUM_PATH}: run "apt-get install -y chromium" (or set CHROMIUM_PATH)`);
  }
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS });
}

/** A page plus what it did that a test may want to refuse: dialogs, page errors, console errors. */
export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  dialogs: string[];
  errors: string[];
}

/**
 * Opens a fresh context (own cookies) and page; dialogs are recorded and dismissed. `where`: the
 * browser's language (navigator.languages and Accept-Language) and time zone, en-GB in UTC by default.
 */
export async function openPage(
  browser: Browser,
  viewport = { width: 1000, height: 900 },
  where: { locale: string; timezoneId: string } = { locale: 'en-GB', timezoneId: 'UTC' },
): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport, colorScheme: 'light', ...where });
  const page = await context.newPage();
  const watched: WatchedPage = { context, page, dialogs: [], errors: [] };
  page.on('dialog', (dialog) => {
    watched.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => watched.errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') watched.errors.push(message.text());
  });
  return watched;
}
