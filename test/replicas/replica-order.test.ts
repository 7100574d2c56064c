import type { ExecutionResult } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { database, databaseAvailable } from '../helpers/app.js';
import {
  events,
  liveSecret,
  liveToken,
  restCall,
  restPet,
  type SseMessage,
  sseStream,
  untilOpen,
  wsClient,
} from '../helpers/live.js';
import { childDatabase } from '../helpers/process.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

type OrderEvent = { orderChanged: { id: string } };

const WRITES = 24;

/** Two replicas share one PostgreSQL; no Redis: the events travel through the database alone. */
describe.runIf(database === 'postgresql' && databaseAvailable)(
  'two replicas on one PostgreSQL, writing at once',
  () => {
    const db = childDatabase();
    let a: ServerProcess;
    let b: ServerProcess;
    beforeAll(async () => {
      const env = { DATABASE_URL: db.url, AUTH_JWT_SECRET: liveSecret, SEED: 'false' };
      // One after the other: the first one migrates the new database.
      a = await startServer(env);
      b = await startServer(env);
    });
    afterAll(async () => {
      await b?.stop();
      await a?.stop();
      await db.drop();
    });

    it('deliver every event once to a subscriber on each, in one order', async () => {
      const token = await liveToken();
      const { id: pet } = await restPet(a, token, 1000);
      const query = `subscription { orderChanged(petId: "${pet}") { id } }`;
      const onA = sseStream(a, { query, token });
      const onB = sseStream(b, { query, token });
      const ws = wsClient(b, token);
      const overWs = events<ExecutionResult<OrderEvent>>((sink) =>
        ws.subscribe<OrderEvent>({ query }, sink),
      );
      await untilOpen(a, 1);
      await untilOpen(b, 2);

      // Orders on both replicas at once.
      const placed = await Promise.all(
        Array.from({ length: WRITES }, async (_, i) => {
          const replica = i % 2 === 0 ? a : b;
          const order = await restCall(replica, 'POST', '/store/orders', token, {
            petId: Number(pet),
            quantity: 1,
          });
          expect(order.status).toBe(201);
          return String(order.body?.id);
        }),
      );

      const read = async (stream: typeof onA) => {
        const messages: SseMessage[] = [];
        for (let i = 0; i < WRITES; i++) messages.push(await stream.next(10_000));
        return messages.map((message) => ({
          cursor: message.id,
          order: (JSON.parse(message.data) as ExecutionResult<OrderEvent>).data?.orderChanged.id,
        }));
      };
      const [seenOnA, seenOnB] = await Promise.all([read(onA), read(onB)]);
      const seenOverWs = [];
      for (let i = 0; i < WRITES; i++) {
        const result = await overWs.next(10_000);
        seenOverWs.push({
          cursor: result.extensions?.cursor,
          order: result.data?.orderChanged.id,
        });
      }

      // Every order once, in one order everywhere: the order of the event ids.
      expect(new Set(seenOnA.map((event) => event.order))).toEqual(new Set(placed));
      expect(seenOnB).toEqual(seenOnA);
      expect(seenOverWs).toEqual(seenOnA);
      const cursors = seenOnA.map((event) => BigInt(event.cursor ?? ''));
      for (let i = 1; i < cursors.length; i++)
        expect(cursors[i]).toBeGreaterThan(cursors[i - 1] as bigint);

      await new Promise((resolve) => setTimeout(resolve, 300));
      expect([...onA.unread, ...onB.unread, ...overWs.unread]).toEqual([]);
      onA.close();
      onB.close();
      overWs.close();
      await ws.dispose();
    });
  },
);
