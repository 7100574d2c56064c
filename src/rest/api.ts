import { type Context, Hono } from 'hono';
import { entityTag, listTag, type Tag } from '../cache/tags.js';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { SharedReads } from '../db/shared-reads.js';
import { requireScope } from '../domain/authorization.js';
import type { ChangeFeed } from '../domain/changes.js';
import { DomainError, methodNotAllowed } from '../errors/catalogue.js';
import { chain, type Link } from '../http/chain.js';
import type { AppEnv } from '../http/env.js';
import { type Idempotency, keyOwner } from '../idempotency/keys.js';
import { keyedMethods, runIdempotent } from '../idempotency/rest.js';
import { bodyTooLargeMessage, limitBody } from '../limits/body-limit.js';
import type { Logger } from '../logger.js';
import { inSpan, tracingEnabled } from '../tracing/hooks.js';
import type { UsageCounter } from '../usage/rest.js';
import { refuseAfterSunset } from '../warnings/rest.js';
import { recordedError, restErrorHandler } from './errors.js';
import { honoPath, REST_BASE_PATH, type Route } from './kit/route.js';
import { routeMark } from './marks.js';
import { allRoutes } from './routes/index.js';

export { REST_BASE_PATH };

export interface RestApiOptions {
  database: Database;
  /** Public reads by id, coalesced with GraphQL's. */
  shared: SharedReads;
  changes: ChangeFeed;
  config: Config;
  logger: Logger;
  /** Idempotency keys of POST and PATCH (src/idempotency/). */
  idempotency: Idempotency;
  /** Where each call of a route is counted (src/usage/). */
  usage: UsageCounter;
  /**
   * What every request to the façade walks before its handler, after its route's marks: the time
   * limit, the token check, the rate limit, the response cache (src/app.ts).
   */
  policies: readonly Link<AppEnv>[];
}

/**
 * What a cacheable route's answer holds (src/cache/http.ts keeps it), or undefined when its path
 * parameter is not a canonical id (that request fails anyway).
 */
function routeTags(spec: Route['spec'], params: Record<string, string>): Tag[] | undefined {
  const cache = spec.cache;
  if (!cache) return undefined;
  if (!cache.idParam) return [listTag(cache.entity)];
  const raw = params[cache.idParam];
  if (raw === undefined || !/^\d{1,19}$/.test(raw)) return undefined;
  return [entityTag(cache.entity, BigInt(raw))];
}

/**
 * The REST façade, to mount under /api: every declared route, then 405 with `Allow`
 * for a known path with another method, then 404 NOT_FOUND; each failure in the Error shape.
 * Each is one chain (src/http/chain.ts): the route's marks, the policies, its handler.
 */
export function createRestApi({
  database,
  shared,
  changes,
  config,
  logger,
  idempotency,
  usage,
  policies,
}: RestApiOptions): Hono<AppEnv> {
  const api = new Hono<AppEnv>();
  const answering = (...links: (Link<AppEnv> | undefined)[]) =>
    chain(...links.filter((link) => link !== undefined));
  const guarded = answeringFailures(restErrorHandler(logger, config.limits));
  const recordError = (error: unknown) => recordedError(error, config.limits);
  const maxBytes = config.limits.bodyBytes;
  const tooLarge = guarded(
    limitBody(maxBytes, () => {
      throw new DomainError('PAYLOAD_TOO_LARGE', bodyTooLargeMessage(maxBytes));
    }),
  );

  for (const route of allRoutes) {
    const { spec } = route;
    const spanName = `REST ${spec.operationId}`;
    const attributes = { 'petstore.rest.operation': spec.operationId };
    const handle = (c: Context<AppEnv>) => {
      if (spec.deprecation) refuseAfterSunset(c, spec.deprecation, config);
      const viewer = c.get('viewer');
      const keyed =
        keyedMethods.includes(spec.method) && c.req.header('idempotency-key') !== undefined;
      const owner = keyed ? keyOwner(viewer) : undefined;
      // Refuse a caller without the scope before reading the request (the domain checks again).
      // A replay passes here too: it gives the caller nothing this route would not.
      if (spec.scope) requireScope(viewer, spec.scope);
      const params = c.req.param() as Record<string, string>;
      const tags = routeTags(spec, params);
      if (tags) c.get('cacheable')?.(tags);
      const deps = {
        domain: { db: database.prisma, sql: database, dialect: database.dialect, viewer, changes },
        shared,
        config,
      };
      // After the scope check: a request refused before authorisation leaves its key unused.
      if (owner !== undefined)
        return runIdempotent(
          c,
          { keys: idempotency, caller: owner, recordError },
          deps,
          (keyedDeps) => route.run(c, keyedDeps, params),
        );
      return route.run(c, deps, params);
    };
    const traced = (c: Context<AppEnv>) => inSpan(spanName, attributes, () => handle(c));
    const answer = guarded(tracingEnabled() ? traced : handle);
    const mark = routeMark(spec, { config, usage });
    // Only a route with a body has the body limit.
    const chained = answering(mark, ...policies, spec.body ? tooLarge : undefined, answer);
    api.on(spec.method.toUpperCase(), honoPath(spec.path), chained);
  }

  for (const [path, allow] of allowedMethods(allRoutes)) {
    api.all(
      honoPath(path),
      answering(
        ...policies,
        guarded((c) => {
          throw methodNotAllowed(
            `${c.req.method} is not allowed on ${c.req.path}; allowed: ${allow}`,
            allow,
          );
        }),
      ),
    );
  }
  api.all(
    '*',
    answering(
      ...policies,
      guarded((c) => {
        throw new DomainError('NOT_FOUND', `No route ${c.req.method} ${c.req.path}`);
      }),
    ),
  );
  return api;
}

/**
 * Each handler of the façade answers its own failures. Not the sub-app's `onError`: mounted with
 * `app.route`, a sub-app with an error handler of its own has every route wrapped in two more
 * async layers (a composed chain of none, and its dispatch) at every request: 1.5 of the 38 KB a
 * read by id allocates.
 */
function answeringFailures(onError: ReturnType<typeof restErrorHandler>) {
  return (handler: Link<AppEnv>): Link<AppEnv> =>
    (c, next) => {
      try {
        const answer = handler(c, next);
        return answer instanceof Promise
          ? answer.catch((error: unknown) => onError(error as Error, c))
          : answer;
      } catch (error) {
        return onError(error as Error, c);
      }
    };
}

/** Each path with its `Allow` value; HEAD is answered wherever GET is. */
export function allowedMethods(routes: readonly Route[]): Map<string, string> {
  const byPath = new Map<string, string[]>();
  for (const { spec } of routes) {
    const methods = byPath.get(spec.path) ?? [];
    methods.push(spec.method.toUpperCase());
    if (spec.method === 'get') methods.push('HEAD');
    byPath.set(spec.path, methods);
  }
  return new Map([...byPath].map(([path, methods]) => [path, methods.join(', ')]));
}
