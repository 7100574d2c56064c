// First, as in src/server.ts: what V8 must know before the app's dependencies load.
import '../../src/runtime/wasm-baseline-tier.js';
import '../../src/runtime/marking-pause.js';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { classifyError } from '../../src/errors/classify.js';
import { answerHarness } from '../ipc.js';

/**
 * The product as `npm start` serves it (createApp behind @hono/node-server's node:http listener),
 * configured only by the environment the runner
 * passes as JSON in argv[2], never by `.env`; the OTEL_* variables of the runner's own environment
 * turn tracing on, as they do for `npm start`.
 */
const env = JSON.parse(process.argv[2] ?? '{}') as Record<string, string>;
const config = loadConfig({ ...env, ...otelVariables(process.env) });
if (config.tracing) {
  const { startTracing } = await import('../../src/tracing/sdk.js');
  await startTracing({ classify: (error) => classifyError(error).error, warn: console.error });
}
const app = await createApp(config);

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
  answerHarness(info.port, app.database.statementCount, async () => {
    await app.endSubscriptions();
    server.close();
    if ('closeAllConnections' in server) server.closeAllConnections();
    await app.close();
  });
});
app.serveWebSockets(server as Server);

function otelVariables(all: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(all).filter((entry): entry is [string, string] => entry[0].startsWith('OTEL_')),
  );
}
