import type { ChangeFeed } from '../domain/changes.js';
import { type CachedResults, resultsJson } from './result.js';
import type { Tag } from './tags.js';

/**
 * A response the cache keeps: what it answers a hit with, its strong ETag computed once. A REST
 * answer is kept as its body; a GraphQL answer as its results, apart from their cost reports (a
 * hit composes its answer from them and its own reports, `resultsJson`).
 */
export type CachedResponse = {
  /** The headers that belong to the answer (content type, X-Total-Count), not to one request. */
  headers: Record<string, string>;
  etag: string;
  /** What the answer's GraphQL operations used (UsageNote): a hit counts it for its client. */
  usage?: string | undefined;
} & ({ body: string } | { results: CachedResults });

/** A lookup's answer: the stored response (undefined on a miss) and the store's generation then. */
export interface Lookup {
  response: CachedResponse | undefined;
  generation: number;
}

/**
 * Where cached responses live: in this process (`MemoryCacheStore`), or in Redis so that replicas
 * share one cache and one eviction (`RedisCacheStore`). The generation counts evictions: a response
 * computed from reads that began at generation `g` is stored only while it is still `g`, otherwise
 * a write may have committed and evicted in between and the response be older than it.
 */
export interface CacheStore {
  lookup(key: string): Promise<Lookup>;
  /** Stores a response unless anything was evicted since `since`; returns whether it did. */
  set(key: string, response: CachedResponse, tags: Iterable<Tag>, since: number): Promise<boolean>;
  /**
   * Evicts on the committed changes of the feed, before `publish` returns (before the write
   * answers). Returns the function that stops it.
   */
  listen(feed: ChangeFeed): () => void;
}

/** What a response keeps of its answer, as text: REST's body, GraphQL's results without reports. */
const contentOf = (response: CachedResponse) =>
  'body' in response ? response.body : resultsJson(response.results);

/** The size a response takes in the cache's byte bound (its headers too: a CDN's tags can be long). */
export function responseBytes(response: CachedResponse): number {
  let bytes = contentOf(response).length + response.etag.length + (response.usage?.length ?? 0);
  for (const name in response.headers)
    bytes += name.length + (response.headers[name] as string).length;
  return bytes + 64;
}

/**
 * Whether a response is small enough to keep (RESPONSE_CACHE_MAX_ENTRY_BYTES): a larger one is
 * answered but not cached, so that a few large answers cannot fill the cache.
 */
export function fitsEntry(response: CachedResponse, maxBytes: number): boolean {
  const content = contentOf(response);
  // A UTF-16 unit is at most 3 bytes of UTF-8: most bodies need no count.
  if ((content.length + response.etag.length) * 3 <= maxBytes) return true;
  return Buffer.byteLength(content) + Buffer.byteLength(response.etag) <= maxBytes;
}
