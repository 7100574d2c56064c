import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app.js';
import { errorResponse } from './error-response.js';

/**
 * Answers 503 TIMEOUT when a request runs past `ms`. The work itself is not cancelled (a database
 * statement cannot be interrupted from here); transactions have their own limit of the same length
 * (src/db/client.ts), so none is left running or half-done after its request.
 */
export function timeLimit(ms: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      timer = setTimeout(() => resolve('expired'), ms);
    });
    const work = next().then(() => 'done' as const);
    work.catch(() => {}); // a failure after the time limit has nobody left to answer
    try {
      if ((await Promise.race([work, expired])) === 'expired') return errorResponse(c, 'TIMEOUT');
    } finally {
      clearTimeout(timer);
    }
  };
}
