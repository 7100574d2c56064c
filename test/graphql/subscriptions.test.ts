import { Client, subscriptionExchange } from '@urql/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeDb } from '../helpers/app.js';
import {
  codeOf,
  eventOf,
  events,
  firstEvent,
  liveSecret,
  liveToken,
  restCall,
  restPet,
  sseClient,
  untilOpen,
  upgradeRequest,
  wsClient,
} from '../helpers/live.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

const orderQuery = (petId: string) =>
  `subscription { orderChanged(petId: "${petId}") { kind id order { quantity pet { id status inventory { quantity } } } } }`;

describeDb('subscriptions on the real server', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({
      AUTH_JWT_SECRET: liveSecret,
      SEED: 'false',
      MAX_SUBSCRIPTIONS_PER_CLIENT: '3',
      REQUEST_TIMEOUT_MS: '1000',
      GRAPHQL_MAX_COST: '200',
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('an order placed over REST arrives as orderChanged on graphql-ws and graphql-sse, read when delivered', async () => {
    const token = await liveToken();
    const { id: pet } = await restPet(server, token, 2);
    const ws = wsClient(server, token);
    const sse = sseClient(server, token);
    const overWs = events((sink) => ws.subscribe({ query: orderQuery(pet) }, sink));
    const overSse = events((sink) => sse.subscribe({ query: orderQuery(pet) }, sink));
    await untilOpen(server, 2);

    const placed = await restCall(server, 'POST', '/store/orders', token, {
      petId: Number(pet),
      quantity: 2,
    });
    expect(placed.status).toBe(201);
    const created = eventOf({
      orderChanged: {
        kind: 'created',
        id: String(placed.body?.id),
        // The last units: the pet is sold, as read when the event is delivered.
        order: { quantity: 2, pet: { id: pet, status: 'sold', inventory: { quantity: 0 } } },
      },
    });
    expect(await overWs.next()).toEqual(firstEvent(created, 'orderChanged'));
    expect(await overSse.next()).toEqual(firstEvent(created, 'orderChanged'));

    expect(
      (await restCall(server, 'DELETE', `/store/orders/${placed.body?.id}`, token)).status,
    ).toBe(204);
    const cancelled = eventOf({
      orderChanged: { kind: 'deleted', id: String(placed.body?.id), order: null },
    });
    expect(await overWs.next()).toEqual(cancelled);
    expect(await overSse.next()).toEqual(cancelled);

    overWs.close();
    overSse.close();
    await untilOpen(server, 0);
    await ws.dispose();
    sse.dispose();
  });

  it('petChanged(id) sends only that pet’s changes; other pets’ writes are filtered out', async () => {
    const token = await liveToken();
    const [watched, other] = [await restPet(server, token, 0), await restPet(server, token, 0)];
    const ws = wsClient(server, await liveToken([]));
    const sse = sseClient(server, await liveToken([]));
    const query = `subscription { petChanged(id: "${watched.id}") { kind id pet { id name status } } }`;
    const overWs = events((sink) => ws.subscribe({ query }, sink));
    const overSse = events((sink) => sse.subscribe({ query }, sink));
    await untilOpen(server, 2);

    await restCall(server, 'PUT', `/pets/${other.id}`, token, {
      name: 'Other',
      categoryId: other.categoryId,
    });
    await restCall(server, 'PUT', `/pets/${watched.id}`, token, {
      name: 'Watched',
      categoryId: watched.categoryId,
    });
    const updated = eventOf({
      petChanged: {
        kind: 'updated',
        id: watched.id,
        pet: { id: watched.id, name: 'Watched', status: 'available' },
      },
    });
    expect(await overWs.next()).toEqual(firstEvent(updated, 'petChanged'));
    expect(await overSse.next()).toEqual(firstEvent(updated, 'petChanged'));

    expect((await restCall(server, 'DELETE', `/pets/${watched.id}`, token)).status).toBe(204);
    const deleted = eventOf({ petChanged: { kind: 'deleted', id: watched.id, pet: null } });
    expect(await overWs.next()).toEqual(deleted);
    expect(await overSse.next()).toEqual(deleted);
    expect([...overWs.unread, ...overSse.unread]).toEqual([]);

    overWs.close();
    overSse.close();
    await untilOpen(server, 0);
    await ws.dispose();
    sse.dispose();
  });

  it('refuses orderChanged without orders:read on both transports (UNAUTHENTICATED, FORBIDDEN)', async () => {
    const query = 'subscription { orderChanged { id } }';
    for (const token of [undefined, await liveToken(['pets:write'])]) {
      const expected = token
        ? { code: 'FORBIDDEN', status: 403 }
        : { code: 'UNAUTHENTICATED', status: 401 };
      const ws = wsClient(server, token);
      const sse = sseClient(server, token);
      const overWs = events((sink) => ws.subscribe({ query }, sink));
      const overSse = events((sink) => sse.subscribe({ query }, sink));
      expect(codeOf(await overWs.next())).toEqual(expected);
      expect(codeOf(await overSse.next())).toEqual(expected);
      expect(await overWs.ended).toBeUndefined();
      expect(await overSse.ended).toBeUndefined();
      await ws.dispose();
      sse.dispose();
    }
    expect(server.logs.filter((line) => line.level >= 50)).toEqual([]);
  });

  it('closes a WebSocket whose connection_init token is invalid with 4403 and the reason', async () => {
    const ws = wsClient(server, 'not.a.token');
    const refused = events((sink) =>
      ws.subscribe({ query: 'subscription { petChanged { id } }' }, sink),
    );
    await refused.ended;
    expect(ws.closes).toEqual([
      { code: 4403, reason: 'The bearer token is not valid: it is malformed or cannot be checked' },
    ]);
    await ws.dispose();
  });

  it('answers an upgrade it does not take in the Error shape', async () => {
    const refusals: {
      path: string;
      method?: string;
      headers?: Record<string, string>;
      expected: { code: string; status: number };
    }[] = [
      { path: '/graphql/ws', expected: { code: 'NOT_FOUND', status: 404 } },
      { path: '/graphql', method: 'POST', expected: { code: 'METHOD_NOT_ALLOWED', status: 405 } },
      {
        path: '/graphql',
        headers: { 'sec-websocket-key': 'short' },
        expected: { code: 'MALFORMED_REQUEST', status: 400 },
      },
      {
        path: '/graphql',
        headers: { 'sec-websocket-version': '7' },
        expected: { code: 'MALFORMED_REQUEST', status: 400 },
      },
    ];
    for (const { path, expected, ...request } of refusals) {
      const answer = await upgradeRequest(server, path, request);
      expect(answer.status).toBe(expected.status);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(answer.body)).toEqual({ ...expected, message: expect.any(String) });
    }
    expect((await upgradeRequest(server, '/graphql', { method: 'POST' })).headers.allow).toBe(
      'GET',
    );
    const version = await upgradeRequest(server, '/graphql', {
      headers: { 'sec-websocket-version': '7' },
    });
    expect(version.headers['sec-websocket-version']).toBe('13');
    expect(JSON.parse(version.body).message).toBe(
      'Not a valid WebSocket upgrade: Missing or invalid Sec-WebSocket-Version header',
    );
    // And the one it takes.
    expect((await upgradeRequest(server, '/graphql')).status).toBe(101);
  });

  it('never sends an event for a refused write', async () => {
    const token = await liveToken();
    const { id: pet } = await restPet(server, token, 1);
    const ws = wsClient(server, token);
    const overWs = events((sink) => ws.subscribe({ query: orderQuery(pet) }, sink));
    await untilOpen(server, 1);

    const refused = await restCall(server, 'POST', '/store/orders', token, {
      petId: Number(pet),
      quantity: 2,
    });
    expect(refused.body?.code).toBe('INSUFFICIENT_STOCK');
    const placed = await restCall(server, 'POST', '/store/orders', token, {
      petId: Number(pet),
      quantity: 1,
    });
    expect(placed.status).toBe(201);
    const first = (await overWs.next()) as { data: { orderChanged: { id: string } } };
    expect(first.data.orderChanged.id).toBe(String(placed.body?.id));

    overWs.close();
    await untilOpen(server, 0);
    await ws.dispose();
  });

  it('applies the document limits to subscriptions on both transports', async () => {
    const token = await liveToken([]);
    const aliases = Array.from({ length: 21 }, (_, i) => `a${i}: id`).join(' ');
    const tooComplex = [
      `subscription { petChanged { ${aliases} } }`,
      // 100 pets a page: over this server's cost limit of 200.
      'subscription { petChanged { pet { category { pets(first: 100) { edges { node { id name } } } } } } }',
      'subscription { petChanged { pet { category { pets { edges { node { category { pets { edges { node { category { id } } } } } } } } } } } }',
    ];
    const ws = wsClient(server, token);
    for (const query of tooComplex) {
      const overWs = events((sink) => ws.subscribe({ query }, sink));
      expect(codeOf(await overWs.ended)).toEqual({ code: 'QUERY_TOO_COMPLEX', status: 400 });

      const overSse = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify({ query }),
      });
      // GraphQL over SSE: a stream holding the error, then its end.
      expect(overSse.headers.get('content-type')).toBe('text/event-stream');
      const streamed = await overSse.text();
      expect(streamed).toMatch(
        /event: next\ndata: \{"errors":\[\{"message":"[^"]+","extensions":\{"code":"QUERY_TOO_COMPLEX","status":400\}\}\],"extensions":\{"cost":\{"requestedQueryCost":\d+\}\}\}\n\nevent: complete\n/,
      );
    }

    // The WebSocket carries queries and subscriptions, not mutations.
    const mutation = events((sink) =>
      ws.subscribe({ query: 'mutation { deleteCategory(id: "0") }' }, sink),
    );
    expect(codeOf(await mutation.ended)).toEqual({ code: 'METHOD_NOT_ALLOWED', status: 405 });
    await ws.dispose();
    await untilOpen(server, 0);
  });

  it('bounds the subscriptions of one client across both transports', async () => {
    const token = await liveToken([], 'bounded-client');
    const ws = wsClient(server, token);
    const sse = sseClient(server, token);
    const query = 'subscription { petChanged { id } }';
    const open = [
      events((sink) => ws.subscribe({ query }, sink)),
      events((sink) => ws.subscribe({ query }, sink)),
      events((sink) => sse.subscribe({ query }, sink)),
    ];
    await untilOpen(server, 3);
    for (const over of [
      events((sink) => ws.subscribe({ query }, sink)),
      events((sink) => sse.subscribe({ query }, sink)),
    ]) {
      const refused = await over.next();
      expect(refused.errors?.[0]?.message).toBe(
        'A client may hold at most 3 subscriptions open at once; complete one before starting another',
      );
      expect(codeOf(refused)).toEqual({ code: 'RATE_LIMITED', status: 429 });
    }
    // Another client is not affected.
    const other = wsClient(server, await liveToken([]));
    const others = events((sink) => other.subscribe({ query }, sink));
    await untilOpen(server, 4);

    open[0]?.close();
    await untilOpen(server, 3);
    const again = events((sink) => sse.subscribe({ query }, sink));
    await untilOpen(server, 4);

    for (const subscription of [...open, others, again]) subscription.close();
    await untilOpen(server, 0);
    await ws.dispose();
    await other.dispose();
    sse.dispose();
  });

  it('keeps an SSE stream open past the request time limit', async () => {
    const token = await liveToken();
    const { id: pet } = await restPet(server, token, 1);
    const sse = sseClient(server);
    const stock = events((sink) =>
      sse.subscribe(
        { query: `subscription { inventoryChanged(petId: "${pet}") { petId quantity } }` },
        sink,
      ),
    );
    await untilOpen(server, 1);
    // This server's time limit is 1 s.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await restCall(server, 'PUT', `/store/inventory/${pet}`, token, { quantity: 9 });
    expect(await stock.next()).toEqual(
      firstEvent(eventOf({ inventoryChanged: { petId: pet, quantity: 9 } }), 'inventoryChanged'),
    );
    stock.close();
    await untilOpen(server, 0);
    sse.dispose();
  });

  it('answers HEAD with an event stream’s headers, and keeps no subscription open for it', async () => {
    const query = encodeURIComponent('subscription { petChanged { id } }');
    const response = await fetch(`${server.url}/graphql?query=${query}`, {
      method: 'HEAD',
      headers: { accept: 'text/event-stream' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    await untilOpen(server, 0);
  });

  it('serves urql’s subscription exchange over graphql-ws and over SSE', async () => {
    const token = await liveToken();
    const { id: pet } = await restPet(server, token, 3);
    const ws = wsClient(server, token);
    const sse = sseClient(server, token);
    const urqlOver = (transport: typeof ws | typeof sse) =>
      new Client({
        url: `${server.url}/graphql`,
        exchanges: [
          subscriptionExchange({
            forwardSubscription: (request) => ({
              subscribe: (sink) => ({
                unsubscribe: transport.subscribe({ ...request, query: request.query ?? '' }, sink),
              }),
            }),
          }),
        ],
      });
    const received = (client: Client, query: string) =>
      events<unknown>((sink) => {
        const { unsubscribe } = client.subscription(query, {}).subscribe((result) => {
          sink.next(result.error ? result.error : result.data);
        });
        return unsubscribe;
      });
    const orders = received(urqlOver(ws), orderQuery(pet));
    const stock = received(
      urqlOver(sse),
      `subscription Stock { inventoryChanged(petId: "${pet}") { petId quantity } }`,
    );
    await untilOpen(server, 2);

    const placed = await restCall(server, 'POST', '/store/orders', token, {
      petId: Number(pet),
      quantity: 1,
    });
    expect(await orders.next()).toMatchObject({
      orderChanged: { kind: 'created', id: String(placed.body?.id), order: { quantity: 1 } },
    });
    expect(await stock.next()).toMatchObject({ inventoryChanged: { petId: pet, quantity: 2 } });

    orders.close();
    stock.close();
    await untilOpen(server, 0);
    await ws.dispose();
    sse.dispose();
  });
});

describeDb('subscriptions at shutdown', () => {
  it('end cleanly and do not hold the shutdown', async () => {
    // A shutdown the streams held would last the whole timeout: long, so that a busy machine's
    // slow but unhindered shutdown (5 s seen) is told apart from it.
    const server = await startServer({
      AUTH_JWT_SECRET: liveSecret,
      SEED: 'false',
      SHUTDOWN_TIMEOUT_MS: '60000',
    });
    try {
      const ws = wsClient(server);
      const sse = sseClient(server);
      const query = 'subscription { petChanged { id } }';
      const overWs = events((sink) => ws.subscribe({ query }, sink));
      const overSse = events((sink) => sse.subscribe({ query }, sink));
      await untilOpen(server, 2);

      const stopping = Date.now();
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      // Well before SHUTDOWN_TIMEOUT_MS: the open streams did not hold it up.
      expect(Date.now() - stopping).toBeLessThan(30_000);
      // The SSE stream completed; the WebSocket closed with "going away".
      expect(await overSse.ended).toBeUndefined();
      await overWs.ended;
      expect(ws.closes).toEqual([{ code: 1001, reason: 'The server is shutting down' }]);
      await ws.dispose();
      sse.dispose();
    } finally {
      await server.stop();
    }
  });
});
