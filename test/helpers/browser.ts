import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe } from 'vitest';
import { database, databaseAvailable } from './app.js';
import { type ServerProcess, startServer } from './server.js';

/** Debian's Chromium (`apt-get install chromium`); never a browser download. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumAvailable = existsSync(chromiumPath);

/** `describe` that skips without Chromium (the browser global setup printed why; CI fails instead). */
export const describeBrowser = describe.skipIf(!chromiumAvailable || !databaseAvailable);

/** Flags that let Chromium run headless as root on a machine with a closed network. */
const flags = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Chromium, headless, with a fresh profile that is deleted on close. */
export async function openBrowser(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'petstore-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: flags,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Every request the page makes to another origin than `origin` (none should leave the server). */
export function foreignRequests(page: Page, origin: string): string[] {
  const foreign: string[] = [];
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !/^(data|blob):/.test(url)) foreign.push(url);
  });
  return foreign;
}

const screenshots = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));

/** Saves a full-page screenshot as a test artifact: test-results/screenshots/<database>-<name>.png. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  await mkdir(screenshots, { recursive: true });
  const path = join(screenshots, `${database}-${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Opens GraphiQL, types `document` (one line: typed newlines would make the editor close braces) in
 * place of the example, and waits until GraphiQL has picked up its operation `name` (running before
 * that asks for the example's operation). Answers the Execute button.
 */
export async function typeInGraphiQL(page: Page, url: string, document: string, name: string) {
  await page.goto(`${url}/graphql`);
  const run = page.getByRole('button', { name: /^Execute query/ });
  await run.waitFor();
  await page.locator('.graphiql-query-editor .monaco-editor').first().click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(document);
  await page.keyboard.press('Home'); // the start of the line in view, for the screenshot
  await page.locator('.graphiql-tab', { hasText: name }).waitFor();
  return run;
}

/**
 * Starts the real server (with extra environment variables) and Chromium before a file's tests
 * and stops both after them; the tests read them through the returned function.
 */
export function useServerAndBrowser(
  env: Record<string, string> = {},
): () => { server: ServerProcess; browser: Browser } {
  let server: ServerProcess | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(env), openBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
  return () => {
    if (!server || !browser) throw new Error('the server or the browser did not start');
    return { server, browser };
  };
}
