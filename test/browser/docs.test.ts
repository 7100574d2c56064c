import { expect, it } from 'vitest';
import {
  describeBrowser,
  foreignRequests,
  saveScreenshot,
  useServerAndBrowser,
} from '../helpers/browser.js';

describeBrowser('REST docs in Chromium', { timeout: 60_000 }, () => {
  const started = useServerAndBrowser();

  it('/api/docs renders Swagger UI from the app’s own assets and asks for /api/openapi.json', async () => {
    const { server, browser } = started();
    const page = await browser.context.newPage();
    const foreign = foreignRequests(page, server.url);
    const documentRequest = page.waitForRequest(`${server.url}/api/openapi.json`);
    await page.goto(`${server.url}/api/docs`);
    await page.locator('.swagger-ui').waitFor();
    await documentRequest;
    expect(foreign).toEqual([]);
  });

  it('shows GET /pets/{petId} marked deprecated', async () => {
    const { server, browser } = started();
    const document = await fetch(`${server.url}/api/openapi.json`);
    expect(document.status, 'GET /api/openapi.json, served by the REST façade').toBe(200);
    const page = await browser.context.newPage();
    await page.goto(`${server.url}/api/docs`);
    // The document may list the path under its server (/api) or with the prefix.
    const operation = page
      .locator('.opblock')
      .filter({ has: page.locator('.opblock-summary-method', { hasText: /^GET$/ }) })
      .filter({
        has: page.locator('[data-path="/pets/{petId}"], [data-path="/api/pets/{petId}"]'),
      });
    await operation.waitFor();
    expect(await operation.getAttribute('class')).toContain('opblock-deprecated');
    await operation.locator('.opblock-summary-control').click();
    await operation.getByText('Warning: Deprecated').waitFor();
    await saveScreenshot(page, 'api-docs');
  });
});
