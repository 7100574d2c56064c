import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { UsageReport } from '../../src/usage/report.js';
import { describeDb } from '../helpers/app.js';
import {
  events,
  liveSecret,
  liveToken,
  restCall,
  restPet,
  untilOpen,
  wsUrl,
} from '../helpers/live.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

describeDb('usage of subscriptions on the real server', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({ AUTH_JWT_SECRET: liveSecret, SEED: 'false' });
  });
  afterAll(() => server?.stop());

  it('counts a subscription for the client it names: in connection_init over WebSocket, in headers over SSE', async () => {
    const token = await liveToken();
    const { id } = await restPet(server, token, 1);
    const ws = createWsClient({
      url: wsUrl(server),
      webSocketImpl: WebSocket,
      // Browsers cannot set headers on a WebSocket: the name travels in connection_init.
      connectionParams: { 'graphql-client-name': 'ws-app', 'graphql-client-version': '2.0' },
      retryAttempts: 0,
    });
    const sse = createSseClient({
      url: `${server.url}/graphql`,
      headers: { 'graphql-client-name': 'sse-app', 'graphql-client-version': '3.1' },
      retryAttempts: 0,
    });
    const query = `subscription { inventoryChanged(petId: "${id}") { quantity } }`;
    const overWs = events((sink) => ws.subscribe({ query }, sink));
    const overSse = events((sink) => sse.subscribe({ query }, sink));
    await untilOpen(server, 2);
    expect(
      (await restCall(server, 'PUT', `/store/inventory/${id}`, token, { quantity: 4 })).status,
    ).toBe(200);
    await overWs.next();
    await overSse.next();
    overWs.close();
    overSse.close();
    await ws.dispose();
    sse.dispose();

    const response = await fetch(`${server.url}/usage?coordinate=Subscription.inventoryChanged`, {
      headers: { authorization: `Bearer ${await liveToken(['admin:read'])}` },
    });
    expect(response.status).toBe(200);
    const report = (await response.json()) as UsageReport;
    expect(
      report.coordinates.flatMap((entry) =>
        entry.clients.map(
          (client) => `${client.name}@${client.versions.map((v) => v.version).join(',')}`,
        ),
      ),
    ).toEqual(['sse-app@3.1', 'ws-app@2.0']);
  });
});
