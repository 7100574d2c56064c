import { LRUCache } from 'lru-cache';
import type { Change, ChangeFeed } from '../domain/changes.js';
import type { Metrics } from '../observability/metrics.js';

/**
 * What a cached response depends on, for eviction: `pet:42` (that pet), `pet:*` (which pets exist
 * and in what state: every list of pets, and every lookup that found none), and `*` (anything:
 * a response with a type the cache does not know is evicted by every write).
 */
export type Tag = string;

export const ANY: Tag = '*';

export type Entity = Change['entity'];

export const entityTag = (entity: Entity, id: bigint | number | string): Tag => `${entity}:${id}`;
export const listTag = (entity: Entity): Tag => `${entity}:*`;

/**
 * The tags a committed change evicts: its entity, and every list of its kind (a new pet joins
 * lists; a status or category change moves a pet between filtered lists; counts change).
 */
export function changeTags(change: Change): Tag[] {
  const id = change.entity === 'inventory' ? change.petId : change.id;
  return [entityTag(change.entity, id), listTag(change.entity), ANY];
}

/** Only requests without a token are cached: nothing in them can depend on a caller's scopes. */
export const isCacheable = (request: Request) => !request.headers.has('authorization');

export interface ResponseCacheOptions {
  /** How long a response stays (ms); > 0. */
  ttlMs: number;
  /** At most this many responses... */
  maxEntries?: number;
  /** ...taking at most this many bytes (their JSON), whichever bound comes first. */
  maxBytes?: number;
  metrics: Metrics;
}

/** A lookup's answer: the stored value (undefined on a miss) and the store's generation then. */
export interface Lookup {
  value: unknown;
  generation: number;
}

/**
 * Where cached responses live: in this process (`ResponseCache`), or in Redis so that replicas
 * share one cache and one eviction (`RedisResponseCache`). The generation counts evictions: a
 * response computed from reads that began at generation `g` is stored only while it is still `g`,
 * otherwise a write may have committed and evicted in between and the response be older than it.
 */
export interface ResponseStore {
  lookup(key: string): Promise<Lookup>;
  /** Stores a response unless anything was evicted since `since`; returns whether it did. */
  set(
    key: string,
    value: unknown,
    tags: Iterable<Tag>,
    bytes: number,
    since: number,
  ): Promise<boolean>;
  /** Removes every response carrying one of the tags. */
  evict(tags: Iterable<Tag>): Promise<void>;
  /** Evicts on every committed change of the feed, before `publish` returns (before the write answers). */
  listen(feed: ChangeFeed): () => void;
}

interface Entry {
  value: unknown;
  tags: readonly Tag[];
}

/**
 * The in-memory response cache both edges share: public reads by key (GraphQL: operation and
 * variables; REST: path and query), each tagged with what it contains, evicted by tag when a
 * write is committed. Bounded by entries and bytes (least recently used go first) and by a TTL.
 */
export class ResponseCache implements ResponseStore {
  readonly #entries: LRUCache<string, Entry>;
  readonly #byTag = new Map<Tag, Set<string>>();
  readonly #metrics: Metrics;
  #generation = 0;

  constructor({
    ttlMs,
    maxEntries = 10_000,
    maxBytes = 64 * 1024 * 1024,
    metrics,
  }: ResponseCacheOptions) {
    this.#metrics = metrics;
    this.#entries = new LRUCache<string, Entry>({
      max: maxEntries,
      maxSize: maxBytes,
      ttl: ttlMs,
      // Expired entries are not read; they leave the bounds as newer ones arrive.
      allowStale: false,
      dispose: (entry, key, reason) => {
        this.#unindex(key, entry.tags);
        if (reason === 'evict') this.#metrics.cacheEvictions.inc({ reason: 'capacity' });
        else if (reason === 'expire') this.#metrics.cacheEvictions.inc({ reason: 'expired' });
        else if (reason === 'delete') this.#metrics.cacheEvictions.inc({ reason: 'write' });
      },
    });
  }

  async lookup(key: string): Promise<Lookup> {
    return { value: this.#entries.get(key)?.value, generation: this.#generation };
  }

  async set(key: string, value: unknown, tags: Iterable<Tag>, bytes: number, since: number) {
    if (since !== this.#generation) return false;
    const entry = { value, tags: [...new Set(tags)] };
    // An entry larger than the whole budget is simply not kept.
    if (bytes > this.#entries.maxSize) return false;
    this.#entries.set(key, entry, { size: Math.max(1, bytes) });
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

  async evict(tags: Iterable<Tag>): Promise<void> {
    this.#generation++;
    for (const tag of tags) {
      const keys = this.#byTag.get(tag);
      if (!keys) continue;
      for (const key of [...keys]) this.#entries.delete(key);
    }
  }

  listen(feed: ChangeFeed): () => void {
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
