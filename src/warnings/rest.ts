import type { Context } from 'hono';
import type { Config } from '../config.js';
import { DomainError } from '../errors/catalogue.js';
import type { AppEnv } from '../http/env.js';
import { addAnswerHeaders } from '../http/response-header.js';
import type { Deprecation, Route } from '../rest/kit/route.js';

/** RFC 3339 without milliseconds, e.g. 2027-06-30T00:00:00Z. */
export function instant(date: Date): string {
  return date.toISOString().replace(/\.000Z$/, 'Z');
}

/**
 * The headers of a deprecated route, on every response it gives. Lower-case names, as an answer
 * keeps them (src/http/response-header.ts).
 */
export function deprecationHeaders(deprecation: Deprecation, config: Config) {
  return {
    deprecation: `@${Math.floor(deprecation.since.getTime() / 1000)}`,
    sunset: deprecation.sunset(config).toUTCString(),
    link: `<${deprecation.successor}>; rel="successor-version"`,
  };
}

/**
 * The marks of a deprecated route (none for another): its headers, noted for every answer it
 * gives, whoever gives it (the handler, the token check, the rate limit; see src/rest/marks.ts),
 * and `deprecated` on the context, which the HTTP metrics count as a deprecated call.
 */
export function deprecationMark(
  spec: Route['spec'],
  config: Config,
): ((c: Context<AppEnv>) => void) | undefined {
  if (!spec.deprecation) return undefined;
  const headers = deprecationHeaders(spec.deprecation, config);
  return (c) => {
    c.set('deprecated', true);
    addAnswerHeaders(c, headers);
  };
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
