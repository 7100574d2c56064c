import type { Metrics } from '../observability/metrics.js';
import type { RedisConnection } from '../redis.js';
import type { CachedResponse, CacheStore, Lookup } from './store.js';
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

/** Counts the eviction, then removes every entry of every tag. Returns the entries removed. */
const EVICT = `
redis.call('INCR', KEYS[1])
local removed = 0
for i = 2, #KEYS do
  local entries = redis.call('SMEMBERS', KEYS[i])
  if #entries > 0 then removed = removed + redis.call('DEL', unpack(entries)) end
  redis.call('DEL', KEYS[i])
end
return removed`;

/**
 * The response cache in Redis, shared by the replicas: a write on any replica evicts, in Redis,
 * before that write answers, so no replica serves what it changed afterwards; the replica that
 * made the write evicts, once (the others hear of it, but have nothing of their own). Redis being away
 * bypasses the cache (a lookup misses, nothing is stored); evictions missed meanwhile are made up
 * for by emptying the cache when Redis is back.
 */
export class RedisCacheStore implements CacheStore {
  #missedEvictions = false;
  readonly #prefix: string;
  readonly #generation: string;

  constructor(
    private readonly redis: RedisConnection,
    private readonly ttlMs: number,
    private readonly metrics: Metrics,
  ) {
    this.#prefix = `${redis.prefix}cache:`;
    this.#generation = `${this.#prefix}generation`;
    redis.commands.on('ready', () => {
      if (this.#missedEvictions) void this.#empty();
    });
  }

  async lookup(key: string): Promise<Lookup> {
    try {
      const [text, generation] = await this.redis.commands.mget(this.#entry(key), this.#generation);
      return {
        response: text ? (JSON.parse(text) as CachedResponse) : undefined,
        generation: Number(generation ?? 0),
      };
    } catch (error) {
      this.redis.failed(error);
      // A miss whose result is never stored.
      return { response: undefined, generation: Number.NaN };
    }
  }

  async set(key: string, response: CachedResponse, tags: Iterable<Tag>, since: number) {
    if (Number.isNaN(since)) return false;
    const keys = [
      this.#generation,
      this.#entry(key),
      ...[...new Set(tags)].map((tag) => this.#tag(tag)),
    ];
    try {
      const stored = await this.redis.commands.eval(
        SET_IF_CURRENT,
        keys.length,
        ...keys,
        String(since),
        JSON.stringify(response),
        String(this.ttlMs),
      );
      return stored === 1;
    } catch (error) {
      this.redis.failed(error);
      return false;
    }
  }

  /** Removes every response carrying one of the tags, for every replica. */
  async evict(tags: Iterable<Tag>): Promise<void> {
    const keys = [this.#generation, ...[...new Set(tags)].map((tag) => this.#tag(tag))];
    try {
      const removed = await this.redis.commands.eval(EVICT, keys.length, ...keys);
      if (typeof removed === 'number' && removed > 0)
        this.metrics.cacheEvictions.inc({ reason: 'write' }, removed);
    } catch (error) {
      this.redis.failed(error);
      this.#missedEvictions = true;
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

  /** Removes every cached response and counts an eviction (after Redis was away). */
  async #empty(): Promise<void> {
    try {
      await this.redis.commands.incr(this.#generation);
      let cursor = '0';
      do {
        const [next, keys] = await this.redis.commands.scan(
          cursor,
          'MATCH',
          `${this.#prefix}*`,
          'COUNT',
          500,
        );
        const stale = keys.filter((key) => key !== this.#generation);
        if (stale.length > 0) await this.redis.commands.del(...stale);
        cursor = next;
      } while (cursor !== '0');
      this.#missedEvictions = false;
    } catch (error) {
      this.redis.failed(error);
    }
  }
}
