import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerHarness } from '../ipc.js';
import { createRoutes } from './routes.js';
import { openStore } from './store.js';

/**
 * The baseline server: node:http and prepared statements (better-sqlite3, or pg on PostgreSQL) on
 * the bench database (argv[2], a DATABASE_URL), nothing else.
 */
const url = process.argv[2];
if (!url) throw new Error('usage: baseline/server.ts <DATABASE_URL>');
const store = await openStore(url);
const route = createRoutes(store);

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', async () => {
    const body = chunks.length === 0 ? '' : Buffer.concat(chunks).toString();
    const reply = await route(request.method ?? 'GET', request.url ?? '/', body).catch(
      (error: unknown) => ({ status: 500, headers: {}, body: String(error) }),
    );
    response.writeHead(reply.status, {
      ...reply.headers,
      'content-length': Buffer.byteLength(reply.body),
    });
    response.end(reply.body);
  });
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  answerHarness(port, store.statementCount, async () => {
    server.close();
    server.closeAllConnections();
    await store.close();
  });
});
