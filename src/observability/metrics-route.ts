import { Hono } from 'hono';
import type { AppEnv } from '../http/env.js';
import type { Metrics } from './metrics.js';

/** `/metrics` in the Prometheus text format. */
export function metricsRoutes(metrics: Metrics) {
  const routes = new Hono<AppEnv>();
  routes.get('/metrics', async (c) =>
    c.body(await metrics.registry.metrics(), 200, {
      'Content-Type': metrics.registry.contentType,
      'Cache-Control': 'no-store',
    }),
  );
  return routes;
}
