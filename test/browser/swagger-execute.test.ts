import { expect, it } from 'vitest';
import { describeBrowser, saveScreenshot, useServerAndBrowser } from '../helpers/browser.js';

/**
 * What a newcomer does first on /api/docs: "Try it out", then "Execute", on every operation from
 * the top of the page down, changing nothing. Swagger UI sends the document's examples (header
 * examples included) with the development token it is authorized with; on a fresh database every
 * operation succeeds.
 */
describeBrowser('Swagger UI executing every operation', { timeout: 180_000 }, () => {
  const started = useServerAndBrowser();

  it('succeeds on every operation, in page order, on a fresh database', async () => {
    const { server, browser } = started();
    const page = await browser.context.newPage();
    await page.goto(`${server.url}/api/docs`);
    const operations = page.locator('.opblock');
    await operations.first().waitFor();
    // The padlocks turn "locked" once Authorize holds the development token.
    await page.locator('.authorize.locked').waitFor();

    const outcomes: string[] = [];
    const count = await operations.count();
    for (let index = 0; index < count; index++) {
      const operation = operations.nth(index);
      const method = (await operation.locator('.opblock-summary-method').textContent()) ?? '';
      const path = await operation
        .locator('.opblock-summary [data-path]')
        .first()
        .getAttribute('data-path');
      await operation.locator('.opblock-summary-control').click();
      await operation.locator('.try-out__btn').click();
      await operation.locator('button.execute').click();
      const status = operation
        .locator('.live-responses-table tr.response .response-col_status')
        .first();
      await status.waitFor();
      const code = ((await status.textContent()) ?? '').trim().slice(0, 3);
      const body = await operation
        .locator('.live-responses-table tr.response .response-col_description pre')
        .first()
        .textContent()
        .catch(() => '');
      outcomes.push(`${method} ${path}: ${code}${Number(code) >= 400 ? ` ${body}` : ''}`);
      // Collapsed again, so that the page stays short and the next summary is in view.
      await operation.locator('.opblock-summary-control').click();
    }
    await saveScreenshot(page, 'swagger-execute');

    expect(outcomes).toHaveLength(19);
    const failures = outcomes.filter((outcome) => !/: [23]\d\d$/.test(outcome));
    expect(failures, outcomes.join('\n')).toEqual([]);
  });
});
