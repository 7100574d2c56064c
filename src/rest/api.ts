import { Hono, type MiddlewareHandler } from 'hono';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { requireScope } from '../domain/authorization.js';
import type { ChangeFeed } from '../domain/changes.js';
import { DomainError } from '../domain/errors.js';
import type { SharedReads } from '../domain/shared-reads.js';
import { bodyTooLargeMessage, limitBody } from '../http/body-limit.js';
import type { AppEnv } from '../http/env.js';
import type { ResponseStore } from '../http/response-cache.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../observability/metrics.js';
import { cachedRead } from './cache.js';
import { refuseAfterSunset } from './deprecation.js';
import { allRoutes } from './document.js';
import { restErrorHandler } from './errors.js';
import { honoPath, type Route } from './route.js';

export { REST_BASE_PATH } from './document.js';

export interface RestApiOptions {
  database: Database;
  /** Public reads by id, coalesced with GraphQL's. */
  shared: SharedReads;
  changes: ChangeFeed;
  config: Config;
  logger: Logger;
  metrics: Metrics;
  /** The response cache shared with GraphQL; none when it is off. */
  cache?: ResponseStore;
}

/**
 * The REST façade, to mount under /api: every declared route, then 405 with `Allow`
 * for a known path with another method, then 404 NOT_FOUND; each failure in the Error shape.
 */
export function createRestApi({
  database,
  shared,
  changes,
  config,
  logger,
  metrics,
  cache,
}: RestApiOptions): Hono<AppEnv> {
  const api = new Hono<AppEnv>();
  const maxBytes = config.limits.bodyBytes;
  const tooLarge = limitBody(maxBytes, () => {
    throw new DomainError('PAYLOAD_TOO_LARGE', bodyTooLargeMessage(maxBytes));
  });

  for (const route of allRoutes) {
    const { spec } = route;
    const guard: MiddlewareHandler<AppEnv> = spec.body ? tooLarge : (_c, next) => next();
    api.on(spec.method.toUpperCase(), honoPath(spec.path), guard, (c) => {
      if (spec.deprecation) refuseAfterSunset(c, spec.deprecation, config);
      // Refuse a caller without the scope before reading the request (the domain checks again).
      if (spec.scope) requireScope(c.get('viewer'), spec.scope);
      const run = () =>
        route.run(c, {
          domain: { db: database.prisma, viewer: c.get('viewer'), changes },
          shared,
          config,
        });
      return cache && spec.cache ? cachedRead(c, cache, metrics, spec, run) : run();
    });
  }

  for (const [path, allow] of allowedMethods(allRoutes)) {
    api.all(honoPath(path), (c) => {
      c.header('Allow', allow);
      throw new DomainError(
        'METHOD_NOT_ALLOWED',
        `${c.req.method} is not allowed on ${c.req.path}; allowed: ${allow}`,
      );
    });
  }
  api.all('*', (c) => {
    throw new DomainError('NOT_FOUND', `No route ${c.req.method} ${c.req.path}`);
  });

  api.onError(restErrorHandler(logger));
  return api;
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
