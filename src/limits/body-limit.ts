import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

export function bodyTooLargeMessage(maxBytes: number): string {
  return `The request body is larger than the limit of ${maxBytes} bytes`;
}

/**
 * Answers through `onTooLarge` when a body is over `maxBytes` (BODY_LIMIT_BYTES). A body with a
 * Content-Length cannot be longer than that (Node's HTTP parser stops there), so the header decides
 * without touching the body, which keeps the fast path of @hono/node-server; only a body without
 * one (chunked) is counted as it is read, buffered never beyond the limit.
 */
export function limitBody(
  maxBytes: number,
  onTooLarge: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  const countWhileReading = bodyLimit({ maxSize: maxBytes, onError: onTooLarge });
  return (c, next) => {
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      return Number(length) > maxBytes ? Promise.resolve(onTooLarge(c)) : next();
    }
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    return countWhileReading(c, next);
  };
}
