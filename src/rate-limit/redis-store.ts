import type { RedisConnection } from '../redis.js';
import { type Bucket, type CostBucketStore, MemoryCostBucketStore } from './cost-budget.js';
import { MemoryRateLimitStore, type RateLimitStore } from './middleware.js';

/**
 * Rate-limit counts in Redis, so a client's budget holds across replicas: one counter per client
 * and window, the windows aligned on the clock so every replica counts into the same one. While
 * Redis cannot be reached each replica counts on its own (fail open: never stricter than the
 * shared budget on any one replica, and never an error because of Redis).
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #fallback: MemoryRateLimitStore;

  /** `maxClients`: the windows each replica keeps on its own while Redis is away. */
  constructor(
    private readonly redis: RedisConnection,
    maxClients: number,
  ) {
    this.#fallback = new MemoryRateLimitStore(maxClients);
  }

  async hit(key: string, windowMs: number, now: number) {
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const counter = `${this.redis.prefix}rate:${key}:${windowStart}`;
    try {
      const results = await this.redis.commands
        .multi()
        .incr(counter)
        .pexpire(counter, windowMs)
        .exec();
      const count = results?.[0]?.[1];
      if (typeof count !== 'number') throw new Error('Redis answered no count');
      return { count, resetAt: windowStart + windowMs };
    } catch (error) {
      this.redis.failed(error);
      return this.#fallback.hit(key, windowMs, now);
    }
  }
}

/**
 * One atomic step on a client's cost bucket, on Redis's clock so that every replica agrees on
 * the time: refill for the time since it was last touched, take the points if they are there
 * (a negative number gives back), and keep the bucket only while it is not full (a missing bucket
 * is a full one, so the key expires once it would have refilled).
 * KEYS[1] the bucket; ARGV capacity, points restored a millisecond, points to take.
 * Answers { 1 if taken else 0, the points left (a string: Lua numbers would be truncated) }.
 */
const takeScript = `
local capacity = tonumber(ARGV[1])
local perMs = tonumber(ARGV[2])
local points = tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'available', 'at')
local available = tonumber(state[1])
local at = tonumber(state[2])
if available == nil or at == nil then
  available = capacity
else
  available = math.min(capacity, available + math.max(0, now - at) * perMs)
end
local taken = 0
if points <= available then
  available = math.min(capacity, available - points)
  taken = 1
end
if available >= capacity then
  redis.call('DEL', KEYS[1])
else
  redis.call('HSET', KEYS[1], 'available', tostring(available), 'at', tostring(now))
  redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - available) / perMs) + 1000)
end
return { taken, tostring(available) }
`;

type TakeCommand = (
  key: string,
  capacity: number,
  perMs: number,
  points: number,
) => Promise<[number, string]>;

/**
 * Cost buckets in Redis, so a client's cost budget holds across replicas: one hash per client,
 * changed only by one Lua script (atomic: two replicas charging at once cannot both spend the same
 * points). While Redis cannot be reached each replica keeps its own buckets (fail open, as the
 * request counts do).
 */
export class RedisCostBucketStore implements CostBucketStore {
  readonly #fallback: MemoryCostBucketStore;
  readonly #take: TakeCommand;

  /** `maxClients`: the buckets each replica keeps on its own while Redis is away. */
  constructor(
    private readonly redis: RedisConnection,
    maxClients: number,
  ) {
    this.#fallback = new MemoryCostBucketStore(maxClients);
    const name = 'petstoreTakeCostPoints';
    if (!(name in redis.commands))
      redis.commands.defineCommand(name, { numberOfKeys: 1, lua: takeScript });
    const commands = redis.commands as unknown as Record<string, TakeCommand>;
    this.#take = (...args) => (commands[name] as TakeCommand).call(redis.commands, ...args);
  }

  async take(key: string, points: number, bucket: Bucket) {
    try {
      const [taken, available] = await this.#take(
        `${this.redis.prefix}cost:${key}`,
        bucket.capacity,
        bucket.perMs,
        points,
      );
      return { taken: taken === 1, available: Number(available) };
    } catch (error) {
      this.redis.failed(error);
      return this.#fallback.take(key, points, bucket);
    }
  }
}
