import type { RedisConnection } from '../redis.js';
import { MemoryRateLimitStore, type RateLimitStore } from './middleware.js';

/**
 * Rate-limit counts in Redis, so a client's budget holds across replicas: one counter per client
 * and window, the windows aligned on the clock so every replica counts into the same one. While
 * Redis cannot be reached each replica counts on its own (fail open: never stricter than the
 * shared budget on any one replica, and never an error because of Redis).
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #fallback = new MemoryRateLimitStore();

  constructor(private readonly redis: RedisConnection) {}

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
