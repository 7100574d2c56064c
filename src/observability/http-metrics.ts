import type { Context } from 'hono';
import { routePath } from 'hono/route';
import type { AppEnv } from '../http/env.js';
import { UNKNOWN_CLIENT } from './client-name.js';
import type { Metrics } from './metrics.js';

const knownMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The route pattern that answered (`/api/pets/{petId}`), not the path, so that ids do not become
 * label values. Requests that no route answered share one value.
 */
function routeLabel(pattern: string, status: number): string {
  if (pattern === '' || (status === 404 && pattern.endsWith('*'))) return 'unmatched';
  let label = labels.get(pattern);
  if (label === undefined) {
    label = pattern.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}');
    labels.set(pattern, label);
  }
  return label;
}

/** The label of each route pattern, made once: as many as the app has routes. */
const labels = new Map<string, string>();

/** Counts an answered request that took `seconds` (see `httpMetrics`). */
export type RequestCount = (c: Context<AppEnv>, seconds: number) => void;

/**
 * Counts every request by route pattern, status and client name and version, times it by route
 * pattern, status and client name, and counts calls answered with a `Deprecation` header (RFC 9745)
 * per client. The access log, first of every request's links, calls it once the answer is ready:
 * then the route index points at the handler that answered.
 */
export function httpMetrics(metrics: Metrics): RequestCount {
  return (c, seconds) => {
    const method = knownMethods.has(c.req.method) ? c.req.method : 'other';
    const route = routeLabel(routePath(c), c.res.status);
    const client = c.get('clientName') ?? UNKNOWN_CLIENT;
    const labels = {
      method,
      route,
      status: String(c.res.status),
      client_name: client.name,
      client_version: client.version,
    };
    metrics.httpRequests.inc(labels);
    // The duration has no version label: it reads the others.
    metrics.httpDuration.observe(labels, seconds);
    if (c.get('deprecated')) {
      const client = metrics.client(c.get('viewer')?.subject, c.req.header('user-agent'));
      metrics.deprecatedCalls.inc({ api: 'rest', operation: `${method} ${route}`, client });
    }
  };
}
