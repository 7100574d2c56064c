import type { ExecutionResult } from 'graphql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeOrder, makePet } from '../helpers/factories.js';
import {
  codeOf,
  events,
  restCall,
  type Served,
  serveApp,
  sseStream,
  untilOpen,
  wsClient,
} from '../helpers/live.js';

/** A number the server reports in /metrics. */
async function metric(server: Served, name: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
}

/** The executions of subscription documents on events the server has counted. */
const executions = (server: Served) => metric(server, 'petstore_subscription_executions_total');

type Watched = { petChanged: { id: string; pet: { orders: { totalCount: number } | null } } };

describeDb('the fan-out of one event to its subscribers', () => {
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
    const before = await executions(server);
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
    // One execution per scope group: the anonymous callers', the readers'.
    expect((await executions(server)) - before).toBe(2);
    await untilOpen(server, 0);
  });

  it('runs a group once per event however many members it has, over SSE and graphql-ws alike, the same bytes for each', async () => {
    const pet = await makePet(app());
    const query = `subscription Watch { petChanged(id: "${pet.id}") { kind id pet { name } } }`;
    const sse = Array.from({ length: 6 }, () => sseStream(server, { query }));
    const socket = wsClient(server);
    const ws = Array.from({ length: 4 }, () =>
      events((sink) => socket.subscribe({ query, operationName: 'Watch' }, sink)),
    );
    await untilOpen(server, 10);
    const before = await executions(server);
    const writer = await app().token();
    for (const name of ['First', 'Second', 'Third']) {
      const renamed = await restCall(server, 'PUT', `/pets/${pet.id}`, writer, {
        name,
        categoryId: Number(pet.categoryId),
      });
      expect(renamed.status).toBe(200);
    }
    const overSse = await Promise.all(
      sse.map(async (stream) => [await stream.next(), await stream.next(), await stream.next()]),
    );
    const overWs = await Promise.all(
      ws.map(async (stream) => [await stream.next(), await stream.next(), await stream.next()]),
    );
    // Three events, three executions, for ten subscribers: one group.
    expect((await executions(server)) - before).toBe(3);
    expect(await metric(server, 'petstore_subscription_groups')).toBe(1);
    const expected = overSse[0]?.map((message) => message.data);
    expect(expected).toHaveLength(3);
    for (const messages of overSse)
      expect(messages.map((message) => message.data)).toEqual(expected);
    for (const results of overWs)
      expect(results.map((result) => JSON.stringify(result))).toEqual(expected);
    expect(JSON.parse(expected?.[2] ?? '')).toEqual({
      data: { petChanged: { kind: 'updated', id: String(pet.id), pet: { name: 'Third' } } },
      extensions: { cursor: overSse[0]?.[2]?.id },
    });
    for (const stream of sse) stream.close();
    socket.dispose();
    await untilOpen(server, 0);
  });

  it('never shares orderChanged between callers with and without orders:read', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    const query = `subscription { orderChanged(petId: "${pet.id}") { kind order { quantity } } }`;
    // Two readers whose other scopes differ share one execution; the caller without the scope is
    // refused on both transports and receives nothing.
    const readers = [
      sseStream(server, { query, token: await app().token(['orders:read']) }),
      sseStream(server, { query, token: await app().token(['orders:read', 'pets:write']) }),
    ];
    const outsider = await app().token(['pets:read']);
    const refused = sseStream(server, { query, token: outsider });
    const socket = wsClient(server, outsider);
    const overWs = events((sink) => socket.subscribe({ query }, sink));
    expect(codeOf(await overWs.next())).toEqual({ code: 'FORBIDDEN', status: 403 });
    expect(JSON.parse((await refused.next()).data)).toMatchObject({
      errors: [{ extensions: { code: 'FORBIDDEN', status: 403 } }],
    });
    await untilOpen(server, 2);
    const before = await executions(server);
    const placed = await restCall(server, 'POST', '/store/orders', await app().token(), {
      petId: Number(pet.id),
      quantity: 1,
    });
    expect(placed.status).toBe(201);
    for (const reader of readers) {
      const message = JSON.parse((await reader.next()).data);
      expect(message.data).toEqual({ orderChanged: { kind: 'created', order: { quantity: 1 } } });
      reader.close();
    }
    expect((await executions(server)) - before).toBe(1);
    expect(refused.unread.filter((message) => message.event === 'next')).toEqual([]);
    refused.close();
    socket.dispose();
    await untilOpen(server, 0);
  });
});
