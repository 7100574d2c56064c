import type { ServerResponse } from 'node:http';
import type { ExecutionResult, GraphQLError } from 'graphql';
import {
  composeInstrumentation,
  createYoga,
  type GraphQLParams,
  getInstrumented,
  isAsyncIterable,
  type Plugin,
} from 'graphql-yoga';
import { cacheTagsPlugin, schemaNotingEntities } from '../cache/graphql.js';
import { introspectionAnswers } from '../cache/introspection-answers.js';
import { countCategories } from '../categories/rules.js';
import type { EventDelivery } from '../changes/delivery.js';
import type { Limits } from '../config.js';
import { demandControl } from '../cost/demand-control.js';
import { batchRules, costLimit, costRule } from '../cost/rule.js';
import { unpagedLists } from '../cost/unpaged-lists.js';
import type { Database } from '../db/client.js';
import { createSharedReads, type SharedReads } from '../db/shared-reads.js';
import { type ChangeFeed, readOnly } from '../domain/changes.js';
import type { Viewer } from '../domain/context.js';
import { anonymous } from '../domain/context.js';
import { DomainError } from '../errors/catalogue.js';
import type { Deadline } from '../http/deadline.js';
import type {
  AccessLogFields,
  Cacheable,
  ClientName,
  CostAccount,
  UsageNote,
} from '../http/env.js';
import { renderGraphiQLPage } from '../http/graphiql.js';
import type { DevelopmentToken } from '../http/landing.js';
import { idempotentMutations } from '../idempotency/graphql.js';
import type { Idempotency } from '../idempotency/keys.js';
import type { Streamed } from '../incremental/format.js';
import { incrementalDelivery, inFormat } from '../incremental/plugin.js';
import { withIncrementalRules } from '../incremental/rules.js';
import { boundedErrors, boundedValidation, boundResults } from '../limits/bounded-errors.js';
import { queryLimits } from '../limits/query-limits.js';
import { eventCursors } from '../live/event-cursors.js';
import { FanOut } from '../live/fan-out.js';
import { serverSentEvents } from '../live/sse.js';
import type { GraphQLResult } from '../live/websocket.js';
import type { Logger } from '../logger.js';
import { graphqlMetrics } from '../observability/graphql-metrics.js';
import type { Metrics } from '../observability/metrics.js';
import { logOperationNames } from '../observability/operation-log.js';
import { graphiqlOptions } from '../persisted/graphiql-options.js';
import { type PersistedManifest, persistedOperations } from '../persisted/operations.js';
import { adapterResponse } from '../runtime/adapter-response.js';
import { graphqlTracing } from '../tracing/graphql.js';
import { tracingEnabled } from '../tracing/hooks.js';
import { usageRecording } from '../usage/graphql.js';
import type { UsageRecorder } from '../usage/recorder.js';
import { stabilityWarnings } from '../warnings/graphql.js';
import { compiledQueries } from './compiled-queries.js';
import { createContext } from './context.js';
import { createDocumentCache, documentRules } from './documents.js';
import { createErrorHandling } from './errors.js';
import type { GraphQLContext } from './kit/context.js';
import { ListItemBudget } from './kit/list-items.js';
import type { Loaders } from './kit/loaders.js';
import type { Subscriptions } from './kit/subscriptions.js';
import { createLoaders } from './loaders.js';
import { mutationsYieldingTurns } from './mutation-turns.js';
import { planOf } from './plan/index.js';
import { operationOf } from './plan/operation.js';
import { documentErrorCodes, requestShape } from './request-errors.js';
import { schema as baseSchema } from './schema/index.js';

/**
 * What depends on the kind of operation, decided in one hook:
 * - the WebSocket carries queries and subscriptions, not mutations: a mutation belongs to HTTP,
 *   where an `Idempotency-Key` makes its retry safe (a WebSocket client that reconnects may send
 *   an operation again, and a write must not happen twice unasked);
 * - a mutation gets the request's time-limit signal, so that an abandoned request stops resolving
 *   (a query runs compiled, which watches no signal: the cost limit bounds it);
 * - a mutation changes what later fields read (the mutations of a document run one after
 *   another), so its loaders batch but keep nothing between reads.
 * Subscriptions do not execute here (Yoga's subscribe phase).
 */
function byOperationKind(
  shared: SharedReads,
): Plugin<GraphQLContext & { deadline?: Deadline; transport?: string; executes?: 'query' }> {
  return {
    onExecute({ args }) {
      const type = operationOf(args.document, args.operationName)?.operation ?? 'query';
      const { contextValue } = args;
      if (type !== 'mutation') {
        if (contextValue.transport === 'websocket') contextValue.executes = 'query';
        return;
      }
      if (contextValue.transport === 'websocket')
        throw new DomainError(
          'METHOD_NOT_ALLOWED',
          'The WebSocket carries queries and subscriptions; send a mutation by POST to /graphql',
        );
      if (contextValue.deadline)
        (args as { signal?: AbortSignal }).signal = contextValue.deadline.signal;
      // Written in place, not through `extendContext` (an `Object.assign`; see createContext).
      (contextValue as { loaders: Loaders }).loaders = createLoaders(contextValue.domain, shared, {
        cache: false,
      });
    },
  };
}

/** Where the app's values for an HTTP request wait for its first hook. */
const serverContexts = new WeakMap<Request, ServerContext>();

/**
 * Puts what the app hands to an HTTP request (`ServerContext`, waiting on the request) on the server
 * context Yoga made for it, in the first hook of all. Handed to `handleRequest` instead, it would
 * become the prototype of that server context (Yoga's adapter makes it with `Object.create`): a
 * new prototype at every request gives the context, and every object built on it, hidden classes
 * of their own, so that every property read on them in Yoga, envelop and the plugins misses its
 * inline cache (a fifth of a `pet(id)`'s CPU; bench/rounds.md in git history, ninth round). Without one, the
 * server context is Yoga's plain `{ waitUntil }`, and the values go on it in the same order at
 * every request.
 */
function serverContextOf(listItems: number): Plugin<object, ServerContext> {
  return {
    onRequestParse({ request, serverContext }) {
      // A copy by key: at most twelve properties (an HTTP request hands nine), or V8 makes the
      // context a dictionary (see createContext).
      Object.assign(serverContext, serverContexts.get(request));
      // One budget per HTTP request: the operations of a batch share it (their contexts are made
      // from this one).
      serverContext.listItemBudget = new ListItemBudget(listItems);
    },
  };
}

/**
 * Puts what resolvers share (`createContext`) on each operation's context, in place: Yoga's
 * `context` option would hand what it returns to envelop, which copies it over with
 * `Object.assign` (see createContext for why that is slow).
 */
function operationContext(
  build: (context: ServerContext & { request?: Request }) => void,
): Plugin<ServerContext> {
  return {
    onContextBuilding({ context }) {
      build(context as ServerContext & { request?: Request });
    },
  };
}

export interface GraphQLEdgeOptions {
  database: Database;
  changes: ChangeFeed;
  logger: Logger;
  limits: Limits;
  metrics: Metrics;
  /** The app's open subscriptions (both transports): the per-client bound, and shutdown. */
  subscriptions: Subscriptions;
  /** The outbox's delivery, which subscriptions read. */
  events: EventDelivery;
  /**
   * Whether answers say what they hold (src/cache/graphql.ts): for the response cache, or for the
   * edge headers of a CDN.
   */
  cache: boolean;
  /** Public reads by id, shared by the REST and GraphQL requests in flight. */
  shared: SharedReads;
  /** Only these operations run (PERSISTED_OPERATIONS_ONLY); else automatic persisted queries. */
  persistedManifest?: PersistedManifest | undefined;
  /** In development, what mints the token GraphiQL's Headers start with. */
  developmentToken?: DevelopmentToken;
  /** Idempotency keys of single mutations sent by POST (src/idempotency/graphql.ts). */
  idempotency: Idempotency;
  /** Counts the schema coordinates each client uses (src/usage/). */
  usage: UsageRecorder;
}

/** What the app hands to each GraphQL operation: from the HTTP request, or a WebSocket's. */
export interface ServerContext {
  requestId: string;
  viewer: Viewer;
  /** Who the caller counts as for the subscription bound: token subject, else address. */
  client: string;
  /** The client the request names in its headers (bounded); none: `unknown`. */
  clientName?: ClientName;
  /** Where the usage counting notes what the answer used, for the response cache to keep. */
  usageNote?: UsageNote | undefined;
  accessLog?: AccessLogFields;
  /** The request's time limit (an operation over a WebSocket has its own). */
  deadline?: Deadline;
  /** Set on a public read the response cache may keep: what the answer holds (AppEnv). */
  cacheable?: Cacheable | undefined;
  /** `websocket` for an operation sent over a WebSocket (queries and subscriptions). */
  transport?: 'websocket';
  /** How an operation over a WebSocket takes a streamed answer (an HTTP request's `Accept` says). */
  streamed?: Streamed;
  /** Set over a WebSocket when a query executes (not a subscription): its log lines say. */
  executes?: 'query';
  /** The caller's GraphQL cost budget, while it is on (src/cost/demand-control.ts). */
  costAccount?: CostAccount | undefined;
  /** The list items an HTTP request may still resolve (set by the edge, not the app). */
  listItemBudget?: ListItemBudget;
  /** Node's response of an HTTP request, where the server is Node's: SSE writes into it. */
  nodeResponse?: ServerResponse | undefined;
}

export interface GraphQLEdge {
  readonly yoga: ReturnType<typeof createYogaServer>['yoga'];
  /** Answers one HTTP request on /graphql. */
  handle(request: Request, context: ServerContext): Promise<Response>;
  /**
   * Runs one operation through the same pipeline as an HTTP request's (persisted operations,
   * limits, cost, context, execution, error masking): what the WebSocket transport calls.
   */
  run(params: GraphQLParams, context: ServerContext): Promise<GraphQLResult>;
  /** An error as the edge sends it (contract code and status), for a transport's own refusals. */
  errorOf(error: unknown): GraphQLError;
  /** The subscriptions' fan-out (src/live/fan-out.ts), which both live transports write through. */
  readonly fanOut: FanOut;
}

/** The plugins' `operation` instrumentation as `run` calls it: for an operation with no request. */
type OperationInstrumentation = (
  payload: { context: ServerContext; request: undefined },
  wrapped: () => Promise<void> | void,
) => Promise<void> | void;

export function createGraphQLEdge(options: GraphQLEdgeOptions): GraphQLEdge {
  const errors = createErrorHandling(options.logger, options.limits);
  const fanOut = new FanOut({
    events: options.events,
    maskError: (error) => errors.maskError(error) as GraphQLError,
    countExecution: () => options.metrics.subscriptionExecutions.inc(),
    countGroups: (groups) => options.metrics.subscriptionGroups.set(groups),
    logger: options.logger,
  });
  const { yoga, operation } = createYogaServer(options, errors, fanOut);
  const errorOf = (error: unknown) => errors.maskError(error) as GraphQLError;
  // Read once: the server adapter is a Proxy whose every property read binds a new function.
  const { handleRequest, getResultForParams } = yoga;
  return {
    yoga,
    errorOf,
    fanOut,
    // Not `yoga.fetch`: it makes every request's abort signal, only to drop the answer of a
    // client gone before it was ready (the HTTP adapter drops it anyway). The context waits on
    // the request for the first hook (`serverContextOf`).
    handle: async (request, context) => {
      serverContexts.set(request, context);
      // No server context: Yoga's adapter then makes a plain one.
      const response = await handleRequest(request, undefined as never);
      // An event stream's request lives as long as its connection: its values need not.
      serverContexts.delete(request);
      return response;
    },
    async run(params, context) {
      // Yoga wraps each operation of an HTTP request in the plugins' `operation` instrumentation
      // (the operation's span) in its `handle`; an operation without a request gets the same here.
      const operate = getInstrumented({ context, request: undefined }).asyncFn(
        operation,
        getResultForParams,
      );
      try {
        // No request: the operation has no HTTP request of its own (Yoga's GET checks skip it).
        const result = await operate({ params, request: undefined as never }, context);
        // No HTTP response to bound its errors on the way out (`boundedErrors`): bounded here.
        if (result && !isAsyncIterable(result))
          return boundResults([result], options.limits)[0] as ExecutionResult;
        // A query answered in parts, in the format its client asked for (an HTTP answer's is
        // written so in `incrementalDelivery`, a hook of HTTP answers only).
        if (result) return inFormat(context, result, context.deadline, errors.maskError);
        throw new Error('the operation gave no result');
      } catch (error) {
        // Refused before Yoga's own error handling (a persisted operation, in onParams).
        return { errors: [errorOf(error)] };
      }
    },
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
    events,
    cache,
    shared,
    persistedManifest,
    developmentToken,
    idempotency,
    usage,
  }: GraphQLEdgeOptions,
  { maskError, logFailures }: ReturnType<typeof createErrorHandling>,
  fanOut: FanOut,
) {
  const yielding = mutationsYieldingTurns(baseSchema);
  const schema = cache ? schemaNotingEntities(yielding) : yielding;
  const documents = createDocumentCache(limits.graphqlTokens, limits.documentCacheBytes);
  const rule = costRule({ schema, maxCost: limits.graphqlCost });
  const persisted = persistedOperations({
    manifest: persistedManifest,
    maxBytes: limits.persistedQueriesBytes,
  });
  const reader = {
    db: database.prisma,
    sql: database,
    dialect: database.dialect,
    viewer: anonymous,
    changes: readOnly,
  };
  const lists = unpagedLists({
    schema,
    counters: { 'Query.categories': () => countCategories(reader) },
    parse: documents.parse,
  });
  const plugins = [
    // First: every later hook reads the app's values on the server context.
    serverContextOf(limits.graphqlListItems),
    operationContext((context) =>
      createContext(
        {
          db: database.prisma,
          sql: database,
          dialect: database.dialect,
          viewer: context.viewer,
          changes,
        },
        shared,
        // Over a WebSocket each operation has its own (and each event of a subscription).
        context.listItemBudget ?? new ListItemBudget(limits.graphqlListItems),
        { client: context.client, subscriptions },
        {
          events,
          request: context.request as Request | undefined,
          transportEndsAtExpiry: context.transport === 'websocket',
        },
        context,
      ),
    ),
    // Before tracing, which wraps the subscribe function it sets.
    fanOut.plugin(),
    // Outermost: the operation's span covers every phase and every other plugin's work.
    ...(tracingEnabled() ? [graphqlTracing()] : []),
    // First: the other checks and the limits see the document a persisted operation stands for.
    persisted.plugin,
    requestShape,
    batchRules({
      limit: limits.graphqlBatch,
      rule,
      documentsOf: (batch) =>
        persisted
          .documentsOf(batch)
          .map((text) => (text === undefined ? undefined : documents.parse(text))),
      sizesFor: lists.sizesFor,
    }),
    lists.plugin,
    queryLimits(limits),
    documentRules(documents, { validate: withIncrementalRules(boundedValidation(limits)) }),
    costLimit(rule),
    // After the batch rules (which price a batch) and the cost limit (which prices an operation).
    demandControl(schema),
    byOperationKind(shared),
    compiledQueries(schema),
    // After compiled queries: an introspection answer kept in memory stands for their execution.
    introspectionAnswers({
      schema,
      maxBytes: limits.introspectionCacheBytes,
      answers: metrics.introspectionAnswers,
    }),
    ...(cache
      ? [cacheTagsPlugin((document, operationName) => planOf(schema, document, operationName))]
      : []),
    documentErrorCodes,
    logOperationNames(),
    ...(usage.enabled ? [usageRecording(usage)] : []),
    stabilityWarnings(),
    graphqlMetrics(metrics),
    logFailures,
    boundedErrors(limits),
    eventCursors(),
    // After the hooks that read a streamed query's parts in the 2022 format (demand control, the
    // cache's tags): it writes them in the format the client asked for.
    incrementalDelivery(maskError),
    serverSentEvents(fanOut, limits.subscriberBufferBytes),
    // Last: it wraps the execution the others prepared (the mutation's loaders, its signal).
    idempotentMutations(idempotency, { mask: maskError, bounds: limits }, (domain, db) =>
      createLoaders(domain, createSharedReads(db), { cache: false }),
    ),
  ];
  const yoga = createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    cors: false, // the app's one policy for /graphql and /api (src/http/cors.ts)
    landingPage: false,
    graphiql: graphiqlOptions({ schema, manifest: persistedManifest, developmentToken }),
    renderGraphiQL: renderGraphiQLPage,
    maskedErrors: { maskError },
    logging: {
      debug: (...args) => logger.debug(args),
      info: (...args) => logger.info(args),
      warn: (...args) => logger.warn(args),
      // Unexpected errors are logged once, with their path, by the error masker.
      error: (...args) => logger.debug(args),
    },
    // The app limits bodies before Yoga runs (src/limits/body-limit.ts): Yoga's own limit would
    // stream every body through a counter.
    maxRequestBodySize: false,
    // The adapter's lightweight Response, when it serves (src/runtime/adapter-response.ts).
    fetchAPI: { Response: adapterResponse },
    // The parse cache and validation once per document are `documentRules`'.
    parserAndValidationCache: false,
    // The batch limit is the contract's (QUERY_TOO_COMPLEX, in `batchRules`), not Yoga's.
    batching: { limit: Number.POSITIVE_INFINITY },
    plugins,
  });
  const instrumentations = plugins.flatMap((plugin) =>
    'instrumentation' in plugin && plugin.instrumentation ? [plugin.instrumentation] : [],
  );
  const operation = composeInstrumentation(instrumentations)?.operation;
  return { yoga, operation: operation as OperationInstrumentation | undefined };
}
