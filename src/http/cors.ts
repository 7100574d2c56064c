import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';

/** Response headers a browser script may read, besides the CORS-safelisted ones. */
const exposedHeaders = [
  'X-Request-Id',
  'traceresponse',
  'X-Total-Count',
  'Location',
  'ETag',
  'WWW-Authenticate',
  'Retry-After',
  'RateLimit-Policy',
  'RateLimit',
  'Idempotent-Replayed',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Deprecation',
  'Sunset',
  'Link',
];

/**
 * The one cross-origin policy of `/graphql` and `/api` (CORS_ORIGINS).
 *
 * - No origins (the default): same-origin only; no CORS header is ever sent (no middleware).
 * - A list of origins: a request whose `Origin` is in the list gets
 *   `Access-Control-Allow-Origin: <its origin>`, and a preflight from it is answered 204 with the
 *   methods and the request headers it asked for; any other origin gets no CORS header (the
 *   request goes on to its route as if CORS did not exist). Every response says `Vary: Origin`.
 * - `*`: any origin, answered with `Access-Control-Allow-Origin: *`.
 *
 * Credentials (cookies) are never allowed: the API authenticates with an `Authorization` header,
 * which a cross-origin script may send without them.
 */
export function corsPolicy(origins: readonly string[]): MiddlewareHandler | undefined {
  // Same-origin only: nothing to do, so nothing for a request to pass through.
  if (origins.length === 0) return undefined;
  const anyOrigin = origins.includes('*');
  const allowed = new Set(origins);
  const answer = cors({
    origin: anyOrigin ? '*' : (origin) => (allowed.has(origin) ? origin : null),
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposeHeaders: exposedHeaders,
    maxAge: 600,
    credentials: false,
  });
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (origin !== undefined && (anyOrigin || allowed.has(origin))) return answer(c, next);
    await next();
    if (!anyOrigin) c.header('Vary', 'Origin', { append: true });
  };
}
