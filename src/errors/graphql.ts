import { GraphQLError } from 'graphql';
import { createGraphQLError } from 'graphql-yoga';
import {
  type ContractError,
  clipText,
  type ErrorBounds,
  type ErrorCode,
  type ErrorHeaders,
  errorStatus,
} from './catalogue.js';
import type { ClassifiedGraphQLError } from './classify.js';
import { JSON_CONTENT_TYPE, type RenderedError } from './rest.js';

/*
 * The GraphQL shape of a contract error: an entry of a result's `errors` with
 * `extensions: { code, status }`, and what Yoga makes of `extensions.http` (the response's status
 * and headers, stripped from the body).
 */

/** `http`: the status and the headers a refusal sets on the HTTP response. */
const httpOf = (status: number, headers: ErrorHeaders | undefined) =>
  headers ? { status, headers } : { status };

/**
 * A request that is not well formed (a body Yoga cannot read, parameters of the wrong shape), or
 * over a limit of its client (the rate limit, the cost budget, a key in flight): the contract's
 * code, its status as the HTTP one whatever the response's media type, and its headers.
 */
export function refuse(code: ErrorCode, message: string, headers?: ErrorHeaders): GraphQLError {
  const status = errorStatus[code];
  return createGraphQLError(message, {
    extensions: { code, status, http: httpOf(status, headers) },
  });
}

/**
 * A GraphQL request error of a well-formed request (its document or its operation breaks a rule:
 * a limit, the persisted operations). One status rule for all of them, GraphQL over HTTP's, like
 * GraphQL's own parse and validation errors: the 4xx under `application/graphql-response+json`,
 * 200 under `application/json` and in an event stream (where graphql-sse clients read it).
 */
export function refuseOperation(code: ErrorCode, message: string): GraphQLError {
  const status = errorStatus[code];
  return createGraphQLError(message, {
    extensions: { code, status, http: { status, spec: true } },
  });
}

/** QUERY_TOO_COMPLEX: a document or batch past a limit of its size or cost. */
export const tooComplex = (message: string): GraphQLError =>
  refuseOperation('QUERY_TOO_COMPLEX', message);

/**
 * An error with no location that stands for others left out of a refusal, with the code and
 * status the first of them was sent with.
 */
export function standInError(message: string, first: GraphQLError): GraphQLError {
  const { code, status } = first.extensions;
  return new GraphQLError(message, { extensions: { code, status } });
}

/**
 * The error with the contract's code and status; with `bounds` (as it is sent), its message
 * bounded and at most `errorListItems` locations (a repeated argument has one per repeat).
 */
function withContract(
  error: GraphQLError,
  { code, message, status }: ContractError,
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
export function documentError(
  error: GraphQLError,
  code: 'GRAPHQL_PARSE_FAILED' | 'GRAPHQL_VALIDATION_FAILED',
): GraphQLError {
  const { extensions } = error;
  const status = errorStatus[code];
  let coded = error;
  // GraphQL's own errors have no extensions: coded as they are (a copy would compute the
  // locations again, each a scan of the document). One of them is shared (graphql-js's
  // "Validation aborted."): it always gets the same code here.
  if (Object.keys(extensions).length === 0) Object.assign(extensions, { code, status });
  else if (!(extensions.code && extensions.status))
    coded = withContract(error, { code, message: error.message, status, headers: {} });
  // A request error: 400 with application/graphql-response+json, as GraphQL over HTTP says.
  coded.extensions.http ??= { status: 400, spec: true };
  return coded;
}

/** The codes of the GraphQL server's request errors about the operation, not the HTTP request. */
const operationCannotRun = new Set<ErrorCode>(['GRAPHQL_VALIDATION_FAILED', 'VALIDATION_FAILED']);

/**
 * A GraphQL error as it is sent, as the classifier decided: the contract's code, status and
 * message (bounded), and the HTTP headers and status its code carries.
 */
export function maskedError(
  graphqlError: GraphQLError,
  { error, raisedByServer }: ClassifiedGraphQLError,
  bounds: ErrorBounds,
): GraphQLError {
  const masked = withContract(graphqlError, error, bounds);
  if (error.code === 'UNAUTHENTICATED') {
    // A missing token: say how to authenticate, without changing the execution's HTTP status.
    masked.extensions.http = { headers: error.headers };
  } else if (raisedByServer && !graphqlError.path && operationCannotRun.has(error.code)) {
    // A well-formed request whose operation cannot run (an unknown operationName, a variable
    // that does not coerce): a GraphQL request error, whatever status Yoga gave it: 400 with
    // application/graphql-response+json, the legacy 200 with application/json (`spec`).
    masked.extensions.http = { ...masked.extensions.http, status: error.status, spec: true };
  }
  return masked;
}

/**
 * An error on /graphql answered by the app's middleware instead of Yoga (an invalid token, the
 * rate limit, the time limit, a body too large, a method Yoga does not serve), in the GraphQL
 * shape `{"errors":[{"message","extensions":{"code","status"}}]}`. Its HTTP status is the code's
 * whatever the client accepts; the content type is `application/graphql-response+json` when the
 * client accepts it (`accept`), else `application/json`.
 */
export function graphqlErrorAnswer(
  { code, status, message, headers }: ContractError,
  accept: string,
  extra: Readonly<Record<string, string>> = {},
): RenderedError {
  const contentType = accept.includes('application/graphql-response+json')
    ? 'application/graphql-response+json; charset=utf-8'
    : JSON_CONTENT_TYPE;
  return {
    status,
    headers: { 'content-type': contentType, ...headers, ...extra },
    body: JSON.stringify({ errors: [{ message, extensions: { code, status } }] }),
  };
}
