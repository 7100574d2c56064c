// First: what V8 must know before the app's dependencies load (src/runtime/).
import './runtime/wasm-baseline-tier.js';
import './runtime/marking-pause.js';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { createApp } from './app.js';
import { mintDevelopmentToken } from './auth/dev-secret.js';
import { parseCommand } from './cli.js';
import { ConfigError, loadConfig, loadDotEnv } from './config.js';
import { classifyError } from './errors/classify.js';
import { answerClientErrors } from './http/client-error.js';
import { closeServer, withConnectionClose } from './http/close-server.js';
import { capConnectionsPerAddress, headersTimeoutOptions } from './http/connections.js';
import { listenFailure } from './http/listen-error.js';
import { openFileWarning } from './http/open-file-limit.js';

parseCommand({
  name: 'npm start',
  synopsis: '',
  help: `Serves the Pet Store gateway: GraphQL at /graphql (GraphiQL in a browser), the REST façade at
/api (its documentation at /api/docs), health at /health/live and /health/ready, metrics at /metrics.
It is configured by environment variables, also read from a .env file; the main ones:

  PORT, HOST        where it listens (default 127.0.0.1:4000)
  DATABASE_URL      file:./data/petstore.db (SQLite, the default, created and seeded at first
                    start) or postgresql://user@host:5432/database
  AUTH_JWT_SECRET   the HS256 secret tokens are checked with (generated for development when unset)
  REDIS_URL         shared state for several replicas
  OTEL_EXPORTER_OTLP_ENDPOINT   where traces go (OTLP over HTTP; docs/tracing.md)
  LOG_LEVEL         fatal, error, warn, info (default), debug, trace or silent

Every variable, with its default, is in .env.example.`,
});

/** A configuration that cannot work (a bad variable, a database that is missing): one line. */
function exitOnConfigError(error: unknown): never {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}

loadDotEnv();
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  exitOnConfigError(error);
}

// Before the app is built: its parts add their tracing hooks only when tracing is on. Without an
// endpoint no OpenTelemetry module is even loaded.
const tracing = config.tracing
  ? await (await import('./tracing/sdk.js')).startTracing({
      classify: (error) => classifyError(error).error,
      warn: (message) => console.error(`tracing: ${message}`),
    })
  : undefined;

const app = await createApp(config).catch(exitOnConfigError);
const developmentToken = app.devSecret
  ? await mintDevelopmentToken(app.devSecret, 7 * 86400)
  : undefined;
if (developmentToken) {
  app.logger.warn('development mode: no AUTH_JWT_SECRET, using a generated secret kept in ./data/');
}

let stopping = false;
const server = serve(
  {
    fetch: async (request: Request, env: unknown) => {
      const response = await app.fetch(request, env);
      // A kept-alive connection would hold the shutdown until the client drops it.
      return stopping ? withConnectionClose(response) : response;
    },
    port: config.port,
    hostname: config.host,
    serverOptions: headersTimeoutOptions(config.limits.headersTimeoutMs),
  },
  (address) => {
    const url = `http://${browsableHost(config.host)}:${address.port}`;
    const addresses = {
      graphql: `${url}/graphql`,
      rest: `${url}/api`,
      restDocs: `${url}/api/docs`,
    };
    const persisted = config.persistedOperationsOnly;
    app.logger.info(
      { url, ...addresses, database: config.database.provider, persistedOperationsOnly: persisted },
      `serving GraphQL on ${addresses.graphql}, REST on ${addresses.rest}`,
    );
    // For the person at the console; the log line above carries the same addresses.
    process.stderr.write(
      `\nPet Store gateway on ${url} (${config.database.provider})\n` +
        `  GraphQL    ${addresses.graphql}\n` +
        `  GraphiQL   ${addresses.graphql} (open it in a browser)\n` +
        `  REST       ${addresses.rest}\n` +
        `  REST docs  ${addresses.restDocs} (Swagger UI; the document is ${addresses.rest}/openapi.json)\n` +
        (persisted
          ? `  Persisted  only the operations of ${persisted} run (PERSISTED_OPERATIONS_ONLY)\n\n`
          : '\n'),
    );
    if (developmentToken) {
      // Printed for the developer at the console, never logged: logs redact tokens.
      process.stderr.write(
        `All-scopes development token (7 days; \`npm run token -- <scopes>\` mints more):\n${developmentToken}\n` +
          "GraphiQL's Headers and Swagger UI's Authorize start with one; the page at / shows one too.\n\n",
      );
    }
  },
) as Server;
// A port in use or a HOST of another machine: one line saying what to do, not a stack trace.
const refuseToStart = (error: unknown) => {
  console.error(listenFailure(error, config.host, config.port));
  process.exit(1);
};
server.once('error', refuseToStart);
server.once('listening', () => server.off('error', refuseToStart));
// One address cannot take every descriptor (finished requests or not, HTTP or WebSocket)…
capConnectionsPerAddress(server, config.limits.connectionsPerClient);
// …provided the process may open enough of them for the caps to leave room for the others.
const openFiles = openFileWarning(config);
if (openFiles) app.logger.warn(openFiles);
// Requests the HTTP parser rejects get a response with the Error shape, not Node's empty one.
answerClientErrors(server);
// Subscriptions over WebSocket share the port and the path (/graphql) with HTTP.
app.serveWebSockets(server);

/** A host to put in a URL: the wildcard addresses are reached through localhost. */
function browsableHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** Stops accepting, lets in-flight requests finish (bounded), closes the database, exits 0. */
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  const closed = closeServer(server, config.shutdownTimeoutMs);
  app.logger.info(
    { signal, timeoutMs: config.shutdownTimeoutMs },
    'shutting down: no new connections; finishing the requests in flight',
  );
  // Open subscriptions would hold the shutdown until the deadline: they end now, cleanly.
  await app.endSubscriptions();
  if (!(await closed)) {
    app.logger.warn(
      { timeoutMs: config.shutdownTimeoutMs },
      'requests still in flight at the shutdown deadline were cut off',
    );
  }
  try {
    await app.close();
  } catch (error) {
    app.logger.error({ err: error }, 'closing the database failed');
    return exit(1);
  }
  // The spans still buffered are sent before the process ends.
  await tracing
    ?.shutdown()
    .catch((error) => app.logger.warn({ err: error }, 'the last spans could not be sent'));
  app.logger.info('stopped');
  exit(0);
}

/**
 * Exits once the log lines written so far are out: pino writes asynchronously, and the flush it
 * does at exit can overtake a write still under way, swapping the last lines.
 */
function exit(code: number) {
  app.logger.flush(() => process.exit(code));
  setTimeout(() => process.exit(code), 1000).unref();
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
