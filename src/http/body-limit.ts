import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

export function bodyTooLargeMessage(maxBytes: number): string {
  return `The request body is larger than the limit of ${maxBytes} bytes`;
}

/**
 * Answers through `onTooLarge` when a body is over `maxBytes` (BODY_LIMIT_BYTES): by its
 * Content-Length, or while reading a body sent without one (buffered, never more than the limit).
 */
export function limitBody(
  maxBytes: number,
  onTooLarge: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  return bodyLimit({ maxSize: maxBytes, onError: onTooLarge });
}
