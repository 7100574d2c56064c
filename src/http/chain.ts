import type { Context, Env, MiddlewareHandler, Next } from 'hono';

/** What a middleware or a handler returns: its answer when it gives one, or a promise of it. */
type Returned = ReturnType<MiddlewareHandler> | Response | undefined;

/** A middleware or a handler, as Hono calls them. */
export type Link<E extends Env> = (c: Context<E>, next: Next) => Returned;

const done = Promise.resolve();

/** As Hono's dispatch does: an answer a link returns becomes the request's, unless one already is. */
function answered(c: Context, answer: Returned) {
  if (answer instanceof Promise)
    return answer.then((response) => {
      if (response && !c.finalized) c.res = response;
    });
  if (answer && !c.finalized) c.res = answer;
  return done;
}

/**
 * Links run as one link of Hono's chain: each gets as `next` a call of the one after it (the last,
 * Hono's own `next`), with no dispatch of Hono's between them. Each of Hono's links is an async
 * function, a promise and a microtask a request, whatever the link does; a route's policies (the
 * time limit, the token check, the rate limit, the cache) are one chain made once (src/app.ts).
 * A link that throws rejects the chain, which Hono then answers as it would the link.
 */
export function chain<E extends Env>(...links: readonly Link<E>[]): MiddlewareHandler<E> {
  return (c, next) => {
    const call = (at: number): Promise<void> => {
      const link = links[at];
      if (!link) return next();
      const answer = link(c, () => call(at + 1));
      return answered(c, answer);
    };
    return call(0);
  };
}
