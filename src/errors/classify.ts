import { GraphQLError } from 'graphql';
import { isDatabaseTimeout, isDatabaseUnreachable } from '../db/errors.js';
import { type ContractError, DomainError, type ErrorCode, errorStatus } from './catalogue.js';

/** How a failure is logged: known outages as throttled warnings, the unexpected as errors. */
export interface FailureLog {
  level: 'warn' | 'error';
  /** The cause, a fixed sentence: logs are throttled per cause. */
  message: string;
  throttled: boolean;
}

/** The contract error for a failure, and whether and how to log it. */
export interface ClassifiedError {
  error: ContractError;
  log: FailureLog | undefined;
}

export const unavailableMessage = 'The database cannot be reached; try again later.';
const timeoutMessage = 'The request took longer than the time limit and was abandoned';
const internalMessage = 'Unexpected error; it has been logged.';

/** The 503 of a request past its time limit. */
export function timeoutError(): DomainError {
  return new DomainError('TIMEOUT', timeoutMessage);
}

/** What a GraphQL error stands for: the innermost original, or the GraphQL error itself. */
function causeOf(error: GraphQLError): { cause: unknown; raisedByServer: boolean } {
  const original = error.originalError;
  if (original instanceof GraphQLError) return causeOf(original);
  return original
    ? { cause: original, raisedByServer: false }
    : { cause: error, raisedByServer: true };
}

/**
 * The GraphQL server's own request errors: already in contract codes (the limits, request-shape
 * checks, refusals rendered by src/errors/graphql.ts), Yoga's codes (a mutation by GET, an
 * operation it cannot pick), or no code at all (a variable value GraphQL could not coerce, e.g. a
 * bad DateTime).
 */
function serverRequestError(error: GraphQLError): ContractError | undefined {
  const { code, http } = error.extensions as { code?: unknown; http?: { status?: unknown } };
  if (typeof code === 'string' && code in errorStatus)
    return new DomainError(code as ErrorCode, error.message);
  if (code === 'OPERATION_RESOLUTION_FAILURE') {
    return new DomainError(
      'GRAPHQL_VALIDATION_FAILED',
      'operationName must name an operation of the document (it may be left out when there is one)',
    );
  }
  if (code === 'BAD_REQUEST') {
    return new DomainError(
      http?.status === 405 ? 'METHOD_NOT_ALLOWED' : 'MALFORMED_REQUEST',
      error.message,
    );
  }
  if (code === undefined) return new DomainError('VALIDATION_FAILED', error.message);
  return undefined;
}

/** What anything thrown that is not a GraphQL error is. */
function classifyThrown(error: unknown): ClassifiedError {
  if (error instanceof DomainError) return { error, log: undefined };
  if (isDatabaseUnreachable(error)) {
    return {
      error: new DomainError('UNAVAILABLE', unavailableMessage),
      log: { level: 'warn', message: 'the database cannot be reached', throttled: true },
    };
  }
  if (isDatabaseTimeout(error)) {
    return {
      error: timeoutError(),
      log: { level: 'warn', message: 'a statement ran past the time limit', throttled: true },
    };
  }
  return {
    error: new DomainError('INTERNAL', internalMessage),
    log: { level: 'error', message: 'unexpected error', throttled: false },
  };
}

/** The classifier's answer for a GraphQL error, with the cause it stands for (for the log). */
export interface ClassifiedGraphQLError extends ClassifiedError {
  cause: unknown;
  /** Raised by the GraphQL server itself (a request error), not thrown by a resolver or plugin. */
  raisedByServer: boolean;
}

/**
 * What a GraphQL error stands for: the GraphQL server's own request errors get their codes here,
 * anything a resolver or a plugin threw is classified as anything else thrown.
 */
export function classifyGraphQLError(graphqlError: GraphQLError): ClassifiedGraphQLError {
  const { cause, raisedByServer } = causeOf(graphqlError);
  const error = raisedByServer ? serverRequestError(cause as GraphQLError) : undefined;
  const classified = error ? { error, log: undefined } : classifyThrown(cause);
  return { cause, raisedByServer, ...classified };
}

/**
 * The one decision of which contract error anything thrown is. Both edges, the metrics, the
 * tracing and the health check render its answer; none decides on its own.
 */
export function classifyError(error: unknown): ClassifiedError {
  return error instanceof GraphQLError ? classifyGraphQLError(error) : classifyThrown(error);
}

/** The contract code an error is sent with (for metrics, which see errors before masking). */
export function errorCodeOf(error: unknown): string {
  return classifyError(error).error.code;
}

/**
 * The contract error of a request Node's HTTP parser refused, by Node's error code. Node's own
 * answer is a bare status line with no body.
 *
 * - Headers over Node's limit (16 KiB, request line included, so a long URL or query string lands
 *   here too) keep their HTTP status, 431, with their own code: no other code fits, because a
 *   code always comes with the same status and PAYLOAD_TOO_LARGE (413) is about the body.
 * - A request not received within Node's time limits (`headersTimeout`, set from
 *   HEADERS_TIMEOUT_MS, and `requestTimeout`) is the contract's TIMEOUT: the request ran past its
 *   time limit, so it carries TIMEOUT's 503 rather than HTTP's 408, for which the contract has no
 *   code.
 * - Anything else the parser rejects (a garbage request line, a bad header, conflicting lengths)
 *   is a malformed request.
 */
export function classifyParserError(nodeCode: string | undefined): DomainError {
  switch (nodeCode) {
    case 'HPE_HEADER_OVERFLOW':
      return new DomainError(
        'REQUEST_HEADERS_TOO_LARGE',
        'The request line and headers are too large (16 KiB at most); shorten the URL or the headers',
      );
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new DomainError('PAYLOAD_TOO_LARGE', 'The chunk extensions of the body are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new DomainError('TIMEOUT', 'The request was not received within the time limit');
    default:
      return new DomainError('MALFORMED_REQUEST', 'The request is not valid HTTP/1.1');
  }
}
