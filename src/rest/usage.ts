import { Hono } from 'hono';
import type { AppEnv } from '../http/env.js';
import type { UsageRecorder } from '../usage/recorder.js';
import { honoPath, type Route } from './route.js';

/**
 * Counts every call to a REST operation by its operation id, per client name and version, whatever
 * its answer (a call refused for its token, its rate or its sunset is still a client calling it).
 * Mounted under /api before the response cache, so that answers from the cache count too: one
 * more handler on the routes Hono already matches, and a tally in memory.
 */
export function restUsage(routes: readonly Route[], recorder: UsageRecorder): Hono<AppEnv> {
  const counted = new Hono<AppEnv>();
  if (!recorder.enabled) return counted;
  for (const { spec } of routes) {
    // One list per operation, made once: the recorder keys its tallies by it.
    const coordinates = [spec.operationId] as const;
    counted.on(spec.method.toUpperCase(), honoPath(spec.path), (c, next) => {
      recorder.record('rest', coordinates, c.get('clientName'));
      return next();
    });
  }
  return counted;
}
