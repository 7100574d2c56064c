import type { CacheFenceRow } from '../db/cache-fence.js';
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

/**
 * Counts an eviction and makes every entry stored before it a miss (the `floor`); records that
 * Redis has taken the database's fence up to epoch ARGV[1] (`fenced`).
 */
const FENCE = `
local generation = redis.call('INCR', KEYS[1])
redis.call('SET', KEYS[2], generation)
if tonumber(redis.call('GET', KEYS[3]) or '0') < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[3], ARGV[1])
end
return generation`;

/**
 * How long a read of the database's fence is trusted (ms): a replica serves no hit later than this
 * after its last read of it began, and a write that could fence only in the database waits this
 * long before it answers, so that every replica serving hits by then has read the raised fence.
 */
const FENCE_LEASE_MS = 1000;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** What an entry is stored as: the response, and the generation it was computed at. */
type Stored = CachedResponse & { generation?: number };

/**
 * The format of `Stored`, in its key: replicas of different versions share the tags, the
 * generation and the fence, but each reads only the entries it can answer from (an earlier format
 * kept a GraphQL answer's body; its entries go with their TTL).
 */
const ENTRY_FORMAT = 'v2';

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
 * at most `evictChunk` entries however many a tag holds. Redis being away bypasses the cache (a
 * lookup misses, nothing is stored).
 *
 * An eviction that fails fences the cache: every entry stored before it becomes a miss (a `floor`
 * generation that lookups read with the entry). Redis may refuse the fence too (away from this
 * replica only, or pausing writes as its FAILOVER does, while the other replicas still read it), so
 * the fence is raised first in the database, which every replica can read: a replica serves a hit
 * only while its last read of that row began under `FENCE_LEASE_MS` ago and Redis has taken a fence
 * at least as high (`fenced`); a replica that finds Redis behind misses and makes Redis take it.
 * When Redis does not take it at once, the write waits out the lease before it answers: by then
 * every replica that serves hits has read the raise. Lookups read the row again once half the lease
 * has passed (one read at a time, in the background while the lease holds): a replica with traffic
 * reads it about twice a second, an idle one never.
 */
export class RedisCacheStore implements CacheStore {
  /** The highest fence epoch this replica has read in the database or raised there. */
  #epoch = 0;
  /** Until when (performance.now()) the last read of the database's fence is trusted. */
  #trustedUntil = 0;
  /** An eviction failed and the database took no fence either: this replica misses everything. */
  #unfenced = false;
  /** The fence being applied in Redis for lookups that found it behind, and its epoch. */
  #applying: { epoch: number; done: Promise<boolean> } | undefined;
  /** The read of the database's fence under way: whether it succeeded. */
  #reading: Promise<boolean> | undefined;
  #retry: NodeJS.Timeout | undefined;
  readonly #prefix: string;
  readonly #generation: string;
  readonly #floor: string;
  readonly #fenced: string;

  constructor(
    private readonly redis: RedisConnection,
    private readonly fence: CacheFenceRow,
    private readonly options: RedisCacheOptions,
    private readonly metrics: Metrics,
  ) {
    this.#prefix = `${redis.prefix}cache:`;
    this.#generation = `${this.#prefix}generation`;
    this.#floor = `${this.#prefix}floor`;
    this.#fenced = `${this.#prefix}fenced`;
  }

  async lookup(key: string): Promise<Lookup> {
    // A miss whose result is never stored.
    if (this.#unfenced) return { response: undefined, generation: Number.NaN };
    const fenceKnown = this.#fenceKnown();
    try {
      const [text, generation, floor, fenced] = await this.redis.commands.mget(
        this.#entry(key),
        this.#generation,
        this.#floor,
        this.#fenced,
      );
      const known = fenceKnown === true || (await fenceKnown);
      const behind = Number(fenced ?? 0) < this.#epoch;
      if (behind) void this.#catchUp();
      // Storing stays safe either way: a fence taken later is above what is stored now.
      const stored = known && !behind && text ? (JSON.parse(text) as Stored) : undefined;
      const belowFloor = stored && (stored.generation ?? 0) < Number(floor ?? 0);
      return {
        response: stored && !belowFloor ? withoutGeneration(stored) : undefined,
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
      await this.#fenceEverywhere();
    } finally {
      if (removed > 0) this.metrics.cacheEvictions.inc({ reason: 'write' }, removed);
    }
  }

  listen(feed: Parameters<CacheStore['listen']>[0]): () => void {
    const stop = feed.subscribe((changes, origin) =>
      origin === 'local' ? this.evict(changes.flatMap(changeTags)) : undefined,
    );
    return () => {
      clearTimeout(this.#retry);
      stop();
    };
  }

  /**
   * Whether this replica knows the database's fence as it was under a lease ago: at once while the
   * lease holds (reading it again in the background once half of it has passed), else after a read.
   */
  #fenceKnown(): true | Promise<boolean> {
    const now = performance.now();
    if (now <= this.#trustedUntil - FENCE_LEASE_MS / 2) return true;
    const reading = this.#readFence();
    return now <= this.#trustedUntil ? true : reading;
  }

  #readFence(): Promise<boolean> {
    this.#reading ??= (async () => {
      const began = performance.now();
      try {
        this.#epoch = Math.max(this.#epoch, await this.fence.read());
        this.#trustedUntil = began + FENCE_LEASE_MS;
        return true;
      } catch {
        // The database is away: lookups miss until a read succeeds.
        return false;
      } finally {
        this.#reading = undefined;
      }
    })();
    return this.#reading;
  }

  #entry(key: string) {
    return `${this.#prefix}entry:${ENTRY_FORMAT}:${key}`;
  }

  #tag(tag: Tag) {
    return `${this.#prefix}tag:${tag}`;
  }

  /**
   * After an eviction that failed: makes every entry stored so far a miss on every replica, before
   * the write answers (the entries themselves go with their TTL). The fence is raised in the
   * database, then applied in Redis; when Redis does not take it, the write waits out the lease.
   * When neither takes it, this replica misses everything and tries again every second.
   */
  async #fenceEverywhere(): Promise<void> {
    let raisedAt: number | undefined;
    try {
      this.#epoch = Math.max(this.#epoch, await this.fence.raise());
      raisedAt = performance.now();
    } catch {
      // Redis alone may still take it.
    }
    const applied = await this.#applyFence(this.#epoch);
    this.#unfenced = !applied && raisedAt === undefined;
    if (this.#unfenced) {
      this.#retry ??= setTimeout(() => {
        this.#retry = undefined;
        // Not once the connection is closed for good (the app closed).
        if (this.#unfenced && this.redis.commands.status !== 'end') void this.#fenceEverywhere();
      }, 1000);
      this.#retry.unref();
    } else if (!applied && raisedAt !== undefined) {
      await delay(raisedAt + FENCE_LEASE_MS - performance.now());
    }
  }

  /** Makes Redis take the database's fence that a lookup found it behind, once at a time. */
  async #catchUp(): Promise<void> {
    const epoch = this.#epoch;
    if (this.#applying && this.#applying.epoch >= epoch) return;
    const done = this.#applyFence(epoch);
    this.#applying = { epoch, done };
    await done;
    if (this.#applying?.done === done) this.#applying = undefined;
  }

  /** Applies the fence of `epoch` in Redis; answers whether Redis took it. */
  async #applyFence(epoch: number): Promise<boolean> {
    try {
      await this.redis.commands.eval(
        FENCE,
        3,
        this.#generation,
        this.#floor,
        this.#fenced,
        String(epoch),
      );
      return true;
    } catch (error) {
      this.redis.failed(error);
      return false;
    }
  }
}

function withoutGeneration({ generation: _, ...response }: Stored): CachedResponse {
  return response;
}
