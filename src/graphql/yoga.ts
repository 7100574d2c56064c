import { getOperationAST } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { DevelopmentToken } from '../auth/dev-secret.js';
import type { Limits } from '../config.js';
import type { Database } from '../db/client.js';
import { countCategories } from '../domain/categories.js';
import { type ChangeFeed, readOnly } from '../domain/changes.js';
import type { Viewer } from '../domain/context.js';
import { anonymous } from '../domain/context.js';
import type { SharedReads } from '../domain/shared-reads.js';
import type { AccessLogFields } from '../http/env.js';
import { renderGraphiQLPage } from '../http/graphiql.js';
import type { ResponseStore } from '../http/response-cache.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../observability/metrics.js';
import { compiledQueries } from './compiled-queries.js';
import { createContext, type GraphQLContext } from './context.js';
import { createErrorHandling } from './errors.js';
import { batchLimit, type CostCheck, costLimit, costRule, queryLimits } from './limits.js';
import { ListItemBudget } from './list-items.js';
import { createLoaders } from './loaders.js';
import { graphqlMetrics } from './metrics.js';
import { logOperationNames } from './operation-log.js';
import { type PersistedManifest, persistedOperations } from './persisted.js';
import { documentErrorCodes, requestShape } from './request-errors.js';
import { graphqlResponseCache } from './response-cache.js';
import { schema } from './schema/index.js';
import type { Subscriptions } from './subscriptions.js';

/**
 * A mutation changes what later fields read (the mutations of a document run one after another),
 * so its loaders batch but keep nothing between reads.
 */
function uncachedReadsInMutations(shared: SharedReads): Plugin<GraphQLContext> {
  return {
    onExecute({ args, extendContext }) {
      if (getOperationAST(args.document, args.operationName)?.operation !== 'mutation') return;
      extendContext({
        loaders: createLoaders(args.contextValue.domain, shared, { cache: false }),
      });
    },
  };
}

/** Hands the request's time-limit signal to execution: an abandoned request stops resolving. */
const executionSignal: Plugin<{ signal?: AbortSignal }> = {
  onExecute({ args }) {
    (args as { signal?: AbortSignal }).signal = args.contextValue.signal;
  },
  onSubscribe({ args }) {
    (args as { signal?: AbortSignal }).signal = args.contextValue.signal;
  },
};

const exampleQuery = `# Welcome to the Pet Store gateway. Press the run button to try this query.
# REST API docs: /api/docs
query AvailablePets {
  pets(first: 5, status: available) {
    totalCount
    edges {
      node { id name status category { name } inventory { quantity } }
    }
  }
}
`;

/**
 * Yoga's responses are built with the `Response` that is global when a request runs. Under
 * @hono/node-server that is its lightweight Response, whose string body it writes to the socket
 * directly; Yoga's default (the @whatwg-node ponyfill) would be drained through a stream reader.
 */
function LateBoundResponse(body?: BodyInit | null, init?: ResponseInit): Response {
  return new globalThis.Response(body, init);
}

export interface YogaOptions {
  database: Database;
  changes: ChangeFeed;
  logger: Logger;
  limits: Limits;
  metrics: Metrics;
  /** The app's open subscriptions (both transports): the per-client bound, and shutdown. */
  subscriptions: Subscriptions;
  /** The response cache shared with REST; none when it is off. */
  cache?: ResponseStore;
  /** Public reads by id, shared by the REST and GraphQL requests in flight. */
  shared: SharedReads;
  /** Only these operations run (PERSISTED_OPERATIONS_ONLY); else automatic persisted queries. */
  persistedManifest?: PersistedManifest;
  /** In development, what mints the token GraphiQL's Headers start with. */
  developmentToken?: DevelopmentToken;
}

/** What the app hands to each GraphQL operation: from the HTTP request, or a WebSocket's. */
export interface ServerContext {
  requestId: string;
  viewer: Viewer;
  /** Who the caller counts as for the subscription bound: token subject, else address. */
  client: string;
  accessLog?: AccessLogFields;
  /** The request's time limit; operations over a WebSocket have none. */
  signal?: AbortSignal;
}

export interface GraphQLEdge {
  readonly yoga: ReturnType<typeof createYogaServer>;
  /** The cost rule that HTTP requests meet before they run, for the WebSocket transport. */
  readonly checkCost: CostCheck;
  /** Persisted operations' rule for one operation, which HTTP requests meet while parsed. */
  readonly resolvePersisted: (params: unknown) => unknown;
  /** Gives an error the contract's code and status (the masker of HTTP responses). */
  readonly maskError: (error: unknown) => Error;
}

export function createGraphQLHandler(options: YogaOptions): GraphQLEdge {
  const { database, limits } = options;
  const checkCost = costRule({
    schema,
    maxCost: limits.graphqlCost,
    maxTokens: limits.graphqlTokens,
    unpagedLists: {
      'Query.categories': () =>
        countCategories({ db: database.prisma, viewer: anonymous, changes: readOnly }),
    },
  });
  const errors = createErrorHandling(options.logger);
  const persisted = persistedOperations({ manifest: options.persistedManifest });
  return {
    yoga: createYogaServer(options, checkCost, persisted.plugin, errors),
    checkCost,
    resolvePersisted: persisted.resolve,
    maskError: errors.maskError,
  };
}

function createYogaServer(
  {
    database,
    changes,
    logger,
    limits,
    metrics,
    subscriptions,
    cache,
    shared,
    developmentToken,
  }: YogaOptions,
  checkCost: CostCheck,
  persisted: Plugin,
  { maskError, logFailures }: ReturnType<typeof createErrorHandling>,
) {
  // One budget per HTTP request: the operations of a batch share it.
  const listItemBudgets = new WeakMap<Request, ListItemBudget>();
  const listItemsOf = (request: Request | undefined) => {
    // Over a WebSocket each operation has its own (and each event of a subscription).
    if (!request) return new ListItemBudget(limits.graphqlListItems);
    let budget = listItemBudgets.get(request);
    if (!budget) {
      budget = new ListItemBudget(limits.graphqlListItems);
      listItemBudgets.set(request, budget);
    }
    return budget;
  };
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    cors: false, // the app's one policy for /graphql and /api (src/http/cors.ts)
    landingPage: false,
    graphiql: async () => ({
      title: 'Pet Store gateway · <a href="/api/docs">REST API docs</a>',
      defaultQuery: exampleQuery,
      // Development only: the Headers tab starts with the all-scopes development token.
      ...(developmentToken
        ? { headers: JSON.stringify({ Authorization: `Bearer ${await developmentToken()}` }) }
        : {}),
    }),
    renderGraphiQL: renderGraphiQLPage,
    maskedErrors: { maskError },
    logging: {
      debug: (...args) => logger.debug(args),
      info: (...args) => logger.info(args),
      warn: (...args) => logger.warn(args),
      // Unexpected errors are logged once, with their path, by the error masker.
      error: (...args) => logger.debug(args),
    },
    context: ({ viewer, client, request }) =>
      createContext(
        { db: database.prisma, viewer, changes },
        shared,
        listItemsOf(request as Request | undefined),
        { client, subscriptions },
      ),
    fetchAPI: { Response: LateBoundResponse as unknown as typeof Response },
    // The app limits bodies before Yoga runs (src/http/body-limit.ts): Yoga's own limit would
    // stream every body through a counter.
    maxRequestBodySize: false,
    batching: { limit: limits.graphqlBatch },
    plugins: [
      // First: the other checks and the limits see the document a persisted operation stands for.
      persisted,
      requestShape,
      batchLimit(limits.graphqlBatch),
      queryLimits(limits),
      costLimit(checkCost),
      // Before the cache, which wraps the execute function it is handed.
      compiledQueries(schema),
      ...(cache ? graphqlResponseCache({ schema, store: cache, metrics }) : []),
      executionSignal,
      uncachedReadsInMutations(shared),
      documentErrorCodes,
      logOperationNames(),
      graphqlMetrics(metrics),
      logFailures,
    ],
  });
}
