import type { Context } from 'hono';
import type { AppEnv } from '../http/env.js';
import {
  entityTag,
  isCacheable,
  listTag,
  type ResponseStore,
  type Tag,
} from '../http/response-cache.js';
import type { Metrics } from '../observability/metrics.js';
import type { Route } from './route.js';

/** What a cached REST answer keeps: the rest (request id, rate limit, deprecation) is per request. */
const keptHeaders = ['content-type', 'x-total-count'];

interface CachedBody {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The tags of a route's answer, or undefined when its path parameter is not a canonical id. */
function routeTags(spec: Route['spec'], params: Record<string, string>): Tag[] | undefined {
  const cache = spec.cache;
  if (!cache) return undefined;
  if (!cache.idParam) return [listTag(cache.entity)];
  const raw = params[cache.idParam];
  if (raw === undefined || !/^\d{1,19}$/.test(raw)) return undefined;
  return [entityTag(cache.entity, BigInt(raw))];
}

/**
 * Answers a public REST read from the response cache, or runs it and keeps a 200 answer, keyed by
 * path and query string and tagged with what it contains. Requests with a token always run.
 */
export async function cachedRead(
  c: Context<AppEnv>,
  store: ResponseStore,
  metrics: Metrics,
  spec: Route['spec'],
  run: () => Promise<Response>,
): Promise<Response> {
  if (!isCacheable(c.req.raw)) return run();
  const tags = routeTags(spec, c.req.param() as Record<string, string>);
  if (!tags) return run();
  const url = new URL(c.req.url);
  const key = `rest ${url.pathname}${url.search}`;
  const { value, generation: since } = await store.lookup(key);
  const hit = value as CachedBody | undefined;
  if (hit) {
    metrics.cacheHits.inc({ edge: 'rest' });
    return c.body(hit.body, hit.status as 200, hit.headers);
  }
  metrics.cacheMisses.inc({ edge: 'rest' });
  const response = await run();
  if (response.status !== 200) return response;
  const body = await response.text();
  const headers: Record<string, string> = {};
  for (const name of keptHeaders) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  await store.set(key, { status: 200, headers, body }, tags, body.length, since);
  return new Response(body, response);
}
