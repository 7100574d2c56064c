import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeDb } from '../helpers/app.js';
import { events, liveSecret, liveToken, restPet, wsClient } from '../helpers/live.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

/**
 * A WebSocket carries no HTTP request per subscription, so it has no access line: each
 * subscription writes a line when it starts (or is refused) and one when it ends, however it ends.
 */
describeDb('the log of WebSocket subscriptions', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({ AUTH_JWT_SECRET: liveSecret, SEED: 'false' });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const linesOf = (requestId: unknown) =>
    server.logs.filter((line) => line.requestId === requestId && line.transport === 'websocket');

  it('writes a line when a subscription starts and one when the client ends it', async () => {
    const token = await liveToken([], 'log-watcher');
    const ws = wsClient(server, token);
    const query = 'subscription WatchPets { petChanged { kind id } }';
    const watched = events((sink) => ws.subscribe({ query }, sink));
    const started = await server.waitForLog(
      (line) => line.msg === 'subscription started' && line.operation === 'WatchPets',
    );
    await restPet(server, await liveToken(), 0);
    await watched.next();
    watched.close();
    await server.waitForLog(
      (line) => line.msg === 'subscription ended' && line.requestId === started.requestId,
    );
    expect(linesOf(started.requestId).map(({ time: _, ...line }) => line)).toEqual([
      {
        level: 30,
        requestId: started.requestId,
        transport: 'websocket',
        operation: 'WatchPets',
        subject: 'log-watcher',
        msg: 'subscription started',
      },
      {
        level: 30,
        requestId: started.requestId,
        transport: 'websocket',
        operation: 'WatchPets',
        subject: 'log-watcher',
        events: 1,
        durationMs: expect.any(Number),
        msg: 'subscription ended',
      },
    ]);
    await ws.dispose();
  });

  it('writes the end of every subscription of a socket that closes', async () => {
    const ws = wsClient(server);
    const query = 'subscription ClosedWithTheSocket { inventoryChanged { petId } }';
    events((sink) => ws.subscribe({ query }, sink));
    const started = await server.waitForLog(
      (line) => line.msg === 'subscription started' && line.operation === 'ClosedWithTheSocket',
    );
    await ws.dispose();
    const ended = await server.waitForLog(
      (line) => line.msg === 'subscription ended' && line.requestId === started.requestId,
    );
    expect(ended).toMatchObject({ operation: 'ClosedWithTheSocket', events: 0 });
  });

  it('writes a refused subscription with its code', async () => {
    const ws = wsClient(server);
    const refused = events((sink) => ws.subscribe({ query: 'subscription Nope { nope }' }, sink));
    await refused.ended;
    const line = await server.waitForLog((line) => line.msg === 'subscription refused');
    expect(line).toMatchObject({ transport: 'websocket', code: 'GRAPHQL_VALIDATION_FAILED' });
    await ws.dispose();
  });
});
