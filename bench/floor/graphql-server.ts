import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerHarness } from '../ipc.js';
import { openFloorDatabase } from './database.js';
import { createGraphQLFloor } from './graphql.js';

/**
 * The GraphQL floor server: the bare Yoga of ./graphql.ts as plain node:http's request listener
 * (`createServer(yoga)`), configured by the product's environment passed as JSON in argv[2].
 */
const env = JSON.parse(process.argv[2] ?? '{}') as Record<string, string>;
const { config, database, shared } = openFloorDatabase(env);
const yoga = createGraphQLFloor({ database, shared, listItems: config.limits.graphqlListItems });
const server = createServer(yoga);

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  answerHarness(port, database.statementCount, async () => {
    server.close();
    server.closeAllConnections();
    await database.close();
  });
});
