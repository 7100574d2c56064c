import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { AppEnv, ClientName } from '../http/env.js';
import { UNKNOWN_CLIENT } from './client-name.js';
import type { Metrics } from './metrics.js';

const knownMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The route pattern that answered (`/api/pets/{petId}`), not the path, so that ids do not become
 * label values. Requests that no route answered share one value.
 */
function routeLabel(pattern: string, status: number): string {
  if (pattern === '' || (status === 404 && pattern.endsWith('*'))) return 'unmatched';
  return pattern.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}');
}

/**
 * Counts every request by route pattern, status and client name and version, times it by route
 * pattern, status and client name, and counts calls answered with a `Deprecation` header (RFC 9745)
 * per client. Registered first, it sees routes mounted later too.
 */
export function httpMetrics(metrics: Metrics): MiddlewareHandler<AppEnv> {
  const routes = new Map<string, string>();
  const labelOf = (pattern: string, status: number) => {
    let label = routes.get(pattern);
    if (label === undefined) {
      label = routeLabel(pattern, 200);
      routes.set(pattern, label);
    }
    return status === 404 && pattern.endsWith('*') ? 'unmatched' : label;
  };
  // The series of one label set, looked up once: every label is bounded (methods, routes,
  // statuses, client names and versions), and so is this map.
  const series = new Map<string, { count(): void; observe(seconds: number): void }>();
  const seriesOf = (method: string, route: string, status: number, client: ClientName) => {
    const key = `${method} ${route} ${status} ${client.name} ${client.version}`;
    let found = series.get(key);
    if (!found) {
      const labels = { method, route, status: String(status), client_name: client.name };
      const counter = metrics.httpRequests.labels({ ...labels, client_version: client.version });
      const histogram = metrics.httpDuration.labels(labels);
      found = { count: () => counter.inc(), observe: (seconds) => histogram.observe(seconds) };
      series.set(key, found);
    }
    return found;
  };
  return async (c, next) => {
    const started = performance.now();
    await next();
    const seconds = (performance.now() - started) / 1000;
    const method = knownMethods.has(c.req.method) ? c.req.method : 'other';
    // After next(), the route index points at the handler that answered.
    const route = labelOf(routePath(c), c.res.status);
    const { count, observe } = seriesOf(
      method,
      route,
      c.res.status,
      c.get('clientName') ?? UNKNOWN_CLIENT,
    );
    count();
    observe(seconds);
    if (c.res.headers.has('deprecation')) {
      const client = metrics.client(c.get('viewer')?.subject, c.req.header('user-agent'));
      metrics.deprecatedCalls.inc({ api: 'rest', operation: `${method} ${route}`, client });
    }
  };
}
