import type { MiddlewareHandler } from 'hono';
import { timeoutError } from '../domain/errors.js';
import type { AppEnv } from './env.js';
import { errorResponse } from './error-response.js';

/**
 * Answers 503 TIMEOUT when a request runs past `ms`, and aborts the request's `signal` so that
 * the work stops too: a mutation's execution ends at the next field, and nothing new is written
 * for a client that has been answered (a compiled query reads to its end; see
 * src/graphql/compiled-queries.ts). A statement already sent runs to its end; transactions have a
 * limit of the same length (src/db/client.ts), so none is left running or half-done.
 *
 * The limit runs until the response is ready. A subscription over Server-Sent Events is ready
 * once it has subscribed (its events follow in the body), so its stream is not cut: it lasts as
 * long as the client keeps it. Every other response is complete before it is returned.
 */
export function timeLimit(ms: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const controller = new AbortController();
    c.set('signal', controller.signal);
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      timer = setTimeout(() => resolve('expired'), ms);
    });
    const work = next().then(() => 'done' as const);
    work.catch(() => {}); // a failure after the time limit has nobody left to answer
    try {
      if ((await Promise.race([work, expired])) === 'expired') {
        const timeout = timeoutError();
        controller.abort(timeout);
        return errorResponse(c, timeout);
      }
    } finally {
      clearTimeout(timer);
    }
  };
}
