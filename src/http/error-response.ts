import type { Context } from 'hono';
import { DomainError, type ErrorCode } from '../domain/errors.js';
import { recordFailure } from '../tracing/hooks.js';
import { noteErrorCode } from './access-log-fields.js';
import { JSON_CONTENT_TYPE } from './content-type.js';
import type { AppEnv } from './env.js';
import { graphqlErrorResponse } from './graphql-error-response.js';

/**
 * An error answered before either edge runs (token, rate limit, time limit, size). On /graphql it
 * has the GraphQL shape (`errors[].extensions.code/status`), elsewhere the contract's Error shape.
 */
export function errorResponse(
  c: Context<AppEnv>,
  error: DomainError | ErrorCode,
  headers: Record<string, string> = {},
): Response {
  const { code, message, status } =
    typeof error === 'string' ? new DomainError(error, defaultMessages[error] ?? error) : error;
  recordFailure({ code, status });
  noteErrorCode(c.get('accessLog'), code);
  if (c.req.path === '/graphql') return graphqlErrorResponse(c, code, message, headers);
  return new Response(JSON.stringify({ code, message, status }), {
    status,
    headers: { 'content-type': JSON_CONTENT_TYPE, ...headers },
  });
}

const defaultMessages: Partial<Record<ErrorCode, string>> = {
  RATE_LIMITED: 'Too many requests; wait for Retry-After seconds and try again',
};
