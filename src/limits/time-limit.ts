import type { MiddlewareHandler } from 'hono';
import type { DomainError } from '../errors/catalogue.js';
import { timeoutError } from '../errors/classify.js';
import { Deadline } from '../http/deadline.js';
import type { AppEnv } from '../http/env.js';
import { errorResponse } from '../http/error-response.js';

/** What a request's deadline promise settles with once the deadline has passed. */
const EXPIRED = Symbol('expired');

/**
 * The requests in flight and their deadlines, checked by one timer for all of them (a timer per
 * request cost more than the work of a point read): a request is answered at most one tick
 * (a tenth of the limit, at most 100 ms) after its limit.
 */
class Deadlines {
  readonly #pending = new Map<Deadline, (expired: typeof EXPIRED) => void>();
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly tickMs: number) {}

  /**
   * Runs `work` against `deadline`: settles as `work` does, with undefined, or with EXPIRED once the
   * deadline has passed, whichever comes first. One promise, settled either way: a race with a
   * promise of the deadline's own, never settled for a request answered in time, held each
   * finished request's whole context until a full collection found it (REST by id 105 -> 150 µs
   * of CPU, the collector's share 13 -> 34 µs). Only `resolve` waits here, never a closure that
   * holds the request's context: one that made the timeout's answer, kept in this map or on the
   * deadline, took a REST read from 57 to 85 µs of CPU (bench/rounds.md in git history, nineteenth round).
   */
  run(deadline: Deadline, work: () => Promise<unknown>): Promise<typeof EXPIRED | undefined> {
    const settled = new Promise<typeof EXPIRED | undefined>((resolve, reject) => {
      this.#pending.set(deadline, resolve);
      work().then(() => resolve(undefined), reject);
    });
    this.#timer ??= setInterval(() => this.#check(), this.tickMs).unref();
    return settled;
  }

  release(deadline: Deadline): void {
    this.#pending.delete(deadline);
    if (this.#pending.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #check(): void {
    const now = performance.now();
    for (const [deadline, expire] of this.#pending) if (now >= deadline.at) expire(EXPIRED);
  }
}

/** How often the requests' deadlines are checked: a tenth of the limit, at most 100 ms. */
const tickOf = (limitMs: number) => Math.max(1, Math.min(100, Math.floor(limitMs / 10)));

/**
 * How long the database lets a request's transaction or statement run: one tick past the
 * request's own limit. The request's limit then answers first, with 503 TIMEOUT and nothing more
 * written (were the database's timeout first, a GraphQL mutation would answer 200 with the
 * error on its field); and nothing the request started runs much past its answer.
 */
export const databaseLimitMs = (requestLimitMs: number) => requestLimitMs + tickOf(requestLimitMs);

/**
 * Answers 503 TIMEOUT when a request runs past `ms`, and aborts the request's deadline signal so
 * that the work stops too: a mutation's execution ends at the next field, and nothing new is
 * written for a client that has been answered (a query runs compiled and reads to its end; see
 * src/graphql/compiled-queries.ts). A statement already sent runs to its end; transactions and
 * statements have a limit one tick longer (`databaseLimitMs`), so none is left running or
 * half-done.
 *
 * The limit runs until the response is ready. A subscription over Server-Sent Events is ready
 * once it has subscribed (its events follow in the body), so its stream is not cut: it lasts as
 * long as the client keeps it. Every other response is complete before it is returned.
 */
export function timeLimit(ms: number): MiddlewareHandler<AppEnv> {
  const deadlines = new Deadlines(tickOf(ms));
  return async (c, next) => {
    const deadline = new Deadline(performance.now() + ms);
    c.set('deadline', deadline);
    try {
      if ((await deadlines.run(deadline, next)) === EXPIRED) {
        const timeout = timeoutError();
        deadline.expire(timeout);
        return errorResponse(c, timeout);
      }
    } finally {
      deadlines.release(deadline);
    }
  };
}

/** What an operation under `operationTimeLimit` came to: its value, or TIMEOUT first. */
export type Limited<T> =
  | { expired: false; value: T }
  /** `late` settles as the work does, for whoever must let go of what it brings (a stream). */
  | { expired: true; error: DomainError; late: Promise<T> };

/**
 * The same time limit for an operation that is not an HTTP request (a query or a subscription's
 * start sent over a WebSocket): `work` gets its deadline (a mutation's signal, a streamed query's
 * end) and the operation ends with TIMEOUT once it has run past `ms`, the deadline expired as the
 * middleware expires it. The same checker as the middleware's, so one tick of lateness at most.
 */
export function operationTimeLimit(ms: number) {
  const deadlines = new Deadlines(tickOf(ms));
  return async <T>(work: (deadline: Deadline) => Promise<T>): Promise<Limited<T>> => {
    const deadline = new Deadline(performance.now() + ms);
    const running = work(deadline);
    try {
      if ((await deadlines.run(deadline, () => running)) === EXPIRED) {
        const error = timeoutError();
        deadline.expire(error);
        return { expired: true, error, late: running };
      }
      return { expired: false, value: await running };
    } finally {
      deadlines.release(deadline);
    }
  };
}
