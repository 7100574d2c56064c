import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

/** The largest request body accepted on /graphql and /api (CONTRACT §7): 100 KiB. */
export const MAX_BODY_BYTES = 100 * 1024;

export const bodyTooLargeMessage = `The request body is larger than the limit of ${MAX_BODY_BYTES} bytes (100 KiB)`;

/**
 * Answers 413 through `onTooLarge` when a body is over MAX_BODY_BYTES: by its Content-Length, or
 * while reading a body sent without one (the body is then buffered, never more than the limit).
 */
export function limitBody(
  onTooLarge: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  return bodyLimit({ maxSize: MAX_BODY_BYTES, onError: onTooLarge });
}
