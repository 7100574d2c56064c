import type { Server, ServerResponse } from 'node:http';
import { Hono } from 'hono';
import { authenticate, refuseInvalidToken } from './auth/authenticate.js';
import { mintDevelopmentToken, resolveAuthSettings } from './auth/dev-secret.js';
import { createTokenVerifier, type TokenVerifier } from './auth/tokens.js';
import { responseCache } from './cache/http.js';
import { MemoryCacheStore } from './cache/memory-store.js';
import { RedisCacheStore } from './cache/redis-store.js';
import type { CacheStore } from './cache/store.js';
import { type Outbox, openOutbox } from './changes/outbox.js';
import type { Config } from './config.js';
import { cacheFenceRow } from './db/cache-fence.js';
import { type Database, openDatabase } from './db/client.js';
import { edgePurgeRow } from './db/edge-purge.js';
import { migrate } from './db/migrate.js';
import { seedSampleData } from './db/seed.js';
import { createSharedReads } from './db/shared-reads.js';
import type { ChangeFeed } from './domain/changes.js';
import { edgeHeaders } from './edge-cache/headers.js';
import { EdgePurger } from './edge-cache/purge.js';
import { clipText, DomainError, methodNotAllowed } from './errors/catalogue.js';
import { Subscriptions } from './graphql/kit/subscriptions.js';
import { createGraphQLEdge, type GraphQLEdge } from './graphql/yoga.js';
import { chain, type Link } from './http/chain.js';
import { clientAddress } from './http/client-address.js';
import { corsPolicy } from './http/cors.js';
import { docsRoutes } from './http/docs.js';
import type { AppEnv } from './http/env.js';
import { errorResponse } from './http/error-response.js';
import { graphiqlAssets } from './http/graphiql.js';
import { type DevelopmentToken, landingRoutes } from './http/landing.js';
import { setResponseHeaders } from './http/response-header.js';
import { createIdempotency } from './idempotency/keys.js';
import { bodyTooLargeMessage, limitBody } from './limits/body-limit.js';
import { databaseLimitMs, operationTimeLimit, timeLimit } from './limits/time-limit.js';
import { handOffEventStream } from './live/sse.js';
import { serveWebSockets, type WebSocketTransport } from './live/websocket.js';
import { createLogger, type Logger, terminalDestination } from './logger.js';
import { accessLog, nameClient } from './observability/access-log.js';
import { ClientNames } from './observability/client-name.js';
import { healthRoutes } from './observability/health.js';
import { httpMetrics } from './observability/http-metrics.js';
import { createMetrics, type Metrics } from './observability/metrics.js';
import { metricsRoutes } from './observability/metrics-route.js';
import { loadPersistedManifest } from './persisted/operations.js';
import { CostBudget, MemoryCostBucketStore } from './rate-limit/cost-budget.js';
import {
  clientKey,
  MemoryRateLimitStore,
  type RateLimits,
  RequestBudget,
  rateLimits,
} from './rate-limit/middleware.js';
import { RedisCostBucketStore, RedisRateLimitStore } from './rate-limit/redis-store.js';
import { connectRedis, type RedisConnection } from './redis.js';
import { createRestApi, REST_BASE_PATH, type RestApiOptions } from './rest/api.js';
import { tracingEnabled } from './tracing/hooks.js';
import { traceHttp } from './tracing/http.js';
import { countCachedAnswers } from './usage/cached-answers.js';
import { UsageRecorder } from './usage/recorder.js';
import { usageRoutes } from './usage/route.js';

export interface App {
  /** The one fetch handler: /graphql, /api and health. `env` carries the Node request, if any. */
  fetch(request: Request, env?: unknown): Promise<Response>;
  readonly config: Config;
  /** The HS256 secret in use when it was generated for development (see src/auth/dev-secret.ts). */
  readonly devSecret: string | undefined;
  readonly database: Database;
  readonly logger: Logger;
  /** Where committed writes are reported. */
  readonly changes: ChangeFeed;
  /** The outbox's delivery (what subscriptions read) and its retention. */
  readonly events: Pick<Outbox, 'delivery' | 'retention'>;
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
}

/** The database, migrated (and seeded with sample data when it is new and configured so). */
async function openStore(config: Config, logger: Logger): Promise<Database> {
  await migrate(config.database);
  const database = openDatabase(config.database, {
    transactionTimeoutMs: databaseLimitMs(config.limits.requestTimeoutMs),
  });
  // Connecting loads Prisma's query compiler (WebAssembly, about 26 MB that stay): during the
  // start, not at the first request (about 100 ms more) or at an idle process's first background
  // write, whose garbage would grow again the young generation V8 gave back once it idled.
  await database.prisma.$connect();
  if (config.seed && (await seedSampleData(database.prisma))) logger.info('loaded the sample data');
  return database;
}

/**
 * What replicas share through Redis when REDIS_URL is set, else what one process keeps; and the
 * change feed, which every replica reads from the database they share.
 */
interface SharedState {
  redis: RedisConnection | undefined;
  changes: ChangeFeed;
  cache: CacheStore | undefined;
  stopEvicting: () => void;
}

function sharedState(
  config: Config,
  logger: Logger,
  metrics: Metrics,
  database: Database,
  changes: ChangeFeed,
): SharedState {
  const redis = config.redisUrl
    ? connectRedis(config.redisUrl, {
        databaseUrl: config.database.url,
        logger,
        onFailure: () => metrics.redisFailures.inc(),
      })
    : undefined;
  const ttlMs = config.responseCacheTtlMs;
  const maxEntryBytes = config.responseCacheMaxEntryBytes;
  const cache =
    ttlMs <= 0
      ? undefined
      : redis
        ? new RedisCacheStore(
            redis,
            cacheFenceRow(database),
            { ttlMs, maxEntryBytes, evictChunk: config.responseCacheEvictChunk },
            metrics,
          )
        : new MemoryCacheStore({
            ttlMs,
            maxBytes: config.responseCacheMaxBytes,
            maxEntryBytes,
            metrics,
          });
  // Writes on either edge evict before they answer; other replicas' once the outbox delivers them.
  const stopEvicting = cache?.listen(changes) ?? (() => {});
  return { redis, changes, cache, stopEvicting };
}

/** With EDGE_PURGE_URL: the CDN's purges, driven by the outbox (src/edge-cache/purge.ts). */
function startPurges(
  config: Config,
  logger: Logger,
  metrics: Metrics,
  database: Database,
  outbox: Outbox,
): EdgePurger | undefined {
  const { purgeUrl } = config.edge;
  if (purgeUrl === undefined) return undefined;
  const purger = new EdgePurger({
    settings: { ...config.edge, purgeUrl },
    source: outbox.delivery,
    row: edgePurgeRow(database),
    logger,
    registry: metrics.registry,
  });
  purger.start();
  return purger;
}

/** The budgets that are on (a setting of 0 turns one off), shared through Redis when configured. */
function rateLimitsOf(config: Config, redis: RedisConnection | undefined): RateLimits {
  const clients = config.rateLimitMaxClients;
  const requests =
    config.rateLimitPerMinute > 0
      ? new RequestBudget(
          config.rateLimitPerMinute,
          redis ? new RedisRateLimitStore(redis, clients) : new MemoryRateLimitStore(clients),
        )
      : undefined;
  const cost =
    config.rateLimitCostPerMinute > 0
      ? new CostBudget(
          config.rateLimitCostPerMinute,
          redis ? new RedisCostBucketStore(redis, clients) : new MemoryCostBucketStore(clients),
        )
      : undefined;
  return { requests, cost };
}

interface RoutesOptions {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  database: Database;
  state: SharedState;
  graphql: GraphQLEdge;
  /** The REST façade's own parts; the routes add the policies. */
  rest: Omit<RestApiOptions, 'usage' | 'policies'>;
  verify: TokenVerifier;
  developmentToken: DevelopmentToken;
  limits: RateLimits;
  clientNames: ClientNames;
  usage: UsageRecorder;
  /** The CDN's purges, when EDGE_PURGE_URL is set: `/health/ready` says when they are behind. */
  purger: EdgePurger | undefined;
}

/** Every route and middleware, in the order a request meets them. */
function routes(options: RoutesOptions): Hono<AppEnv> {
  const { config, logger, metrics, database, state, graphql, verify, developmentToken } = options;
  const { limits, usage } = options;
  const app = new Hono<AppEnv>();
  // First: the server span (tracing on) holds everything the request does, its log lines too.
  if (tracingEnabled()) app.use(traceHttp(setResponseHeaders));
  // First, so that they see every request, including those of routes mounted later.
  app.use(accessLog(logger, options.clientNames, httpMetrics(metrics)));
  // Probes, metrics and static pages answer before the token check and the rate limit.
  app.route('/', healthRoutes(database, logger, state.redis, options.purger));
  app.route('/', metricsRoutes(metrics));
  app.route('/', docsRoutes(developmentToken));
  app.route('/', landingRoutes(developmentToken));
  app.route('/', graphiqlAssets);
  // One cross-origin policy for both edges; preflights are answered before the token check.
  const edges = ['/graphql', REST_BASE_PATH, `${REST_BASE_PATH}/*`];
  const cors = corsPolicy(config.corsOrigins);
  if (cors) for (const path of edges) app.use(path, cors);
  // What every request to an edge walks, as one chain per route (src/http/chain.ts: one link of
  // Hono's chain instead of one each). The caller is identified first (the budgets are per client),
  // but a bad token is refused only after the rate limit has counted it: a flood of them is
  // limited like any other traffic. Without a limit nothing counts it, and the token check refuses
  // it itself.
  const limited = limits.requests !== undefined || limits.cost !== undefined;
  const guard: Link<AppEnv>[] = [
    timeLimit(config.limits.requestTimeoutMs),
    authenticate(verify, { refuseAtOnce: !limited }),
    nameClient(options.clientNames),
    ...(limited ? [rateLimits({ ...limits, clientAddress }), refuseInvalidToken()] : []),
  ];
  // The response cache and the validators, last before either edge: a public read the cache holds
  // is answered there.
  const cache = responseCache({
    store: state.cache,
    metrics,
    edgeHeaders: edgeHeaders(config.edge),
  });
  // Each REST route's usage count and deprecation marks come before the policies, so that every
  // call counts, answered from the cache or refused, and a deprecated route's answers carry its
  // headers, whoever gives them.
  app.route(REST_BASE_PATH, createRestApi({ ...options.rest, usage, policies: [...guard, cache] }));
  const tooLarge = new DomainError(
    'PAYLOAD_TOO_LARGE',
    bodyTooLargeMessage(config.limits.bodyBytes),
  );
  app.on(
    ['GET', 'POST', 'OPTIONS'],
    '/graphql',
    chain(
      ...guard,
      limitBody(config.limits.bodyBytes, (c) => errorResponse(c, tooLarge)),
      // An answer from the cache runs no operation: it counts what its entry notes it used.
      ...(state.cache && usage.enabled ? [countCachedAnswers(usage)] : []),
      cache,
      (c) =>
        graphql.handle(asGet(c.req.raw), {
          requestId: c.get('requestId'),
          viewer: c.get('viewer'),
          client: clientKey(c.get('viewer'), clientAddress(c)),
          clientName: c.get('clientName'),
          usageNote: c.get('usageNote'),
          accessLog: c.get('accessLog'),
          deadline: c.get('deadline'),
          cacheable: c.get('cacheable'),
          costAccount: c.get('costAccount'),
          nodeResponse: (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing,
        }),
    ),
  );
  // Every other request: the operators' usage report, a refused method, a path with no route.
  app.use(chain(...guard));
  // The operators' usage report (scope admin:read), beside the metrics rather than under /api.
  app.route(
    '/',
    usageRoutes({ database, recorder: usage, retentionDays: config.usage.retentionDays, logger }),
  );
  // The method and the path are the client's: their messages are bounded like any other.
  const clip = (message: string) => clipText(message, config.limits.errorMessageBytes);
  app.all('/graphql', (c) =>
    errorResponse(
      c,
      methodNotAllowed(clip(`${c.req.method} is not allowed on /graphql`), 'GET, POST, OPTIONS'),
    ),
  );
  app.notFound((c) =>
    errorResponse(c, new DomainError('NOT_FOUND', clip(`No route ${c.req.method} ${c.req.path}`))),
  );
  return app;
}

/**
 * Hono answers HEAD with its GET route's headers; Yoga knows no HEAD, so it gets the GET (whose
 * answer Hono sends without the body), as a cache hit is.
 */
const asGet = (request: Request) =>
  request.method === 'HEAD' ? new Request(request.url, { headers: request.headers }) : request;

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
  const database = await openStore(config, logger);
  const subscriptions = new Subscriptions(config.limits.subscriptionsPerClient);
  const metrics = createMetrics(database, subscriptions);
  const outbox = await openOutbox(database, { ...config.events, logger });
  const state = sharedState(config, logger, metrics, database, outbox.feed);
  const purger = startPurges(config, logger, metrics, database, outbox);
  const clientNames = new ClientNames(config.clientNames);
  const usage = new UsageRecorder({ database, logger, metrics, ...config.usage });
  // Public reads by id, coalesced across the requests in flight on both edges.
  const shared = createSharedReads(database.prisma);
  const idempotency = createIdempotency({
    database,
    changes: state.changes,
    logger,
    ttlHours: config.idempotencyKeyTtlHours,
    maxRecordBytes: config.idempotencyRecordMaxBytes,
    // A request stops at its time limit: then a retry may run it anew.
    leaseMs: config.limits.requestTimeoutMs + 1000,
  });
  const persistedManifest = config.persistedOperationsOnly
    ? loadPersistedManifest(config.persistedOperationsOnly)
    : undefined;
  if (persistedManifest) {
    const { size } = persistedManifest;
    logger.info(
      { manifest: config.persistedOperationsOnly, operations: size },
      `persisted operations only: the ${size} operation${size === 1 ? '' : 's'} of the manifest run, nothing else`,
    );
  }
  const graphql = createGraphQLEdge({
    database,
    shared,
    changes: state.changes,
    logger,
    limits: config.limits,
    metrics,
    subscriptions,
    events: outbox.delivery,
    // The answers' tags: for the cache's eviction, and for a CDN's (EDGE_CACHE_TAGS).
    cache: state.cache !== undefined || config.edge.tags,
    developmentToken,
    persistedManifest,
    idempotency,
    usage,
  });
  const rest = { database, shared, changes: state.changes, config, logger, idempotency };
  const verify = createTokenVerifier(auth);
  const limits = rateLimitsOf(config, state.redis);
  const app = routes({
    ...{ config, logger, metrics, database, state, graphql, rest, verify },
    ...{ developmentToken, limits, clientNames, usage, purger },
  });

  let webSockets: WebSocketTransport | undefined;
  return {
    // An event stream's answer, its headers all set, is handed Node's response to write into.
    // Chained with `then`, not awaited in an async function: the await made every `pet(id)` cost
    // 1.16 M instructions instead of 0.57 M (callgrind), V8 migrating the maps of the promise
    // helpers' objects at each request.
    fetch: (request, env) => {
      const answer = app.fetch(request, env);
      return answer instanceof Promise
        ? answer.then((finished) => handOffEventStream(finished, env))
        : Promise.resolve(handOffEventStream(answer, env));
    },
    config,
    devSecret: auth.devSecret ? auth.jwtSecret : undefined,
    database,
    logger,
    changes: state.changes,
    events: outbox,
    serveWebSockets(server) {
      webSockets ??= serveWebSockets(server, {
        ...{ graphql, verify, limits, logger },
        maxPayload: config.limits.bodyBytes,
        socketsPerClient: config.limits.socketsPerClient,
        bufferBytes: config.limits.subscriberBufferBytes,
        clientNames,
        timeLimit: operationTimeLimit(config.limits.requestTimeoutMs),
      });
    },
    async endSubscriptions() {
      subscriptions.close();
      await webSockets?.close();
    },
    close: async () => {
      idempotency.stop();
      state.stopEvicting();
      // While the database is open: the lease goes at once, for another replica to take.
      await purger?.close();
      // What was counted since the last write, while the database is still open.
      await usage.close();
      await outbox.close();
      await state.redis?.close();
      await database.close();
    },
  };
}
