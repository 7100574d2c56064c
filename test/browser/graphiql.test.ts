import { expect, it } from 'vitest';
import {
  describeBrowser,
  foreignRequests,
  saveScreenshot,
  useServerAndBrowser,
} from '../helpers/browser.js';

describeBrowser('GraphiQL in Chromium', { timeout: 60_000 }, () => {
  const started = useServerAndBrowser();

  it('opens at /graphql, runs the example query and shows the result, all from the app itself', async () => {
    const { server, browser } = started();
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
