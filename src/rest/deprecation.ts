import { type Context, Hono } from 'hono';
import type { Config } from '../config.js';
import { DomainError } from '../domain/errors.js';
import type { AppEnv } from '../http/env.js';
import { addAnswerHeaders } from '../http/response-header.js';
import { type Deprecation, honoPath, type Route } from './route.js';

/** RFC 3339 without milliseconds, e.g. 2027-06-30T00:00:00Z. */
export function instant(date: Date): string {
  return date.toISOString().replace(/\.000Z$/, 'Z');
}

/** The headers of a deprecated route, on every response it gives. */
export function deprecationHeaders(deprecation: Deprecation, config: Config) {
  return {
    Deprecation: `@${Math.floor(deprecation.since.getTime() / 1000)}`,
    Sunset: deprecation.sunset(config).toUTCString(),
    Link: `<${deprecation.successor}>; rel="successor-version"`,
  };
}

/**
 * The headers of every deprecated route, set on each answer it gives, whoever gives it: the
 * handler, or the token check and the rate limit that run before it (registered ahead of them).
 * The HTTP metrics count these calls as deprecated calls (`deprecated` on the context).
 */
export function deprecatedRoutes(routes: readonly Route[], config: Config): Hono<AppEnv> {
  const marked = new Hono<AppEnv>();
  for (const { spec } of routes) {
    if (!spec.deprecation) continue;
    const headers = deprecationHeaders(spec.deprecation, config);
    marked.on(spec.method.toUpperCase(), honoPath(spec.path), (c, next) => {
      c.set('deprecated', true);
      addAnswerHeaders(c, headers);
      return next();
    });
  }
  return marked;
}

/** Past its sunset a deprecated route is gone: 410 ENDPOINT_SUNSET. */
export function refuseAfterSunset(c: Context, deprecation: Deprecation, config: Config): void {
  const sunset = deprecation.sunset(config);
  if (Date.now() >= sunset.getTime()) {
    throw new DomainError(
      'ENDPOINT_SUNSET',
      `${c.req.method} ${c.req.path} reached its sunset on ${instant(sunset)}; use ${deprecation.instead} instead`,
    );
  }
}
