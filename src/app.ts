import type { IncomingMessage, Server } from 'node:http';
import { type Context, Hono } from 'hono';
import {
  type DevelopmentToken,
  mintDevelopmentToken,
  resolveAuthSettings,
} from './auth/dev-secret.js';
import { createTokenVerifier } from './auth/tokens.js';
import type { Config } from './config.js';
import { type Database, openDatabase } from './db/client.js';
import { migrate } from './db/migrate.js';
import { seedSampleData } from './db/seed.js';
import { type ChangeFeed, createMemoryChangeFeed } from './domain/changes.js';
import { DomainError } from './domain/errors.js';
import { createSharedReads } from './domain/shared-reads.js';
import { loadPersistedManifest } from './graphql/persisted.js';
import { Subscriptions } from './graphql/subscriptions.js';
import { serveWebSockets, type WebSocketTransport } from './graphql/websocket.js';
import { createGraphQLHandler } from './graphql/yoga.js';
import { authenticate } from './http/authenticate.js';
import { bodyTooLargeMessage, limitBody } from './http/body-limit.js';
import { corsPolicy } from './http/cors.js';
import { docsRoutes } from './http/docs.js';
import type { AppEnv } from './http/env.js';
import { errorResponse } from './http/error-response.js';
import { graphiqlAssets } from './http/graphiql.js';
import { landingRoutes } from './http/landing.js';
import {
  clientKey,
  MemoryRateLimitStore,
  type RateLimitStore,
  rateLimit,
} from './http/rate-limit.js';
import { ResponseCache } from './http/response-cache.js';
import { timeLimit } from './http/time-limit.js';
import { httpValidators } from './http/validators.js';
import { createLogger, type Logger, terminalDestination } from './logger.js';
import { accessLog } from './observability/access-log.js';
import { healthRoutes } from './observability/health.js';
import { httpMetrics } from './observability/http-metrics.js';
import { createMetrics } from './observability/metrics.js';
import { metricsRoutes } from './observability/metrics-route.js';
import { createRedisChangeFeed } from './redis/change-feed.js';
import { connectRedis } from './redis/connection.js';
import { RedisRateLimitStore } from './redis/rate-limit-store.js';
import { RedisResponseCache } from './redis/response-cache.js';
import { createRestApi, REST_BASE_PATH } from './rest/api.js';
import { deprecatedRoutes } from './rest/deprecation.js';
import { allRoutes } from './rest/document.js';

export interface App {
  /** The one fetch handler: /graphql, /api and health. `env` carries the Node request, if any. */
  fetch(request: Request, env?: unknown): Promise<Response>;
  readonly config: Config;
  /** The HS256 secret in use when it was generated for development (see src/auth/dev-secret.ts). */
  readonly devSecret: string | undefined;
  readonly database: Database;
  readonly logger: Logger;
  /** Where committed writes are reported (shared through Redis when configured). */
  readonly changes: ChangeFeed;
  /** Serves GraphQL subscriptions over WebSocket on `server`'s /graphql (the HTTP ones need nothing). */
  serveWebSockets(server: Server): void;
  /**
   * Ends every open subscription and refuses new ones: SSE streams complete, WebSockets close with
   * 1001. Part of a shutdown, so that open streams do not hold it up.
   */
  endSubscriptions(): Promise<void>;
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
  const logger =
    options.logger ??
    createLogger(config.logLevel, config.production ? undefined : terminalDestination());
  // First: in production a missing secret must stop the start before anything is touched.
  const auth = resolveAuthSettings(config.auth, config.production);
  // Development only (a generated secret): the pages offer an all-scopes token.
  const developmentToken: DevelopmentToken = auth.devSecret
    ? () => mintDevelopmentToken(auth.jwtSecret as string)
    : undefined;
  await migrate(config.database);
  const database = openDatabase(config.database, {
    transactionTimeoutMs: config.limits.requestTimeoutMs,
  });
  if (config.seed && (await seedSampleData(database.prisma))) logger.info('loaded the sample data');

  const subscriptions = new Subscriptions(config.limits.subscriptionsPerClient);
  const metrics = createMetrics(database, subscriptions);
  const redis = config.redisUrl
    ? connectRedis(config.redisUrl, {
        databaseUrl: config.database.url,
        logger,
        onFailure: () => metrics.redisFailures.inc(),
      })
    : undefined;
  const changes =
    options.changes ?? (redis ? createRedisChangeFeed(redis) : createMemoryChangeFeed());
  // One cache for both edges, evicted by the change feed (so by writes on either edge).
  // In Redis when replicas share it: a write then evicts for every replica before it answers.
  const ttlMs = config.responseCacheTtlMs;
  const cache =
    ttlMs > 0
      ? redis
        ? new RedisResponseCache(redis, ttlMs, metrics)
        : new ResponseCache({ ttlMs, metrics })
      : undefined;
  const stopEvicting = cache?.listen(changes);
  // Public reads by id, coalesced across the requests in flight on both edges.
  const shared = createSharedReads(database.prisma);
  const graphql = createGraphQLHandler({
    database,
    shared,
    changes,
    logger,
    limits: config.limits,
    metrics,
    subscriptions,
    cache,
    developmentToken,
    persistedManifest: config.persistedOperationsOnly
      ? loadPersistedManifest(config.persistedOperationsOnly)
      : undefined,
  });
  const verify = createTokenVerifier(auth);
  let webSockets: WebSocketTransport | undefined;
  const app = new Hono<AppEnv>();
  const tooLarge = new DomainError(
    'PAYLOAD_TOO_LARGE',
    bodyTooLargeMessage(config.limits.bodyBytes),
  );
  // First, so that they see every request, including those of routes mounted later.
  app.use(accessLog(logger), httpMetrics(metrics));
  // Probes, metrics and static pages answer before the token check and the rate limit.
  app.route('/', healthRoutes(database, logger, redis));
  app.route('/', metricsRoutes(metrics));
  app.route('/', docsRoutes(developmentToken));
  app.route('/', landingRoutes(developmentToken));
  app.route('/', graphiqlAssets);
  // One cross-origin policy for both edges; preflights are answered before the token check.
  for (const path of ['/graphql', REST_BASE_PATH, `${REST_BASE_PATH}/*`]) {
    app.use(path, corsPolicy(config.corsOrigins));
  }
  // Before the token check and the rate limit, so that their answers carry the headers too.
  app.route(REST_BASE_PATH, deprecatedRoutes(allRoutes, config));
  app.use(timeLimit(config.limits.requestTimeoutMs));
  app.use(authenticate(verify));
  if (config.rateLimitPerMinute > 0) {
    app.use(
      rateLimit(
        config.rateLimitPerMinute,
        options.rateLimitStore ??
          (redis ? new RedisRateLimitStore(redis) : new MemoryRateLimitStore()),
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
    graphql.yoga.fetch(c.req.raw, {
      requestId: c.get('requestId'),
      viewer: c.get('viewer'),
      client: clientKey(c.get('viewer'), clientAddress(c)),
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
  app.route(
    REST_BASE_PATH,
    createRestApi({ database, shared, changes, config, logger, metrics, cache }),
  );
  app.notFound((c) =>
    errorResponse(c, new DomainError('NOT_FOUND', `No route ${c.req.method} ${c.req.path}`)),
  );

  return {
    fetch: async (request, env) => app.fetch(request, env),
    config,
    devSecret: auth.devSecret ? auth.jwtSecret : undefined,
    database,
    logger,
    serveWebSockets(server) {
      webSockets ??= serveWebSockets(server, {
        graphql,
        verify,
        maxPayload: config.limits.bodyBytes,
        logger,
      });
    },
    async endSubscriptions() {
      subscriptions.close();
      await webSockets?.close();
    },
    changes,
    close: async () => {
      stopEvicting?.();
      await redis?.close();
      await database.close();
    },
  };
}
