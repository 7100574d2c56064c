import { hash } from 'node:crypto';
import type { Context, MiddlewareHandler, Next } from 'hono';
import type { AppEnv } from '../http/env.js';
import { answerFromParts, replaceResponse } from '../http/response-header.js';
import { completeAnswer, isStreamedType } from '../incremental/render.js';
import type { Metrics } from '../observability/metrics.js';
import { type CachedResults, cachedResults, resultsJson } from './result.js';
import type { CachedResponse, CacheStore } from './store.js';
import {
  ifNoneMatch,
  PRIVATE_CACHE_CONTROL,
  PUBLIC_CACHE_CONTROL,
  strongETag,
} from './validators.js';

/** What a cached answer keeps of its headers: the rest (request id, limits, CORS) is per request. */
const keptHeaders = ['content-type', 'x-total-count'];

const isRead = (method: string) => method === 'GET' || method === 'HEAD';

/**
 * The key of a public read the cache may answer, or undefined: a request with a token, a write, or
 * anything but GET/HEAD on /api. A GraphQL POST counts by its body (document, variables, operation
 * name), read here (`body`, handed on by `handOnBody` on a miss); on /graphql the negotiated media
 * type is part of the answer, so `Accept` is part of the key.
 */
async function cacheKey(
  c: Context<AppEnv>,
): Promise<{ key: string; body: string | undefined } | undefined> {
  if (c.req.header('authorization') !== undefined) return undefined;
  const { method, url } = c.req.raw;
  const graphql = c.req.path === '/graphql';
  let body: string | undefined;
  if (!isRead(method)) {
    if (method !== 'POST' || !graphql || !/json/i.test(c.req.header('content-type') ?? ''))
      return undefined;
    body = await c.req.raw.text();
  }
  // The path and query as sent: no URL object on the way to a hit (a path spelled two ways is
  // two entries of the same answer, each evicted by its tags).
  const target = url.slice(url.indexOf('/', url.indexOf('//') + 2));
  const accept = graphql ? (c.req.header('accept') ?? '') : '';
  const key = hash(
    'sha256',
    `${isRead(method) ? 'GET' : method} ${target}\n${accept}\n${body ?? ''}`,
    'base64url',
  );
  return { key, body };
}

/**
 * Gives the edge the request whose body the key read. Only on a miss: a hit never builds it (a
 * web `Request` and its signal are a good part of what a hit would otherwise cost).
 */
function handOnBody(c: Context<AppEnv>, body: string | undefined): void {
  if (body === undefined) return;
  const { method, url, headers, signal } = c.req.raw;
  // The client's disconnection still reaches the edge (an event stream ends at once).
  c.req.raw = new Request(url, { method, headers, body, signal });
}

/**
 * A GraphQL answer's JSON without its cost reports: what its ETag covers. The report is per caller
 * and per moment (the caller's budget), so the tag stays the same while the data does, as it must
 * for If-None-Match.
 */
function withoutCostReports(body: string): string {
  const parsed: unknown = JSON.parse(body);
  for (const result of Array.isArray(parsed) ? parsed : [parsed]) {
    const extensions = (result as { extensions?: Record<string, unknown> } | null)?.extensions;
    if (!extensions) continue;
    delete extensions.cost;
    if (Object.keys(extensions).length === 0)
      delete (result as { extensions?: unknown }).extensions;
  }
  return JSON.stringify(parsed);
}

/**
 * The answer of kept GraphQL results with the reports of this request: each result's requested
 * cost, as a cold request reports it, and nothing charged (a hit runs nothing).
 */
async function withCostReports(c: Context<AppEnv>, results: CachedResults): Promise<string> {
  const status = await c.get('costAccount')?.status();
  return resultsJson(results, ({ requestedQueryCost }) => ({
    requestedQueryCost,
    ...(status ? { throttleStatus: status } : {}),
  }));
}

const cacheControl = (c: Context<AppEnv>) =>
  c.req.header('authorization') === undefined ? PUBLIC_CACHE_CONTROL : PRIVATE_CACHE_CONTROL;

interface Content {
  body: string;
  headers: Readonly<Record<string, string>>;
}

/** An answer's body and headers (lower-case names). */
async function contentOf(response: Response): Promise<Content> {
  return { body: await response.text(), headers: Object.fromEntries(response.headers) };
}

/** A 200 JSON answer's body and headers: the parts the edge made it of, else read back from it. */
async function jsonContentOf(c: Context<AppEnv>): Promise<Content | undefined> {
  const made = c.get('answerParts');
  if (made?.response === c.res) return made;
  return isJson200(c.res) ? contentOf(c.res) : undefined;
}

/** Validators (and the edge's headers, `edge`) on a 200 JSON answer to a read that is not kept. */
async function validate(
  c: Context<AppEnv>,
  edge?: Readonly<Record<string, string>>,
): Promise<void> {
  const content = await jsonContentOf(c);
  if (content) addValidators(c, content, edge);
}

/**
 * A 200 answer with its validators, or 304 when `If-None-Match` names its tag (GET and HEAD).
 * `headers` are lower-case names, as a web `Headers` gives them; `edge`, what a CDN reads of a
 * public answer (its tags, its lifetime), joins them.
 */
function withValidators(
  c: Context<AppEnv>,
  body: string,
  headers: Readonly<Record<string, string>>,
  etag: string,
  edge?: Readonly<Record<string, string>>,
): Response {
  const validated: Record<string, string> = {};
  for (const name in headers) validated[name] = headers[name] as string;
  if (edge) for (const name in edge) validated[name] = edge[name] as string;
  validated.etag = etag;
  validated['cache-control'] = cacheControl(c);
  if (ifNoneMatch(c.req.header('if-none-match'), etag)) {
    delete validated['content-type'];
    delete validated['content-length'];
    return new Response(null, { status: 304, headers: validated });
  }
  return answerFromParts(c, body, validated);
}

/**
 * Validators on an answer that is not cached: its ETag as the edge set it (REST computes it where
 * it writes the JSON), else a hash of its body (of a GraphQL one, without its cost report).
 */
function addValidators(
  c: Context<AppEnv>,
  { body, headers }: Content,
  edge?: Readonly<Record<string, string>>,
): void {
  const etag =
    headers.etag ?? strongETag(c.req.path === '/graphql' ? withoutCostReports(body) : body);
  replaceResponse(c, withValidators(c, body, headers, etag, edge));
}

/**
 * The answer of a hit: the stored body, or GraphQL results with reports; its ETag on a read. A
 * streamed query's (multipart or event stream) is its complete result, in one part.
 */
async function fromCache(c: Context<AppEnv>, cached: CachedResponse): Promise<Response> {
  const body = 'body' in cached ? cached.body : await withCostReports(c, cached.results);
  const type = cached.headers['content-type'];
  if (isStreamedType(type))
    return new Response(completeAnswer(body, type as string), {
      status: 200,
      headers: { ...cached.headers, 'cache-control': cacheControl(c) },
    });
  // A POST gets what belongs to the answer, not what a CDN would read of a GET's.
  if (!isRead(c.req.method))
    return new Response(body, { status: 200, headers: kept(cached.headers) });
  return withValidators(c, body, cached.headers, cached.etag);
}

/** The headers of an answer that belong to it (`keptHeaders`), wherever it goes. */
function kept(answered: Readonly<Record<string, string>>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of keptHeaders) {
    const value = answered[name];
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}

/** Whether a response is a 200 JSON answer (never an event stream, which would never end). */
const isJson200 = (response: Response) =>
  response.status === 200 && /json/i.test(response.headers.get('content-type') ?? '');

export interface ResponseCacheOptions {
  /** Where responses are kept; none when the cache is off (the validators still apply). */
  store: CacheStore | undefined;
  metrics: Metrics;
  /**
   * The headers a CDN reads of a public answer the cache may keep, from its tags (src/edge-cache/),
   * or undefined when answers carry none. Kept with the entry: a hit answers them as they were.
   */
  edgeHeaders?: ((tags: readonly string[]) => Record<string, string>) | undefined;
}

/**
 * The response cache and HTTP validators of both edges, after the rate limit and before either
 * edge runs:
 * - a public read (no token) that the cache holds is answered here, with its stored ETag: no
 *   GraphQL parsing, no cost rule, no database; it costs one request of the request budget and no
 *   cost points (its `extensions.cost` reports the requested cost a cold request reported, kept
 *   with the answer, and the caller's budget);
 * - otherwise the edge runs; if it said what its answer holds (`cacheable`, see AppEnv) and the
 *   answer is a 200, it is kept, tagged, unless a write evicted since the lookup;
 * - every 200 JSON answer to GET or HEAD gets a strong `ETag` (a hash of its body, unless the
 *   edge named the resource's version) and `Cache-Control` (`no-cache` without a token,
 *   `private, no-store` with one), and `If-None-Match` naming the current tag answers 304 with no
 *   body.
 */
export function responseCache({
  store,
  metrics,
  edgeHeaders,
}: ResponseCacheOptions): MiddlewareHandler<AppEnv> {
  const validated = async (c: Context<AppEnv>, next: Next) => {
    await next();
    await validate(c);
  };
  // Not async: a POST or another write (a GraphQL operation) gets no validators, and no promise here.
  const uncached: MiddlewareHandler<AppEnv> = (c, next) =>
    isRead(c.req.method) ? validated(c, next) : next();
  if (!store) return edgeHeaders ? taggedOnly(edgeHeaders, uncached) : uncached;
  return async (c, next) => {
    const keyed = await cacheKey(c);
    if (keyed === undefined) return uncached(c, next);
    const { key } = keyed;
    const edge = c.req.path === '/graphql' ? 'graphql' : 'rest';
    const { response: cached, generation } = await store.lookup(key);
    if (cached) {
      metrics.cacheHits.inc({ edge });
      const note = c.get('usageNote');
      if (note && cached.usage) note.fromCache = cached.usage;
      return await fromCache(c, cached);
    }
    metrics.cacheMisses.inc({ edge });
    handOnBody(c, keyed.body);
    let tags: readonly string[] | undefined;
    let results: CachedResults | undefined;
    let later: (() => void) | undefined;
    c.set('cacheable', (holds, answered) => {
      tags = holds;
      if (answered) results = cachedResults(answered);
      later?.();
    });
    await next();
    const type = edge === 'graphql' ? c.res.headers.get('content-type') : null;
    if (c.res.status === 200 && isStreamedType(type)) {
      // A streamed answer is kept as its complete result, once its last part has gone (or at
      // once when it is one part); the lookup's generation refuses it if a write evicted since.
      const keep = () => {
        if (!tags || !results) return;
        const response: CachedResponse = {
          headers: { 'content-type': type as string },
          results,
          etag: strongETag(resultsJson(results)),
        };
        store.set(key, response, tags, generation).catch(() => {});
      };
      if (results) keep();
      else later = keep;
      return;
    }
    // A GraphQL answer is kept as its results, which the edge hands over with its tags.
    if (!tags || (edge === 'graphql' && !results))
      return isRead(c.req.method) ? validate(c) : undefined;
    const content = await jsonContentOf(c);
    if (!content) return;
    const { body, headers: answered } = content;
    const headers = kept(answered);
    // A public read's: a POST's answer carries none, its hits leave them out (`fromCache`).
    const forCdn = isRead(c.req.method) ? edgeHeaders?.(tags) : undefined;
    if (forCdn) Object.assign(headers, forCdn);
    const usage = c.get('usageNote')?.coordinates;
    const response: CachedResponse = {
      headers,
      ...(results ? { results } : { body }),
      // The edge's (a REST resource's version), else a hash of what is kept (without reports).
      etag: answered.etag ?? strongETag(results ? resultsJson(results) : body),
      ...(usage ? { usage } : {}),
    };
    await store.set(key, response, tags, generation);
    const answer = isRead(c.req.method)
      ? withValidators(c, body, answered, response.etag, forCdn)
      : new Response(body, c.res);
    replaceResponse(c, answer);
  };
}

/**
 * With the cache off and the edge headers on: a public read still tells what its answer holds
 * (`cacheable`), for its tags alone, which its answer carries with its validators.
 */
function taggedOnly(
  edgeHeaders: (tags: readonly string[]) => Record<string, string>,
  uncached: MiddlewareHandler<AppEnv>,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!isRead(c.req.method) || c.req.header('authorization') !== undefined)
      return uncached(c, next);
    let tags: readonly string[] | undefined;
    c.set('cacheable', (holds) => {
      tags = holds;
    });
    await next();
    if (tags !== undefined && c.res.status === 200) await validate(c, edgeHeaders(tags));
    else await validate(c);
  };
}
