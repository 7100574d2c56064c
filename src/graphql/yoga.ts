import { getOperationAST } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { Limits } from '../config.js';
import type { Database } from '../db/client.js';
import { countCategories } from '../domain/categories.js';
import { type ChangeFeed, readOnly } from '../domain/changes.js';
import type { Viewer } from '../domain/context.js';
import { anonymous } from '../domain/context.js';
import type { AccessLogFields } from '../http/env.js';
import { renderGraphiQLPage } from '../http/graphiql.js';
import type { ResponseCache } from '../http/response-cache.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../observability/metrics.js';
import { createContext, type GraphQLContext } from './context.js';
import { createErrorMasker } from './errors.js';
import { batchLimit, costLimit, queryLimits } from './limits.js';
import { ListItemBudget } from './list-items.js';
import { createLoaders, createSharedReads, type SharedReads } from './loaders.js';
import { graphqlMetrics } from './metrics.js';
import { logOperationNames } from './operation-log.js';
import { type PersistedManifest, persistedOperations } from './persisted.js';
import { documentErrorCodes, requestShape } from './request-errors.js';
import { graphqlResponseCache } from './response-cache.js';
import { schema } from './schema/index.js';

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
  /** The response cache shared with REST; none when it is off. */
  cache?: ResponseCache;
  /** Only these operations run (PERSISTED_OPERATIONS_ONLY); else automatic persisted queries. */
  persistedManifest?: PersistedManifest;
}

export function createGraphQLHandler({
  database,
  changes,
  logger,
  limits,
  metrics,
  cache,
  persistedManifest,
}: YogaOptions) {
  const shared = createSharedReads(database.prisma);
  // One budget per HTTP request: the operations of a batch share it.
  const listItemBudgets = new WeakMap<Request, ListItemBudget>();
  const listItemsOf = (request: Request) => {
    let budget = listItemBudgets.get(request);
    if (!budget) {
      budget = new ListItemBudget(limits.graphqlListItems);
      listItemBudgets.set(request, budget);
    }
    return budget;
  };
  return createYoga<
    { requestId: string; viewer: Viewer; accessLog: AccessLogFields; signal: AbortSignal },
    GraphQLContext
  >({
    schema,
    graphqlEndpoint: '/graphql',
    cors: false, // the app's one policy for /graphql and /api (src/http/cors.ts)
    landingPage: false,
    graphiql: {
      title: 'Pet Store gateway · <a href="/api/docs">REST API docs</a>',
      defaultQuery: exampleQuery,
    },
    renderGraphiQL: renderGraphiQLPage,
    maskedErrors: { maskError: createErrorMasker(logger) },
    logging: {
      debug: (...args) => logger.debug(args),
      info: (...args) => logger.info(args),
      warn: (...args) => logger.warn(args),
      // Unexpected errors are logged once, with their path, by the error masker.
      error: (...args) => logger.debug(args),
    },
    context: ({ viewer, request }) =>
      createContext({ db: database.prisma, viewer, changes }, shared, listItemsOf(request)),
    fetchAPI: { Response: LateBoundResponse as unknown as typeof Response },
    // The app limits bodies before Yoga runs (src/http/body-limit.ts): Yoga's own limit would
    // stream every body through a counter.
    maxRequestBodySize: false,
    batching: { limit: limits.graphqlBatch },
    plugins: [
      // First: the other checks and the limits see the document a persisted operation stands for.
      persistedOperations({ manifest: persistedManifest }),
      requestShape,
      batchLimit(limits.graphqlBatch),
      queryLimits(limits),
      costLimit({
        schema,
        maxCost: limits.graphqlCost,
        maxTokens: limits.graphqlTokens,
        unpagedLists: {
          'Query.categories': () =>
            countCategories({ db: database.prisma, viewer: anonymous, changes: readOnly }),
        },
      }),
      ...(cache ? graphqlResponseCache({ schema, store: cache, metrics }) : []),
      executionSignal,
      uncachedReadsInMutations(shared),
      documentErrorCodes,
      logOperationNames(),
      graphqlMetrics(metrics),
    ],
  });
}
