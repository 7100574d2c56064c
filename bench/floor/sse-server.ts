import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerHarness } from '../ipc.js';

/**
 * The fan-out floor: a bare `node:http` server that holds every `text/event-stream` request open
 * and, when a write (`PUT /api/pets/:id`) has been answered, writes one event of the product's
 * size (the same Buffer) to every open response. It counts its streams as the product does in
 * /metrics, so that bench/subscribers.ts measures it exactly as it measures the product.
 */
const streams = new Set<ServerResponse>();
let lastId = 0;

const server = createServer((request, response) => {
  if (request.url === '/metrics') {
    response.end(`petstore_subscriptions_open ${streams.size}\n`);
    return;
  }
  if (request.url?.startsWith('/graphql')) {
    request.resume();
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    response.write(':\n\n');
    streams.add(response);
    response.once('close', () => streams.delete(response));
    return;
  }
  const id = /^\/api\/pets\/(\d+)$/.exec(request.url ?? '')?.[1];
  if (request.method === 'PUT' && id) {
    request.resume();
    request.once('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: Number(id) }));
      lastId++;
      const pet = { id, name: `Live ${lastId}`, status: 'available', inventory: { quantity: 1 } };
      const data = JSON.stringify({
        data: { petChanged: { kind: 'updated', id, pet } },
        extensions: { cursor: String(lastId) },
      });
      const event = Buffer.from(`event: next\nid: ${lastId}\ndata: ${data}\n\n`);
      for (const stream of streams) stream.write(event);
    });
    return;
  }
  response.writeHead(404).end();
});

server.listen(0, '127.0.0.1', () => {
  answerHarness(
    (server.address() as AddressInfo).port,
    () => 0,
    async () => {
      server.close();
      server.closeAllConnections();
    },
  );
});
