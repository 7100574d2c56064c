import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { sha256Hex } from '../../src/persisted/operations.js';
import { describeDb } from '../helpers/app.js';
import {
  codeOf,
  events,
  liveSecret,
  liveToken,
  untilOpen,
  upgradeRequest,
  wsClient,
  wsUrl,
} from '../helpers/live.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

const petChanged = 'subscription { petChanged { kind id } }';

/** Subscribes `count` times on one client; resolves with each subscription's first outcome. */
async function subscribeMany(client: ReturnType<typeof wsClient>, count: number, query: string) {
  const streams = Array.from({ length: count }, () =>
    events((sink) => client.subscribe({ query }, sink)),
  );
  // A refused subscribe ends at once with its error; an accepted one stays open.
  const outcomes = await Promise.all(
    streams.map((stream) =>
      Promise.race([
        stream.ended.then((error) => ({ refused: codeOf(error).code })),
        new Promise<{ open: true }>((resolve) => setTimeout(() => resolve({ open: true }), 1500)),
      ]),
    ),
  );
  return { streams, outcomes };
}

describeDb('every WebSocket request is counted and bounded, on the real server', () => {
  let limited: ServerProcess;
  let capped: ServerProcess;
  beforeAll(async () => {
    [limited, capped] = await Promise.all([
      startServer({
        AUTH_JWT_SECRET: liveSecret,
        SEED: 'false',
        RATE_LIMIT_PER_MINUTE: '20',
      }),
      startServer({
        AUTH_JWT_SECRET: liveSecret,
        SEED: 'false',
        MAX_SOCKETS_PER_CLIENT: '3',
        RATE_LIMIT_COST_PER_MINUTE: '5',
      }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([limited?.stop(), capped?.stop()]);
  });

  it('counts each subscribe message against the request budget: 40 on one socket, 20 served', async () => {
    const client = wsClient(limited, await liveToken());
    const { streams, outcomes } = await subscribeMany(client, 40, petChanged);
    expect(outcomes.filter((outcome) => 'open' in outcome)).toHaveLength(20);
    expect(outcomes.filter((outcome) => 'refused' in outcome)).toEqual(
      Array.from({ length: 20 }, () => ({ refused: 'RATE_LIMITED' })),
    );
    for (const stream of streams) stream.close();
    await untilOpen(limited, 0);
    await client.dispose();
  });

  it('counts an upgrade as a request of its address: past the budget, 429 in the Error shape', async () => {
    let answer = await upgradeRequest(limited, '/graphql');
    for (let i = 0; i < 25 && answer.status === 101; i++)
      answer = await upgradeRequest(limited, '/graphql');
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toMatch(/^\d+$/);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
  });

  it('holds a client to MAX_SOCKETS_PER_CLIENT WebSockets: the next one is closed with 4429', async () => {
    const token = await liveToken();
    const open = [wsClient(capped, token), wsClient(capped, token), wsClient(capped, token)];
    const streams = open.map((client) =>
      events((sink) => client.subscribe({ query: petChanged }, sink)),
    );
    await untilOpen(capped, 3);

    const extra = wsClient(capped, token);
    const refused = events((sink) => extra.subscribe({ query: petChanged }, sink));
    await refused.ended;
    expect(extra.closes).toEqual([
      { code: 4429, reason: 'RATE_LIMITED: at most 3 WebSockets per client' },
    ]);
    // Anonymous callers count by their address, the same way.
    const anonymous = [wsClient(capped), wsClient(capped), wsClient(capped), wsClient(capped)];
    const anonymousStreams = anonymous.map((client) =>
      events((sink) =>
        client.subscribe({ query: 'subscription { inventoryChanged { petId } }' }, sink),
      ),
    );
    await Promise.race(anonymousStreams.map((stream) => stream.ended));
    await untilOpen(capped, 6);
    expect(anonymous.flatMap((client) => client.closes).map((close) => close.code)).toEqual([4429]);

    // A socket closed frees its place (once the server has seen it close).
    streams[0]?.close();
    await open[0]?.dispose();
    let again = wsClient(capped, token);
    let reopened = events((sink) => again.subscribe({ query: petChanged }, sink));
    for (let tries = 0; tries < 20; tries++) {
      const ended = await Promise.race([
        reopened.ended.then(() => true),
        untilOpen(capped, 6).then(() => false),
      ]);
      if (!ended) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = wsClient(capped, token);
      reopened = events((sink) => again.subscribe({ query: petChanged }, sink));
    }
    await untilOpen(capped, 6);
    expect(again.closes).toEqual([]);

    for (const stream of [...streams, reopened, ...anonymousStreams]) stream.close();
    await Promise.all([...open, again, extra, ...anonymous].map((client) => client.dispose()));
    await untilOpen(capped, 0);
  });

  it('charges a subscription its cost from the cost budget, over the WebSocket too', async () => {
    // Each costs 2 points (the change and its pet); the budget holds 5.
    const client = wsClient(capped, await liveToken());
    const { streams, outcomes } = await subscribeMany(
      client,
      3,
      'subscription { petChanged { kind pet { name } } }',
    );
    expect(outcomes).toEqual([{ open: true }, { open: true }, { refused: 'RATE_LIMITED' }]);
    for (const stream of streams) stream.close();
    await client.dispose();
    await untilOpen(capped, 0);
  });
});

describeDb('persisted operations by hash alone over the WebSocket, on the real server', () => {
  let server: ServerProcess;
  let manifestDir: string;
  const subscription = 'subscription Stock { inventoryChanged { petId quantity } }';
  const extensions = { persistedQuery: { version: 1, sha256Hash: sha256Hex(subscription) } };
  beforeAll(async () => {
    manifestDir = await mkdtemp(join(tmpdir(), 'petstore-manifest-'));
    const manifest = join(manifestDir, 'manifest.json');
    await writeFile(
      manifest,
      JSON.stringify({ [`sha256:${sha256Hex(subscription)}`]: subscription }),
    );
    server = await startServer({ SEED: 'false', PERSISTED_OPERATIONS_ONLY: manifest });
  });
  afterAll(async () => {
    await server?.stop();
    await rm(manifestDir, { recursive: true, force: true });
  });

  it('subscribes with the hash and an empty query (graphql-ws requires a query string)', async () => {
    const client = wsClient(server);
    const stream = events((sink) => client.subscribe({ query: '', extensions }, sink));
    await untilOpen(server, 1);
    expect(client.closes).toEqual([]);
    stream.close();
    await client.dispose();
    await untilOpen(server, 0);
  });

  it('subscribes with the hash and no query at all, as a hand-written client may send it', async () => {
    const socket = new WebSocket(wsUrl(server), 'graphql-transport-ws');
    const messages: { type: string }[] = [];
    socket.on('message', (data) => messages.push(JSON.parse(String(data))));
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init' }));
    // The protocol: subscribe once the connection is acknowledged.
    while (messages.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { extensions } }));
    await untilOpen(server, 1).catch((error) => {
      throw new Error(`${error.message}; the server sent ${JSON.stringify(messages)}`);
    });
    expect(messages).toEqual([{ type: 'connection_ack' }]);
    socket.close();
    await untilOpen(server, 0);
  });
});
