import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerHarness } from '../ipc.js';
import { createRoutes } from './routes.js';
import { openStore } from './store.js';

/** The baseline server: node:http and better-sqlite3 on the bench database (argv[2]), nothing else. */
const file = process.argv[2];
if (!file) throw new Error('usage: baseline/server.ts <database file>');
const store = openStore(file);
const route = createRoutes(store);

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = chunks.length === 0 ? '' : Buffer.concat(chunks).toString();
    const reply = route(request.method ?? 'GET', request.url ?? '/', body);
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
    store.close();
  });
});
