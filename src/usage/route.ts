import { Hono } from 'hono';
import type { Database } from '../db/client.js';
import { firstUsageDay, readUsageTotals } from '../db/usage-counts.js';
import { requireScope } from '../domain/authorization.js';
import { methodNotAllowed, validationFailed } from '../errors/catalogue.js';
import { classifyError } from '../errors/classify.js';
import type { AppEnv } from '../http/env.js';
import { errorResponse } from '../http/error-response.js';
import type { Logger } from '../logger.js';
import { logFailure } from '../observability/log-throttle.js';
import { dayOf, type UsageRecorder } from './recorder.js';
import { usageReport } from './report.js';

export const USAGE_PATH = '/usage';

/** The longest coordinate a filter may name (the schema's are far shorter). */
const MAX_COORDINATE_LENGTH = 512;

export interface UsageRouteOptions {
  database: Database;
  recorder: UsageRecorder;
  retentionDays: number;
  logger: Logger;
}

/** `?coordinate=` once at most, 1-512 characters; undefined when absent. */
function coordinateFilter(values: string[] | undefined): string | undefined {
  if (values === undefined) return undefined;
  const [value] = values;
  if (
    values.length > 1 ||
    value === undefined ||
    value.trim() === '' ||
    value.length > MAX_COORDINATE_LENGTH
  )
    throw validationFailed(
      `Query parameter coordinate must be given at most once, as a schema coordinate (e.g. Query.pets or Query.pets(status:)) or a REST operation id, 1-${MAX_COORDINATE_LENGTH} characters`,
    );
  return value.trim();
}

/**
 * `GET /usage` (scope `admin:read`): which clients used each schema coordinate and REST operation
 * over the days kept, from the first day this database recorded a use (its coverage), with their versions, counts, first and last seen; `?coordinate=` keeps one.
 * An operator's endpoint beside /metrics, not part of the REST façade (/api) or its OpenAPI
 * document. What this process counted is written first, so that the answer includes it; other
 * replicas' counts arrive with their next write (USAGE_FLUSH_INTERVAL_MS).
 */
export function usageRoutes({ database, recorder, retentionDays, logger }: UsageRouteOptions) {
  const routes = new Hono<AppEnv>();
  routes.get(USAGE_PATH, async (c) => {
    requireScope(c.get('viewer'), 'admin:read');
    const coordinate = coordinateFilter(c.req.queries('coordinate'));
    await recorder.flush();
    const now = Date.now();
    const today = dayOf(now);
    const keptFrom = today - retentionDays + 1;
    const [totals, firstDay] = await Promise.all([
      readUsageTotals(database.prisma, keptFrom, coordinate),
      firstUsageDay(database.prisma),
    ]);
    // The days before the first recorded one were not seen, not unused: a fresh database covers
    // today at most, whatever the retention.
    const fromDay = Math.max(keptFrom, firstDay ?? today);
    return c.json(usageReport(totals, fromDay, today, now), 200, { 'cache-control': 'no-store' });
  });
  routes.all(USAGE_PATH, (c) => {
    throw methodNotAllowed(
      `${c.req.method} is not allowed on ${USAGE_PATH}; allowed: GET, HEAD`,
      'GET, HEAD',
    );
  });
  routes.onError((error, c) => {
    const classified = classifyError(error);
    logFailure(logger, classified.log, {
      err: error,
      requestId: c.get('requestId'),
      path: c.req.path,
    });
    return errorResponse(c, classified.error);
  });
  return routes;
}
