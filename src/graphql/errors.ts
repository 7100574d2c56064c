import { type ExecutionResult, GraphQLError } from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import type { ErrorBounds } from '../errors/catalogue.js';
import { classifyGraphQLError } from '../errors/classify.js';
import { maskedError } from '../errors/graphql.js';
import type { Logger } from '../logger.js';
import { logFailure } from '../observability/log-throttle.js';

/**
 * The GraphQL edge's error handling, as the one classifier decides (src/errors/classify.ts) and
 * the GraphQL renderer writes it (src/errors/graphql.ts):
 * - `maskError` gives every error the contract's `code` and `status`: domain errors keep their
 *   message, the GraphQL server's own errors get the contract's codes, anything unexpected is
 *   masked to INTERNAL with no detail;
 * - `logFailures` logs what the classifier says to log (unexpected errors, throttled outages) for
 *   execution and subscription events, with the operation's request id. It runs before the masker
 *   sees the errors; what fails before execution (a plugin, the context) the masker logs itself,
 *   without the id (the access line of the request has it, with the status).
 *
 * The request id is passed, not found through `AsyncLocalStorage`: on Node 20 that enables
 * promise hooks for every promise of the process, which cost 10 to 20% of throughput
 * (bench/rounds.md in git history).
 */
export function createErrorHandling(logger: Logger, bounds: ErrorBounds) {
  const logged = new WeakSet<GraphQLError>();
  const log = (error: GraphQLError, requestId?: string) => {
    if (logged.has(error)) return;
    logged.add(error);
    const { cause, log: failure } = classifyGraphQLError(error);
    logFailure(logger, failure, { err: cause, path: error.path, requestId });
  };

  function maskError(error: unknown): Error {
    const graphqlError =
      error instanceof GraphQLError
        ? error
        : // Thrown outside any resolver, e.g. by a plugin reading the database before execution.
          new GraphQLError('Unexpected error', { originalError: error as Error });
    log(graphqlError);
    return maskedError(graphqlError, classifyGraphQLError(graphqlError), bounds);
  }

  const logResult =
    (requestId: string) =>
    ({ result }: { result: ExecutionResult }) => {
      for (const error of result.errors ?? []) log(error, requestId);
    };
  const logFailures: Plugin<{ requestId: string }> = {
    onExecute: ({ args }) => ({
      onExecuteDone: (payload) =>
        handleStreamOrSingleExecutionResult(payload, logResult(args.contextValue.requestId)),
    }),
    onSubscribe: ({ args }) => ({
      onSubscribeResult: (payload) =>
        handleStreamOrSingleExecutionResult(payload, logResult(args.contextValue.requestId)),
    }),
  };

  return { maskError, logFailures };
}
