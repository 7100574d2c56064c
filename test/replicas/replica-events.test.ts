import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { database, databaseAvailable } from '../helpers/app.js';
import {
  eventOf,
  events,
  firstEvent,
  liveSecret,
  liveToken,
  restCall,
  restPet,
  sseClient,
  untilOpen,
  wsClient,
} from '../helpers/live.js';
import { childDatabase } from '../helpers/process.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

const redisUrl = inject('redisUrl');

describe.runIf(database === 'postgresql' && databaseAvailable && redisUrl !== null)(
  'two replica servers on one PostgreSQL and one Redis',
  () => {
    const db = childDatabase();
    let a: ServerProcess;
    let b: ServerProcess;
    beforeAll(async () => {
      const env = { DATABASE_URL: db.url, REDIS_URL: redisUrl ?? '', AUTH_JWT_SECRET: liveSecret };
      // One after the other: the first one migrates the new database.
      a = await startServer({ ...env, SEED: 'false' });
      b = await startServer({ ...env, SEED: 'false' });
    });
    afterAll(async () => {
      await b?.stop();
      await a?.stop();
      await db.drop();
    });

    it('delivers an order placed on replica A to SSE and WebSocket subscribers on replica B', async () => {
      const token = await liveToken();
      const { id: pet } = await restPet(a, token, 3);
      const query = `subscription { orderChanged(petId: "${pet}") { kind order { quantity } } }`;
      const ws = wsClient(b, token);
      const sse = sseClient(b, token);
      const overWs = events((sink) => ws.subscribe({ query }, sink));
      const overSse = events((sink) => sse.subscribe({ query }, sink));
      await untilOpen(b, 2);

      const placed = await restCall(a, 'POST', '/store/orders', token, {
        petId: Number(pet),
        quantity: 2,
      });
      expect(placed.status).toBe(201);
      const created = eventOf({ orderChanged: { kind: 'created', order: { quantity: 2 } } });
      expect(await overWs.next()).toEqual(firstEvent(created, 'orderChanged'));
      expect(await overSse.next()).toEqual(firstEvent(created, 'orderChanged'));

      overWs.close();
      overSse.close();
      await ws.dispose();
      sse.dispose();
    });
  },
);
