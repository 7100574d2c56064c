import { GraphQLError } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { Limits } from '../config.js';
import { createContext, type GraphQLContext } from '../context.js';
import type { Database } from '../db/client.js';
import type { Viewer } from '../domain/context.js';
import { renderGraphiQLPage } from '../http/graphiql.js';
import type { Logger } from '../logger.js';
import type { AccessLogFields } from '../observability/access-log.js';
import type { Metrics } from '../observability/metrics.js';
import { schema } from '../schema/index.js';
import { createErrorMasker, requestError } from './errors.js';
import { batchLimit, queryLimits } from './limits.js';
import { graphqlMetrics } from './metrics.js';
import { logOperationNames } from './operation-log.js';

/** Adds the contract's codes to GraphQL's own parse and validation errors. */
const requestErrorCodes: Plugin = {
  onParse:
    () =>
    ({ result, replaceParseResult }) => {
      if (result instanceof GraphQLError)
        replaceParseResult(requestError(result, 'GRAPHQL_PARSE_FAILED'));
    },
  onValidate:
    () =>
    ({ result, setResult }) => {
      if (result.length > 0)
        setResult(result.map((error) => requestError(error, 'GRAPHQL_VALIDATION_FAILED')));
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
  logger: Logger;
  limits: Limits;
  metrics: Metrics;
}

export function createGraphQLHandler({ database, logger, limits, metrics }: YogaOptions) {
  return createYoga<
    { requestId: string; viewer: Viewer; accessLog: AccessLogFields },
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
    context: ({ requestId, viewer }) => createContext(database, requestId, viewer),
    fetchAPI: { Response: LateBoundResponse as unknown as typeof Response },
    // The app limits bodies before Yoga runs (src/http/body-limit.ts): Yoga's own limit would
    // stream every body through a counter.
    maxRequestBodySize: false,
    batching: { limit: limits.graphqlBatch },
    plugins: [
      batchLimit(limits.graphqlBatch),
      queryLimits(limits),
      requestErrorCodes,
      logOperationNames(),
      graphqlMetrics(metrics),
    ],
  });
}
