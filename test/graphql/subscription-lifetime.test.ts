import { afterAll, beforeAll, expect, it } from 'vitest';
import { mintToken } from '../../src/auth/tokens.js';
import { scopes } from '../../src/domain/authorization.js';
import { describeDb } from '../helpers/app.js';
import {
  codeOf,
  events,
  liveSecret,
  liveToken,
  restCall,
  restPet,
  sseClient,
  untilOpen,
  wsClient,
} from '../helpers/live.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeDb('how long a subscription lives', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({
      AUTH_JWT_SECRET: liveSecret,
      SEED: 'false',
      // Production rules: the SSE keep-alive comment every 12 s, as deployed (not the test pace).
      NODE_ENV: 'production',
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('ends a subscription when its token expires: WebSocket closed with 4403, SSE an UNAUTHENTICATED error; no event after expiry', async () => {
    const writer = await liveToken();
    const { id: pet } = await restPet(server, writer, 10);
    const query = `subscription { orderChanged(petId: "${pet}") { kind order { quantity } } }`;
    // Tokens that expire 3 s from now (JWT expiry has a resolution of a second).
    const expiring = (subject: string) => mintToken(liveSecret, { scopes, subject, expiresIn: 3 });
    const ws = wsClient(server, await expiring('expiring-ws'));
    const sse = sseClient(server, await expiring('expiring-sse'));
    const overWs = events((sink) => ws.subscribe({ query }, sink));
    const overSse = events((sink) => sse.subscribe({ query }, sink));
    await untilOpen(server, 2);

    const order = () =>
      restCall(server, 'POST', '/store/orders', writer, { petId: Number(pet), quantity: 1 });
    expect((await order()).status).toBe(201);
    expect((await overWs.next()).data).toEqual({
      orderChanged: { kind: 'created', order: { quantity: 1 } },
    });
    expect((await overSse.next()).data).toEqual({
      orderChanged: { kind: 'created', order: { quantity: 1 } },
    });

    // Past the expiry: both have ended, without a write to wake them.
    await untilOpen(server, 0, 6000);
    await overWs.ended;
    expect(ws.closes).toEqual([{ code: 4403, reason: 'The bearer token has expired' }]);
    const last = await overSse.next();
    expect(codeOf(last)).toEqual({ code: 'UNAUTHENTICATED', status: 401 });
    expect(last.errors?.[0]?.message).toBe(
      'The bearer token of this subscription has expired: subscribe again with a new token',
    );
    expect(await overSse.ended).toBeUndefined();

    expect((await order()).status).toBe(201);
    await sleep(300);
    expect([...overWs.unread, ...overSse.unread]).toEqual([]);
    await ws.dispose();
    sse.dispose();
  });

  it('releases the slot of a closed SSE stream at once (a quick reconnect is not refused)', async () => {
    const token = await liveToken([]);
    const sse = sseClient(server, token);
    const query = 'subscription { petChanged { id } }';
    const first = events((sink) => sse.subscribe({ query }, sink));
    await untilOpen(server, 1);
    first.close();
    // Well within the 12 s between keep-alive comments.
    await untilOpen(server, 0, 1000);
    const again = events((sink) => sse.subscribe({ query }, sink));
    await untilOpen(server, 1);
    expect(again.unread).toEqual([]);
    again.close();
    await untilOpen(server, 0, 1000);
    sse.dispose();
  });
});
