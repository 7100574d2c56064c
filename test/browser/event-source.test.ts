import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Browser, describeBrowser, foreignRequests, openBrowser } from '../helpers/browser.js';
import { liveSecret, liveToken, restCall, restPet, untilOpen } from '../helpers/live.js';
import { childDatabase } from '../helpers/process.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

interface Received {
  id: string;
  quantity: number;
}

declare global {
  interface Window {
    received: Received[];
    reconnections: number;
  }
}

/**
 * The page's own EventSource, as a frontend without a GraphQL client would write it: a GET
 * subscription, `next` events, and `complete` ending it. The server is killed under it and started
 * again on the same port; the browser reconnects by itself with the last `id:` it saw as
 * `Last-Event-ID`, and nothing committed meanwhile (by another process) is missed.
 */
describeBrowser(
  'the browser’s EventSource across a server that drops it',
  { timeout: 90_000 },
  () => {
    const db = childDatabase();
    const env = { DATABASE_URL: db.url, AUTH_JWT_SECRET: liveSecret, SEED: 'false' };
    let served: ServerProcess;
    let writer: ServerProcess;
    let browser: Browser;
    beforeAll(async () => {
      served = await startServer(env);
      [writer, browser] = await Promise.all([startServer(env), openBrowser()]);
    });
    afterAll(async () => {
      await browser?.close();
      await Promise.all([served?.stop(), writer?.stop()]);
      await db.drop();
    });

    it('resumes after the server comes back, with no event missed and none twice', async () => {
      const token = await liveToken();
      const { id: pet } = await restPet(writer, token, 0);
      const setStock = async (quantity: number) => {
        const answer = await restCall(writer, 'PUT', `/store/inventory/${pet}`, token, {
          quantity,
        });
        expect(answer.status).toBe(200);
      };
      const page = await browser.context.newPage();
      const foreign = foreignRequests(page, served.url);
      const resumedFrom: (string | undefined)[] = [];
      page.on('request', async (request) => {
        if (new URL(request.url()).pathname === '/graphql')
          resumedFrom.push((await request.allHeaders())['last-event-id']);
      });
      await page.goto(`${served.url}/health/live`);
      const query = `subscription { inventoryChanged(petId: "${pet}") { petId quantity } }`;
      await page.evaluate((query) => {
        window.received = [];
        window.reconnections = 0;
        const source = new EventSource(`/graphql?query=${encodeURIComponent(query)}`);
        source.addEventListener('next', (event) => {
          const { data } = JSON.parse(event.data);
          window.received.push({ id: event.lastEventId, quantity: data.inventoryChanged.quantity });
        });
        source.addEventListener('complete', () => source.close());
        source.addEventListener('error', () => {
          window.reconnections++;
        });
      }, query);
      const received = async (count: number) => {
        await page.waitForFunction((count) => window.received.length >= count, count, {
          timeout: 30_000,
        });
        return page.evaluate(() => window.received);
      };
      await untilOpen(served, 1);
      await setStock(10);
      const [first] = await received(1);

      // The server dies under the stream; three writes land meanwhile, on another process.
      const port = new URL(served.url).port;
      served.child.kill('SIGKILL');
      await served.exited;
      for (const quantity of [9, 8, 7]) await setStock(quantity);
      served = await startServer({ ...env, PORT: port });

      const resumed = await received(4);
      await setStock(6);
      const all = await received(5);
      // One event per write. The three replayed show the stock as it is when they are delivered
      // (every event reads its data then), so the last of those writes.
      expect(all.map((event) => event.quantity)).toEqual([10, 7, 7, 7, 6]);
      const ids = all.map((event) => BigInt(event.id));
      for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1] as bigint);
      expect(resumed.slice(0, 1)).toEqual([first]);
      // The browser reconnected by itself, naming the last event it had.
      expect(await page.evaluate(() => window.reconnections)).toBeGreaterThanOrEqual(1);
      expect(resumedFrom[0]).toBeUndefined();
      expect(resumedFrom.at(-1)).toBe(first?.id);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await page.evaluate(() => window.received.length)).toBe(5);
      expect(foreign).toEqual([]);
      await page.close();
    });
  },
);
