import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeDb } from '../helpers/app.js';
import {
  eventOf,
  events,
  firstEvent,
  liveSecret,
  liveToken,
  ordersOfPet,
  restPet,
  sseClient,
  untilOpen,
  wsClient,
} from '../helpers/live.js';
import { childDatabase, runNode, tsx } from '../helpers/process.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

describeDb('a writer killed with SIGKILL right after its commit', { timeout: 60_000 }, () => {
  const db = childDatabase();
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({
      DATABASE_URL: db.url,
      AUTH_JWT_SECRET: liveSecret,
      SEED: 'false',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await db.drop();
  });

  it('still produces its events for subscribers on another process', async () => {
    const token = await liveToken();
    const { id: pet } = await restPet(server, token, 3);
    const ws = wsClient(server, token);
    const sse = sseClient(server, token);
    const orders = events((sink) =>
      ws.subscribe({ query: `subscription { orderChanged(petId: "${pet}") { kind id } }` }, sink),
    );
    const stock = events((sink) =>
      sse.subscribe(
        { query: `subscription { inventoryChanged(petId: "${pet}") { petId quantity } }` },
        sink,
      ),
    );
    await untilOpen(server, 2);

    // Another process writes and is killed before it can tell anyone.
    const writer = await runNode([tsx, 'test/helpers/write-then-die.ts'], {
      DATABASE_URL: db.url,
      AUTH_JWT_SECRET: liveSecret,
      PET_ID: pet,
    });
    expect(writer.stderr).not.toContain('still alive');
    // Killed by SIGKILL (tsx, which runs it in a child, exits 128 + 9).
    expect(writer.code).toBe(137);
    const [order] = await ordersOfPet(server, token, pet);
    expect(order).toBeDefined();

    expect(await orders.next(10_000)).toEqual(
      firstEvent(
        eventOf({ orderChanged: { kind: 'created', id: String(order?.id) } }),
        'orderChanged',
      ),
    );
    expect(await stock.next(10_000)).toEqual(
      firstEvent(eventOf({ inventoryChanged: { petId: pet, quantity: 2 } }), 'inventoryChanged'),
    );
    orders.close();
    stock.close();
    await ws.dispose();
    sse.dispose();
  });
});
