import { type ExecutionResult, GraphQLError } from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import { WWW_AUTHENTICATE } from '../auth/tokens.js';
import {
  type ClassifiedError,
  classifyError,
  clipText,
  DomainError,
  type ErrorBody,
  type ErrorBounds,
  type ErrorCode,
  errorStatus,
  validationFailed,
} from '../domain/errors.js';
import type { Logger } from '../logger.js';
import { logFailure } from '../observability/log-throttle.js';

/**
 * The error with the contract's code and status; with `bounds` (as it is sent), its message
 * bounded and at most `errorListItems` locations (a repeated argument has one per repeat).
 */
function withBody(
  error: GraphQLError,
  { code, message, status }: ErrorBody,
  bounds?: ErrorBounds,
): GraphQLError {
  // Only `http` (Yoga's status and headers, stripped from the body) is kept of other extensions.
  // A compiled query's errors (src/graphql/compiled-queries.ts) may have no extensions at all.
  const http = error.extensions?.http;
  const items = bounds?.errorListItems;
  const text = bounds ? clipText(message, bounds.errorMessageBytes) : message;
  const masked = new GraphQLError(text, {
    nodes: error.nodes?.slice(0, items),
    source: error.source,
    positions: error.positions?.slice(0, items),
    path: error.path,
    extensions: { code, status, ...(http ? { http } : {}) },
  });
  // ...and carry their locations without the nodes they were computed from.
  if (!masked.locations && error.locations)
    Object.assign(masked, { locations: error.locations.slice(0, items) });
  return masked;
}

/** Parse and validation errors of a GraphQL document, with the contract's code and status. */
export function requestError(
  error: GraphQLError,
  code: 'GRAPHQL_PARSE_FAILED' | 'GRAPHQL_VALIDATION_FAILED',
) {
  const { extensions } = error;
  const status = errorStatus[code];
  let coded = error;
  // GraphQL's own errors have no extensions: coded as they are (a copy would compute the
  // locations again, each a scan of the document). One of them is shared (graphql-js's
  // "Validation aborted."): it always gets the same code here.
  if (Object.keys(extensions).length === 0) Object.assign(extensions, { code, status });
  else if (!(extensions.code && extensions.status))
    coded = withBody(error, { code, message: error.message, status });
  // A request error: 400 with application/graphql-response+json, as GraphQL over HTTP says.
  coded.extensions.http ??= { status: 400, spec: true };
  return coded;
}

/** The error a GraphQL error stands for: the innermost original, or the GraphQL error itself. */
function causeOf(error: GraphQLError): { cause: unknown; raisedByServer: boolean } {
  const original = error.originalError;
  if (original instanceof GraphQLError) return causeOf(original);
  return original
    ? { cause: original, raisedByServer: false }
    : { cause: error, raisedByServer: true };
}

/**
 * The GraphQL server's own request errors: already in contract codes (the limits, request-shape
 * checks), Yoga's codes (a mutation by GET, an operation it cannot pick), or no code at all (a
 * variable value GraphQL could not coerce, e.g. a bad DateTime).
 */
function serverRequestError(error: GraphQLError): ErrorBody | undefined {
  const { code, http } = error.extensions as { code?: unknown; http?: { status?: unknown } };
  if (typeof code === 'string' && code in errorStatus)
    return {
      code: code as ErrorCode,
      message: error.message,
      status: errorStatus[code as ErrorCode],
    };
  if (code === 'OPERATION_RESOLUTION_FAILURE') {
    return new DomainError(
      'GRAPHQL_VALIDATION_FAILED',
      'operationName must name an operation of the document (it may be left out when there is one)',
    ).toBody();
  }
  if (code === 'BAD_REQUEST') {
    return new DomainError(
      http?.status === 405 ? 'METHOD_NOT_ALLOWED' : 'MALFORMED_REQUEST',
      error.message,
    ).toBody();
  }
  if (code === undefined) return validationFailed(error.message).toBody();
  return undefined;
}

/**
 * The classifier's decision for what a GraphQL error stands for: the GraphQL server's own request
 * errors get their codes here, anything else is the one classifier's (`classifyError`).
 */
function classifyCause(cause: unknown, raisedByServer: boolean): ClassifiedError {
  const body = raisedByServer ? serverRequestError(cause as GraphQLError) : undefined;
  return body ? { body, log: undefined } : classifyError(cause);
}

/** The contract code a GraphQL error is sent with (for metrics, which see errors before masking). */
export function errorCodeOf(error: unknown): string {
  const { cause, raisedByServer } =
    error instanceof GraphQLError ? causeOf(error) : { cause: error, raisedByServer: false };
  return classifyCause(cause, raisedByServer).body.code;
}

/** What the classifier says of a GraphQL error: its contract body, and how to log its cause. */
function classify(error: GraphQLError) {
  const { cause, raisedByServer } = causeOf(error);
  return { cause, raisedByServer, ...classifyCause(cause, raisedByServer) };
}

/** The codes of the GraphQL server's request errors about the operation, not the HTTP request. */
const operationCannotRun = new Set<ErrorCode>(['GRAPHQL_VALIDATION_FAILED', 'VALIDATION_FAILED']);

/**
 * The GraphQL edge's error handling, as the one classifier decides (`classifyError`):
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
    const { cause, log: failure } = classify(error);
    logFailure(logger, failure, { err: cause, path: error.path, requestId });
  };

  function maskError(error: unknown): Error {
    const graphqlError =
      error instanceof GraphQLError
        ? error
        : // Thrown outside any resolver, e.g. by a plugin reading the database before execution.
          new GraphQLError('Unexpected error', { originalError: error as Error });
    log(graphqlError);
    const { body, raisedByServer } = classify(graphqlError);
    const masked = withBody(graphqlError, body, bounds);
    if (body.code === 'UNAUTHENTICATED') {
      // A missing token: say how to authenticate, without changing the execution's HTTP status.
      masked.extensions.http = { headers: { 'WWW-Authenticate': WWW_AUTHENTICATE } };
    } else if (raisedByServer && !graphqlError.path && operationCannotRun.has(body.code)) {
      // A well-formed request whose operation cannot run (an unknown operationName, a variable
      // that does not coerce): a GraphQL request error, whatever status Yoga gave it: 400 with
      // application/graphql-response+json, the legacy 200 with application/json (`spec`).
      masked.extensions.http = { ...masked.extensions.http, status: body.status, spec: true };
    }
    return masked;
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
