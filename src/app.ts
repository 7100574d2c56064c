import type { IncomingMessage } from 'node:http';
import { type Context, Hono } from 'hono';
import { resolveAuthSettings } from './auth/dev-secret.js';
import { createTokenVerifier } from './auth/tokens.js';
import type { Config } from './config.js';
import { type Database, openDatabase } from './db/client.js';
import { migrate } from './db/migrate.js';
import { seedSampleData } from './db/seed.js';
import { type ChangeFeed, createMemoryChangeFeed } from './domain/changes.js';
import { DomainError } from './domain/errors.js';
import { loadPersistedManifest } from './graphql/persisted.js';
import { createGraphQLHandler } from './graphql/yoga.js';
import { authenticate } from './http/authenticate.js';
import { bodyTooLargeMessage, limitBody } from './http/body-limit.js';
import { corsPolicy } from './http/cors.js';
import { docsRoutes } from './http/docs.js';
import type { AppEnv } from './http/env.js';
import { errorResponse } from './http/error-response.js';
import { graphiqlAssets } from './http/graphiql.js';
import { MemoryRateLimitStore, type RateLimitStore, rateLimit } from './http/rate-limit.js';
import { ResponseCache } from './http/response-cache.js';
import { timeLimit } from './http/time-limit.js';
import { httpValidators } from './http/validators.js';
import { createLogger, type Logger } from './logger.js';
import { accessLog } from './observability/access-log.js';
import { healthRoutes } from './observability/health.js';
import { httpMetrics } from './observability/http-metrics.js';
import { createMetrics } from './observability/metrics.js';
import { metricsRoutes } from './observability/metrics-route.js';
import { createRestApi, REST_BASE_PATH } from './rest/api.js';

export interface App {
  /** The one fetch handler: /graphql, /api and health. `env` carries the Node request, if any. */
  fetch(request: Request, env?: unknown): Promise<Response>;
  readonly config: Config;
  /** The HS256 secret in use when it was generated for development (see src/auth/dev-secret.ts). */
  readonly devSecret: string | undefined;
  readonly database: Database;
  readonly logger: Logger;
  close(): Promise<void>;
}

export interface AppOptions {
  logger?: Logger;
  /** Where rate-limit counts live; in memory by default. */
  rateLimitStore?: RateLimitStore;
  /** Where committed writes are reported (cache, subscriptions); in memory by default. */
  changes?: ChangeFeed;
}

/** The peer address of a request served by @hono/node-server; 'unknown' without a socket. */
function clientAddress(c: Context): string {
  return (
    (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket.remoteAddress ??
    'unknown'
  );
}

/** Opens and migrates the database (seeding an empty one when configured) and builds the handler. */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.logLevel);
  // First: in production a missing secret must stop the start before anything is touched.
  const auth = resolveAuthSettings(config.auth, config.production);
  await migrate(config.database);
  const database = openDatabase(config.database, {
    transactionTimeoutMs: config.limits.requestTimeoutMs,
  });
  if (config.seed && (await seedSampleData(database.prisma))) logger.info('loaded the sample data');

  const metrics = createMetrics(database);
  const changes = options.changes ?? createMemoryChangeFeed();
  // One cache for both edges, evicted by the change feed (so by writes on either edge).
  const cache =
    config.responseCacheTtlMs > 0
      ? new ResponseCache({ ttlMs: config.responseCacheTtlMs, metrics })
      : undefined;
  const stopEvicting = cache?.listen(changes);
  const graphql = createGraphQLHandler({
    database,
    changes,
    logger,
    limits: config.limits,
    metrics,
    cache,
    persistedManifest: config.persistedOperationsOnly
      ? loadPersistedManifest(config.persistedOperationsOnly)
      : undefined,
  });
  const app = new Hono<AppEnv>();
  const tooLarge = new DomainError(
    'PAYLOAD_TOO_LARGE',
    bodyTooLargeMessage(config.limits.bodyBytes),
  );
  // First, so that they see every request, including those of routes mounted later.
  app.use(accessLog(logger), httpMetrics(metrics));
  // Probes, metrics and static pages answer before the token check and the rate limit.
  app.route('/', healthRoutes(database, logger));
  app.route('/', metricsRoutes(metrics));
  app.route('/', docsRoutes);
  app.route('/', graphiqlAssets);
  // One cross-origin policy for both edges; preflights are answered before the token check.
  for (const path of ['/graphql', REST_BASE_PATH, `${REST_BASE_PATH}/*`]) {
    app.use(path, corsPolicy(config.corsOrigins));
  }
  app.use(timeLimit(config.limits.requestTimeoutMs));
  app.use(authenticate(createTokenVerifier(auth)));
  if (config.rateLimitPerMinute > 0) {
    app.use(
      rateLimit(
        config.rateLimitPerMinute,
        options.rateLimitStore ?? new MemoryRateLimitStore(),
        clientAddress,
      ),
    );
  }
  // ETag, 304 and Cache-Control on GET answers of both edges.
  app.use('/graphql', httpValidators());
  app.use(`${REST_BASE_PATH}/*`, httpValidators());
  app.use(
    '/graphql',
    limitBody(config.limits.bodyBytes, (c) => errorResponse(c, tooLarge)),
  );
  app.on(['GET', 'POST', 'OPTIONS'], '/graphql', (c) =>
    graphql.fetch(c.req.raw, {
      requestId: c.get('requestId'),
      viewer: c.get('viewer'),
      accessLog: c.get('accessLog'),
      signal: c.get('signal'),
    }),
  );
  app.all('/graphql', (c) =>
    errorResponse(
      c,
      new DomainError('METHOD_NOT_ALLOWED', `${c.req.method} is not allowed on /graphql`),
      { allow: 'GET, POST, OPTIONS' },
    ),
  );
  app.route(REST_BASE_PATH, createRestApi({ database, changes, config, logger, metrics, cache }));
  app.notFound((c) =>
    errorResponse(c, new DomainError('NOT_FOUND', `No route ${c.req.method} ${c.req.path}`)),
  );

  return {
    fetch: async (request, env) => app.fetch(request, env),
    config,
    devSecret: auth.devSecret ? auth.jwtSecret : undefined,
    database,
    logger,
    close: () => {
      stopEvicting?.();
      return database.close();
    },
  };
}
