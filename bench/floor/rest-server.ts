import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { answerHarness } from '../ipc.js';
import { openFloorDatabase } from './database.js';
import { createRestFloor } from './rest.js';

/**
 * The REST floor server: the bare Hono app of ./rest.ts behind @hono/node-server, configured by
 * the product's environment passed as JSON in argv[2].
 */
const env = JSON.parse(process.argv[2] ?? '{}') as Record<string, string>;
const { database, shared } = openFloorDatabase(env);
const app = createRestFloor({ database, shared });

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
  answerHarness(info.port, database.statementCount, async () => {
    server.close();
    if ('closeAllConnections' in server) server.closeAllConnections();
    await database.close();
  });
});
