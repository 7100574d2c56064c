import type { Context } from 'hono';
import type { Config } from '../config.js';
import { DomainError } from '../domain/errors.js';
import type { Deprecation } from './route.js';

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

/** Sets the deprecation headers; past the sunset the route is gone (410 ENDPOINT_SUNSET). */
export function applyDeprecation(c: Context, deprecation: Deprecation, config: Config): void {
  for (const [name, value] of Object.entries(deprecationHeaders(deprecation, config)))
    c.header(name, value);
  const sunset = deprecation.sunset(config);
  if (Date.now() >= sunset.getTime()) {
    throw new DomainError(
      'ENDPOINT_SUNSET',
      `${c.req.method} ${c.req.path} reached its sunset on ${instant(sunset)}; use ${deprecation.instead} instead`,
    );
  }
}
