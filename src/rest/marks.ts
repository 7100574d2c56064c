import { Hono } from 'hono';
import type { Config } from '../config.js';
import type { AppEnv } from '../http/env.js';
import { deprecationMark } from './deprecation.js';
import { honoPath, type Route } from './route.js';
import { type UsageCounter, usageCount } from './usage.js';

/**
 * What every call of a REST route gets before the token check, the rate limit and the cache, so
 * that their answers have it too: its usage count (`usage.ts`) and a deprecated route's marks
 * (`deprecation.ts`). One handler a route, mounted under /api: one link of Hono's chain for both
 * (each link costs a promise and a microtask a request).
 */
export function routeMarks(
  routes: readonly Route[],
  { config, usage }: { config: Config; usage: UsageCounter },
): Hono<AppEnv> {
  const marked = new Hono<AppEnv>();
  for (const { spec } of routes) {
    const count = usageCount(spec, usage);
    const mark = deprecationMark(spec, config);
    if (!count && !mark) continue;
    marked.on(spec.method.toUpperCase(), honoPath(spec.path), (c, next) => {
      count?.(c);
      mark?.(c);
      return next();
    });
  }
  return marked;
}
