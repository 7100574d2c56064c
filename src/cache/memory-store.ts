import { LRUCache } from 'lru-cache';
import type { Metrics } from '../observability/metrics.js';
import {
  type CachedResponse,
  type CacheStore,
  fitsEntry,
  type Lookup,
  responseBytes,
} from './store.js';
import { changeTags, type Tag } from './tags.js';

export interface MemoryCacheOptions {
  /** How long a response stays (ms); > 0. */
  ttlMs: number;
  /** What the responses, their keys and tags may take (RESPONSE_CACHE_MAX_BYTES). */
  maxBytes: number;
  /** The largest response kept (RESPONSE_CACHE_MAX_ENTRY_BYTES). */
  maxEntryBytes: number;
  metrics: Metrics;
}

interface Entry {
  response: CachedResponse;
  tags: readonly Tag[];
}

/**
 * The response cache of one process: public reads by key, each tagged with what it contains,
 * evicted by tag when a write is committed (here or, through the change feed, on another replica).
 * Bounded in bytes (least recently used go first) and by a TTL.
 */
export class MemoryCacheStore implements CacheStore {
  readonly #entries: LRUCache<string, Entry>;
  readonly #byTag = new Map<Tag, Set<string>>();
  readonly #maxEntryBytes: number;
  #generation = 0;

  constructor({ ttlMs, maxBytes, maxEntryBytes, metrics }: MemoryCacheOptions) {
    this.#maxEntryBytes = maxEntryBytes;
    this.#entries = new LRUCache<string, Entry>({
      maxSize: maxBytes,
      ttl: ttlMs,
      // Expired entries are not read; they leave the bounds as newer ones arrive.
      allowStale: false,
      dispose: (entry, key, reason) => {
        this.#unindex(key, entry.tags);
        if (reason === 'evict') metrics.cacheEvictions.inc({ reason: 'capacity' });
        else if (reason === 'expire') metrics.cacheEvictions.inc({ reason: 'expired' });
        else if (reason === 'delete') metrics.cacheEvictions.inc({ reason: 'write' });
      },
    });
  }

  async lookup(key: string): Promise<Lookup> {
    return { response: this.#entries.get(key)?.response, generation: this.#generation };
  }

  async set(key: string, response: CachedResponse, tags: Iterable<Tag>, since: number) {
    if (since !== this.#generation || !fitsEntry(response, this.#maxEntryBytes)) return false;
    const entry = { response, tags: [...new Set(tags)] };
    // The answer, its key, and its tags in the tag index.
    let bytes = responseBytes(response) + key.length;
    for (const tag of entry.tags) bytes += tag.length + key.length + 32;
    // A response larger than the whole budget is simply not kept.
    if (bytes > this.#entries.maxSize) return false;
    this.#entries.set(key, entry, { size: bytes });
    if (this.#entries.peek(key) !== entry) return false;
    for (const tag of entry.tags) {
      let keys = this.#byTag.get(tag);
      if (!keys) {
        keys = new Set();
        this.#byTag.set(tag, keys);
      }
      keys.add(key);
    }
    return true;
  }

  /** Removes every response carrying one of the tags. */
  evict(tags: Iterable<Tag>): void {
    this.#generation++;
    for (const tag of tags) {
      const keys = this.#byTag.get(tag);
      if (!keys) continue;
      for (const key of [...keys]) this.#entries.delete(key);
    }
  }

  listen(feed: Parameters<CacheStore['listen']>[0]): () => void {
    // Every replica keeps its own cache: changes made elsewhere evict here too.
    return feed.subscribe((changes) => this.evict(changes.flatMap(changeTags)));
  }

  get size(): number {
    return this.#entries.size;
  }

  #unindex(key: string, tags: readonly Tag[]): void {
    for (const tag of tags) {
      const keys = this.#byTag.get(tag);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) this.#byTag.delete(tag);
    }
  }
}
