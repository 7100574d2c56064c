import { Hono } from 'hono';
import type { Database } from '../db/client.js';
import { DomainError } from '../errors/catalogue.js';
import { unavailableMessage } from '../errors/classify.js';
import { restErrorAnswer } from '../errors/rest.js';
import { JSON_CONTENT_TYPE } from '../http/content-type.js';
import type { AppEnv } from '../http/env.js';
import type { Logger } from '../logger.js';
import { logFailure } from './log-throttle.js';

/** A database that does not answer within this time counts as unreachable. */
const readinessTimeoutMs = 2000;

async function ping(database: Database): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${readinessTimeoutMs} ms`)),
      readinessTimeoutMs,
    );
  });
  try {
    await Promise.race([database.prisma.$queryRaw`SELECT 1`, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const noStore = { 'Cache-Control': 'no-store', 'Content-Type': JSON_CONTENT_TYPE };

/**
 * `/health/live`: the process runs. `/health/ready`: the database answers a trivial query, else
 * 503 `UNAVAILABLE` (orchestrators stop routing traffic here until it answers again).
 */
export function healthRoutes(
  database: Database,
  logger: Logger,
  /** The shared state's connection, when replicas share one (REDIS_URL). */
  redis?: { status(): 'up' | 'down' },
  /** The CDN's purges, when EDGE_PURGE_URL is set (src/edge-cache/purge.ts). */
  purges?: { behind(): boolean },
) {
  const routes = new Hono<AppEnv>();
  routes.get('/health/live', (c) => c.json({ status: 'ok' }, 200, noStore));
  routes.get('/health/ready', async (c) => {
    try {
      await ping(database);
      // Redis is reported, never required: without it the replicas go on, sharing less.
      const checks: Record<string, string> = { database: 'ok' };
      if (redis) checks.redis = redis.status() === 'up' ? 'ok' : 'down';
      // Reported, never required either: a CDN that does not take purges fails no request.
      if (purges) checks.edgePurges = purges.behind() ? 'behind' : 'ok';
      return c.json({ status: 'ok', checks }, 200, noStore);
    } catch (error) {
      // Not ready, whatever the failure was; probes come every few seconds: throttled.
      logFailure(
        logger,
        { level: 'warn', message: 'not ready: the database cannot be reached', throttled: true },
        { err: error, requestId: c.get('requestId') },
      );
      const unavailable = new DomainError('UNAVAILABLE', unavailableMessage);
      const { status, headers, body } = restErrorAnswer(unavailable, {
        'cache-control': 'no-store',
      });
      return new Response(body, { status, headers });
    }
  });
  return routes;
}
