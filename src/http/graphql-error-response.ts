import type { Context } from 'hono';
import { type ErrorCode, errorStatus } from '../domain/errors.js';
import { JSON_CONTENT_TYPE } from './content-type.js';

/**
 * An error on /graphql answered by the app's middleware instead of Yoga (an invalid token, the
 * rate limit, the time limit, a body too large, a method Yoga does not serve), in the GraphQL
 * shape `{"errors":[{"message","extensions":{"code","status"}}]}`. Its HTTP status is the code's
 * whatever the client accepts; the content type is `application/graphql-response+json` when the
 * client accepts it, else `application/json`.
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
    : JSON_CONTENT_TYPE;
  const status = errorStatus[code];
  return new Response(JSON.stringify({ errors: [{ message, extensions: { code, status } }] }), {
    status,
    headers: { 'content-type': contentType, ...headers },
  });
}
