import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

/**
 * Where the browser tests leave their page screenshots: `docs/screenshots/` (linked from the README) when
 * UPDATE_SCREENSHOTS=1, else a scratch folder, so a test run changes no tracked file. Run with it set and
 * commit the pictures when the pages change.
 */
export const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1'
  ? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/screenshots')
  : path.join(os.tmpdir(), 'dashpub-screenshots');

/**
 * The machine's Chromium as every browser test runs it: headless, no sandbox or GPU, nothing fetched in
 * the background (updates, sync, QUIC), and `*.localhost` (the app and dashboards hosts) on loopback.
 */
const CHROMIUM_ARGS = [
  '--headless',
  '--host-resolver-rules=MAP *.localhost 127.0.0.1',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Starts /usr/bin/chromium for a suite (with any extra switches it needs); the suite closes it in its `after`. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/** A fresh context (its own cookies) with one page; closing the context closes both. */
export async function openPage(browser: Browser, options: BrowserContextOptions = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(options);
  return { context, page: await context.newPage() };
}

/** Creates an account through the web app's sign-up form, as a person does; ends on `/account`. */
export async function signUpInBrowser(page: Page, appUrl: string, user: { handle: string; email: string; password: string }): Promise<void> {
  await page.goto(`${appUrl}/sign-up`);
  await page.getByLabel('Handle').fill(user.handle);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(`${appUrl}/account`);
}
