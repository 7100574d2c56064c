import type { ExecutionResult } from 'graphql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeOrder, makePet } from '../helpers/factories.js';
import { restCall, type Served, serveApp, sseStream, untilOpen } from '../helpers/live.js';

type Watched = { petChanged: { id: string; pet: { orders: { totalCount: number } | null } } };

describeDb('subscribers of one event', () => {
  const app = useTestApp();
  let server: Served & { close(): Promise<void> };
  beforeAll(async () => {
    server = await serveApp(app());
  });
  afterAll(() => server?.close());

  it('share its result only with callers of the same scopes', async () => {
    const pet = await makePet(app());
    await makeOrder(app(), { petId: pet.id });
    const query = `subscription { petChanged(id: "${pet.id}") { id pet { orders { totalCount } } } }`;
    const reader = await app().token(['orders:read']);
    const streams = {
      anonymous: [sseStream(server, { query }), sseStream(server, { query })],
      reader: [
        sseStream(server, { query, token: reader }),
        sseStream(server, { query, token: reader }),
      ],
    };
    await untilOpen(server, 4);
    const renamed = await restCall(server, 'PUT', `/pets/${pet.id}`, await app().token(), {
      name: 'Shared',
      categoryId: Number(pet.categoryId),
    });
    expect(renamed.status).toBe(200);

    const read = async (stream: (typeof streams.reader)[number]) => {
      const message = await stream.next();
      stream.close();
      return { id: message.id, result: JSON.parse(message.data) as ExecutionResult<Watched> };
    };
    const anonymous = await Promise.all(streams.anonymous.map(read));
    const readers = await Promise.all(streams.reader.map(read));
    const cursor = anonymous[0]?.id;
    for (const { id, result } of [...anonymous, ...readers]) {
      expect(id).toBe(cursor);
      expect(result.extensions?.cursor).toBe(cursor);
    }
    for (const { result } of readers)
      expect(result.data).toEqual({
        petChanged: { id: String(pet.id), pet: { orders: { totalCount: 1 } } },
      });
    for (const { result } of anonymous) {
      expect(result.data).toEqual({ petChanged: { id: String(pet.id), pet: { orders: null } } });
      expect(result.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED', status: 401 });
    }
    await untilOpen(server, 0);
  });
});
