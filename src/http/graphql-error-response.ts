import type { Context } from 'hono';
import { type ErrorCode, errorStatus } from '../domain/errors.js';

/**
 * An error answered before Yoga runs (body too large, wrong method), in the GraphQL shape:
 * `{"errors":[{"message","extensions":{"code","status"}}]}` with the contract's HTTP status.
 */
export function graphqlErrorResponse(
  c: Context,
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
): Response {
  const accept = c.req.header('accept') ?? '';
  const contentType = accept.includes('application/graphql-response+json')
    ? 'application/graphql-response+json; charset=utf-8'
    : 'application/json; charset=utf-8';
  const status = errorStatus[code];
  return new Response(JSON.stringify({ errors: [{ message, extensions: { code, status } }] }), {
    status,
    headers: { 'content-type': contentType, ...headers },
  });
}
