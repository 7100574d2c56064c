import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, expect, inject, it } from 'vitest';
import { database } from '../helpers/app.js';
import {
  describeBrowser,
  foreignRequests,
  saveScreenshot,
  typeInGraphiQL,
  useServerAndBrowser,
} from '../helpers/browser.js';

/**
 * On PostgreSQL the server's database is a schema this file names, so that the test can hold the
 * stock table locked: the deferred part then waits for the test, and GraphiQL is seen showing the
 * first part alone before the deferred one arrives.
 */
const postgresUrl = inject('postgresUrl');
const schema = `gq_${randomBytes(6).toString('hex')}`;
const ownDatabase: { DATABASE_URL?: string } =
  database === 'postgresql' && postgresUrl
    ? { DATABASE_URL: `${postgresUrl}${postgresUrl.includes('?') ? '&' : '?'}schema=${schema}` }
    : {};

describeBrowser('a deferred query in GraphiQL, in Chromium', { timeout: 60_000 }, () => {
  const started = useServerAndBrowser({ ...ownDatabase });
  afterAll(async () => {
    if (!ownDatabase.DATABASE_URL) return;
    const client = new pg.Client({ connectionString: postgresUrl ?? undefined });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });

  it('shows the first part, then the deferred part as it arrives', async () => {
    const { server, browser } = started();
    const page = await browser.context.newPage();
    const foreign = foreignRequests(page, server.url);
    const run = await typeInGraphiQL(
      page,
      server.url,
      'query RexLater { pet(id: "1") { name ... @defer(label: "stock") { inventory { quantity } } } }',
      'RexLater',
    );
    // The query's own answer, not one of GraphiQL's schema fetches.
    const answered = page.waitForResponse(
      (response) =>
        response.url().includes('/graphql') &&
        (response.request().postData() ?? '').includes('RexLater'),
    );

    const pane = page.locator('.result-window');
    const shown = async () => ((await pane.innerText()) ?? '').replace(/\s+/g, '');
    let locker: pg.Client | undefined;
    if (ownDatabase.DATABASE_URL) {
      locker = new pg.Client({ connectionString: postgresUrl ?? undefined });
      await locker.connect();
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE "${schema}"."InventoryItem" IN ACCESS EXCLUSIVE MODE`);
    }
    try {
      await run.click();
      if (locker) {
        // The first part, shown alone while the deferred one waits on the lock.
        await pane.filter({ hasText: 'Rex' }).waitFor();
        expect(await shown()).toMatch(/^\{"data":\{"pet":\{"name":"Rex"\}\},/);
        await saveScreenshot(page, 'graphiql-defer-first-part');
      }
    } finally {
      await locker?.query('COMMIT');
      await locker?.end();
    }
    await pane.filter({ hasText: 'quantity' }).waitFor();
    expect(await shown()).toMatch(/"pet":\{"name":"Rex","inventory":\{"quantity":\d+\}\}/);
    await saveScreenshot(page, 'graphiql-defer');

    // GraphiQL asked for parts (a stream's body is not kept for the test to read).
    const response = await answered;
    expect(response.request().headers().accept).toMatch(/multipart\/mixed/);
    expect(response.headers()['content-type']).toBe('multipart/mixed; boundary="-"');
    expect(foreign).toEqual([]);
  });
});
