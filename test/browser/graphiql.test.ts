import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type Browser,
  describeBrowser,
  foreignRequests,
  openBrowser,
  saveScreenshot,
} from '../helpers/browser.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

describeBrowser('GraphiQL in Chromium', { timeout: 60_000 }, () => {
  let server: ServerProcess;
  let browser: Browser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), openBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('opens at /graphql, runs the example query and shows the result, all from the app itself', async () => {
    const page = await browser.context.newPage();
    const foreign = foreignRequests(page, server.url);
    await page.goto(`${server.url}/graphql`);

    const docsLink = page.getByRole('link', { name: 'REST API docs' });
    await docsLink.waitFor();
    expect(await docsLink.getAttribute('href')).toBe('/api/docs');

    await page.getByRole('button', { name: /^Execute query/ }).click();
    // The sample data of a new database: Rex is the first available pet.
    const result = page.locator('.result-window').filter({ hasText: '"totalCount"' });
    await result.waitFor();
    expect(await result.textContent()).toMatch(/"name":\s*"Rex"/);
    await saveScreenshot(page, 'graphiql');

    expect(foreign).toEqual([]);
    expect(
      server.logs.some(
        (line) =>
          line.msg === 'request' && line.operation === 'AvailablePets' && line.status === 200,
      ),
    ).toBe(true);
  });
});
