import { expect, it } from 'vitest';
import {
  describeBrowser,
  foreignRequests,
  saveScreenshot,
  typeInGraphiQL,
  useServerAndBrowser,
} from '../helpers/browser.js';
import { liveSecret, liveToken, restCall, untilOpen } from '../helpers/live.js';

describeBrowser('a subscription in GraphiQL, in Chromium', { timeout: 60_000 }, () => {
  const started = useServerAndBrowser({ AUTH_JWT_SECRET: liveSecret });

  it('runs a subscription and shows an event of a REST write arriving in the result pane', async () => {
    const { server, browser } = started();
    const page = await browser.context.newPage();
    const foreign = foreignRequests(page, server.url);
    const run = await typeInGraphiQL(
      page,
      server.url,
      'subscription WatchRex { petChanged(id: "1") { kind id pet { name status } } }',
      'WatchRex',
    );
    await run.click();
    await untilOpen(server, 1);

    // The sample data's pet 1 (Rex), renamed over REST by another client.
    const renamed = await restCall(server, 'PUT', '/pets/1', await liveToken(), {
      name: 'Rex the Live',
      categoryId: 1,
    });
    expect(renamed.status).toBe(200);
    const result = page.locator('.result-window').filter({ hasText: 'Rex the Live' });
    await result.waitFor();
    // The pane is an editor: its text is the JSON with editor whitespace.
    const shown = ((await result.innerText()) ?? '').replace(/\s+/g, '');
    // The subscription's first event carries its cursor and its warning (it is @experimental).
    expect(JSON.parse(shown)).toEqual({
      data: {
        petChanged: {
          kind: 'updated',
          id: '1',
          pet: { name: 'RextheLive', status: 'available' },
        },
      },
      extensions: {
        cursor: expect.stringMatching(/^\d+$/),
        warnings: [
          {
            code: 'EXPERIMENTAL',
            coordinate: 'Subscription.petChanged',
            message: 'Subscription.petChangedisexperimental:itmaychangeordisappearwithoutnotice.',
          },
        ],
      },
    });
    await saveScreenshot(page, 'graphiql-subscription');

    // The stop button ends the subscription on the server too.
    await page.getByRole('button', { name: /^Stop/ }).click();
    await untilOpen(server, 0);
    expect(foreign).toEqual([]);
  });
});
