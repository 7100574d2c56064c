import { GraphQLError } from 'graphql';
import { WWW_AUTHENTICATE } from '../auth/tokens.js';
import {
  isDatabaseUnreachable,
  unavailableMessage,
  unreachableLogMessage,
} from '../db/unreachable.js';
import { DomainError, type ErrorCode, errorStatus } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import { logThrottled } from '../observability/log-throttle.js';

function withCode(error: GraphQLError, code: ErrorCode, message = error.message): GraphQLError {
  // Only `http` (Yoga's status and headers, stripped from the body) is kept of other extensions.
  const { http } = error.extensions;
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { code, status: errorStatus[code], ...(http ? { http } : {}) },
  });
}

/** Yoga's own request errors (a mutation by GET, an operation it cannot pick), in contract codes. */
function yogaRequestError(error: GraphQLError): GraphQLError | undefined {
  const { code, http } = error.extensions as { code?: unknown; http?: { status?: number } };
  if (code === 'OPERATION_RESOLUTION_FAILURE') {
    return withCode(
      error,
      'GRAPHQL_VALIDATION_FAILED',
      'operationName must name an operation of the document (it may be left out when there is one)',
    );
  }
  if (code === 'BAD_REQUEST')
    return withCode(error, http?.status === 405 ? 'METHOD_NOT_ALLOWED' : 'MALFORMED_REQUEST');
  return undefined;
}

/** Parse and validation errors of a GraphQL document, with the contract's code and status. */
export function requestError(
  error: GraphQLError,
  code: 'GRAPHQL_PARSE_FAILED' | 'GRAPHQL_VALIDATION_FAILED',
) {
  const coded = error.extensions.code && error.extensions.status ? error : withCode(error, code);
  // A request error: 400 with application/graphql-response+json, as GraphQL over HTTP says.
  coded.extensions.http ??= { status: 400, spec: true };
  return coded;
}

function domainError(error: GraphQLError, original: DomainError): GraphQLError {
  const coded = withCode(error, original.code, original.message);
  // A missing token: say how to authenticate, without changing the execution's HTTP status.
  if (original.code === 'UNAUTHENTICATED')
    coded.extensions.http = { headers: { 'WWW-Authenticate': WWW_AUTHENTICATE } };
  return coded;
}

/**
 * GraphQL's own error during execution: a variable that does not coerce (a bad DateTime, an
 * out-of-range Int). It is a request error, so with `application/graphql-response+json` the
 * response is a 400; `spec` keeps the legacy 200 for `application/json` (GraphQL over HTTP).
 */
function variableError(error: GraphQLError): GraphQLError {
  const coded = withCode(error, 'VALIDATION_FAILED');
  if (!error.path) coded.extensions.http = { status: 400, spec: true };
  return coded;
}

/**
 * Gives every execution error the contract's `code` and `status`. Domain errors keep their message;
 * GraphQL's own errors (a variable that does not coerce, e.g. a bad DateTime) are VALIDATION_FAILED;
 * anything else is logged and masked to INTERNAL with no detail.
 */
export function createErrorMasker(logger: Logger) {
  return function maskError(error: unknown): Error {
    if (error instanceof GraphQLError) {
      const original = error.originalError;
      if (original instanceof DomainError) return domainError(error, original);
      if (original instanceof GraphQLError) return maskError(original);
      if (!original) {
        if (!error.extensions.code) return variableError(error);
        return yogaRequestError(error) ?? error;
      }
      if (isDatabaseUnreachable(original)) {
        // One line per second during an outage, not one per failed field.
        logThrottled(logger, 'warn', { err: original, path: error.path }, unreachableLogMessage);
        return withCode(error, 'UNAVAILABLE', unavailableMessage);
      }
      logger.error({ err: original, path: error.path }, 'unexpected error in a resolver');
      return withCode(error, 'INTERNAL', 'Unexpected error; it has been logged.');
    }
    // Thrown outside any resolver (a plugin reading the database before execution).
    return maskError(new GraphQLError('Unexpected error', { originalError: error as Error }));
  };
}
