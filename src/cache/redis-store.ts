import type { Metrics } from '../observability/metrics.js';
import type { RedisConnection } from '../redis.js';
import { type CachedResponse, type CacheStore, fitsEntry, type Lookup } from './store.js';
import { changeTags, type Tag } from './tags.js';

/** Stores the entry and indexes it by its tags, only if no eviction happened since `since`. */
const SET_IF_CURRENT = `
if (redis.call('GET', KEYS[1]) or '0') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
for i = 3, #KEYS do
  redis.call('SADD', KEYS[i], KEYS[2])
  redis.call('PEXPIRE', KEYS[i], ARGV[3])
end
return 1`;

/**
 * Counts the eviction, then sets each tag's entries aside under a name of their own (entries
 * stored from now on are indexed afresh), in O(1) per tag. Returns the names to empty.
 */
const EVICT_START = `
local generation = redis.call('INCR', KEYS[1])
local aside = {}
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    local name = ARGV[1] .. generation .. ':' .. (i - 1)
    redis.call('RENAME', KEYS[i], name)
    aside[#aside + 1] = name
  end
end
return aside`;

/**
 * Removes up to ARGV[1] entries of a set put aside: one bounded step, whatever the set's size (an
 * unpacked list of some 8,000 arguments aborts a script). Returns how many it took and removed.
 */
const EVICT_CHUNK = `
local entries = redis.call('SPOP', KEYS[1], ARGV[1])
if #entries == 0 then return {0, 0} end
return {#entries, redis.call('DEL', unpack(entries))}`;

/** Counts an eviction and makes every entry stored before it a miss (the `floor`). */
const FENCE = `
local generation = redis.call('INCR', KEYS[1])
redis.call('SET', KEYS[2], generation)
return generation`;

/** What an entry is stored as: the response, and the generation it was computed at. */
type Stored = CachedResponse & { generation?: number };

export interface RedisCacheOptions {
  /** How long a response stays (ms); > 0. */
  ttlMs: number;
  /** The largest response kept (RESPONSE_CACHE_MAX_ENTRY_BYTES). */
  maxEntryBytes: number;
  /** How many entries one command evicts (RESPONSE_CACHE_EVICT_CHUNK). */
  evictChunk: number;
}

/**
 * The response cache in Redis, shared by the replicas: a write on any replica evicts, in Redis,
 * before that write answers, so no replica serves what it changed afterwards; the replica that
 * made the write evicts, once (the others hear of it, but have nothing of their own), in steps of
 * at most `evictChunk` entries however many a tag holds. An eviction that fails fences the cache:
 * every entry stored before it is a miss from then on (a `floor` generation that lookups read with
 * the entry), and until Redis takes the fence this replica misses everything. Redis being away
 * bypasses the cache (a lookup misses, nothing is stored).
 */
export class RedisCacheStore implements CacheStore {
  /** An eviction failed and the fence is not in Redis yet: every lookup misses. */
  #fencePending = false;
  #retry: NodeJS.Timeout | undefined;
  readonly #prefix: string;
  readonly #generation: string;
  readonly #floor: string;

  constructor(
    private readonly redis: RedisConnection,
    private readonly options: RedisCacheOptions,
    private readonly metrics: Metrics,
  ) {
    this.#prefix = `${redis.prefix}cache:`;
    this.#generation = `${this.#prefix}generation`;
    this.#floor = `${this.#prefix}floor`;
    redis.commands.on('ready', () => {
      if (this.#fencePending) void this.#fence();
    });
  }

  async lookup(key: string): Promise<Lookup> {
    // A miss whose result is never stored.
    if (this.#fencePending) return { response: undefined, generation: Number.NaN };
    try {
      const [text, generation, floor] = await this.redis.commands.mget(
        this.#entry(key),
        this.#generation,
        this.#floor,
      );
      const stored = text ? (JSON.parse(text) as Stored) : undefined;
      const fenced = stored && (stored.generation ?? 0) < Number(floor ?? 0);
      return {
        response: stored && !fenced ? withoutGeneration(stored) : undefined,
        generation: Number(generation ?? 0),
      };
    } catch (error) {
      this.redis.failed(error);
      return { response: undefined, generation: Number.NaN };
    }
  }

  async set(key: string, response: CachedResponse, tags: Iterable<Tag>, since: number) {
    if (Number.isNaN(since) || !fitsEntry(response, this.options.maxEntryBytes)) return false;
    const keys = [
      this.#generation,
      this.#entry(key),
      ...[...new Set(tags)].map((tag) => this.#tag(tag)),
    ];
    const stored: Stored = { ...response, generation: since };
    try {
      const written = await this.redis.commands.eval(
        SET_IF_CURRENT,
        keys.length,
        ...keys,
        String(since),
        JSON.stringify(stored),
        String(this.options.ttlMs),
      );
      return written === 1;
    } catch (error) {
      this.redis.failed(error);
      return false;
    }
  }

  /** Removes every response carrying one of the tags, for every replica; fences on a failure. */
  async evict(tags: Iterable<Tag>): Promise<void> {
    const keys = [this.#generation, ...[...new Set(tags)].map((tag) => this.#tag(tag))];
    let removed = 0;
    try {
      const aside = (await this.redis.commands.eval(
        EVICT_START,
        keys.length,
        ...keys,
        `${this.#prefix}evicting:`,
      )) as string[];
      for (const name of aside) {
        for (;;) {
          const [taken, deleted] = (await this.redis.commands.eval(
            EVICT_CHUNK,
            1,
            name,
            String(this.options.evictChunk),
          )) as [number, number];
          removed += deleted;
          if (taken < this.options.evictChunk) break;
        }
      }
    } catch (error) {
      this.redis.failed(error);
      this.#fencePending = true;
      await this.#fence();
    } finally {
      if (removed > 0) this.metrics.cacheEvictions.inc({ reason: 'write' }, removed);
    }
  }

  listen(feed: Parameters<CacheStore['listen']>[0]): () => void {
    return feed.subscribe((changes, origin) =>
      origin === 'local' ? this.evict(changes.flatMap(changeTags)) : undefined,
    );
  }

  #entry(key: string) {
    return `${this.#prefix}entry:${key}`;
  }

  #tag(tag: Tag) {
    return `${this.#prefix}tag:${tag}`;
  }

  /**
   * Makes every entry stored so far a miss, on every replica (after an eviction that failed, or
   * evictions missed while Redis was away); the entries themselves go with their TTL. Until Redis
   * takes it, it is tried again every second (and when the connection is back).
   */
  async #fence(): Promise<void> {
    try {
      await this.redis.commands.eval(FENCE, 2, this.#generation, this.#floor);
      this.#fencePending = false;
    } catch (error) {
      this.redis.failed(error);
      this.#retry ??= setTimeout(() => {
        this.#retry = undefined;
        // Not once the connection is closed for good (the app closed).
        if (this.#fencePending && this.redis.commands.status !== 'end') void this.#fence();
      }, 1000);
      this.#retry.unref();
    }
  }
}

function withoutGeneration({ generation: _, ...response }: Stored): CachedResponse {
  return response;
}
