import { GraphQLError } from 'graphql';
import { WWW_AUTHENTICATE } from '../auth/tokens.js';
import { classifyError, type ErrorBody, errorStatus } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import { logFailure } from '../observability/log-throttle.js';

function withBody(error: GraphQLError, { code, message, status }: ErrorBody): GraphQLError {
  // Only `http` (Yoga's status and headers, stripped from the body) is kept of other extensions.
  const { http } = error.extensions;
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { code, status, ...(http ? { http } : {}) },
  });
}

/** Parse and validation errors of a GraphQL document, with the contract's code and status. */
export function requestError(
  error: GraphQLError,
  code: 'GRAPHQL_PARSE_FAILED' | 'GRAPHQL_VALIDATION_FAILED',
) {
  const coded =
    error.extensions.code && error.extensions.status
      ? error
      : withBody(error, { code, message: error.message, status: errorStatus[code] });
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

/** The contract code a GraphQL error is sent with (for metrics, which see errors before masking). */
export function errorCodeOf(error: unknown): string {
  const { cause, raisedByServer } =
    error instanceof GraphQLError ? causeOf(error) : { cause: error, raisedByServer: false };
  return classifyError(cause, raisedByServer).body.code;
}

/**
 * Gives every error the contract's `code` and `status`, as the one classifier decides
 * (`classifyError`): domain errors keep their message, the GraphQL server's own errors get the
 * contract's codes, anything unexpected is logged and masked to INTERNAL with no detail.
 */
export function createErrorMasker(logger: Logger) {
  return function maskError(error: unknown): Error {
    const graphqlError =
      error instanceof GraphQLError
        ? error
        : // Thrown outside any resolver, e.g. by a plugin reading the database before execution.
          new GraphQLError('Unexpected error', { originalError: error as Error });
    const { cause, raisedByServer } = causeOf(graphqlError);
    const { body, log } = classifyError(cause, raisedByServer);
    logFailure(logger, log, { err: cause, path: graphqlError.path });
    const masked = withBody(graphqlError, body);
    if (body.code === 'UNAUTHENTICATED') {
      // A missing token: say how to authenticate, without changing the execution's HTTP status.
      masked.extensions.http = { headers: { 'WWW-Authenticate': WWW_AUTHENTICATE } };
    } else if (raisedByServer && !graphqlError.path && !masked.extensions.http) {
      // A variable that does not coerce: a request error, 400 with
      // application/graphql-response+json (`spec` keeps the legacy 200 for application/json).
      masked.extensions.http = { status: body.status, spec: true };
    }
    return masked;
  };
}
