import { describe, expect, it } from 'vitest';
import { MemoryCostBucketStore } from '../../src/rate-limit/cost-budget.js';
import { MemoryRateLimitStore } from '../../src/rate-limit/middleware.js';

// Without Redis a process keeps every client's budget in memory: callers from many addresses (or
// tokens with many subjects) must not grow it past RATE_LIMIT_MAX_CLIENTS.
describe('the in-memory budgets hold at most RATE_LIMIT_MAX_CLIENTS clients', () => {
  it('request windows: 10,000 distinct clients in one minute leave at most 100', async () => {
    const store = new MemoryRateLimitStore(100);
    for (let client = 0; client < 10_000; client++) {
      await store.hit(`ip:10.0.${client >> 8}.${client & 255}`, 60_000, 1000);
      expect(store.size).toBeLessThanOrEqual(100);
    }
    // A client that stays is still counted.
    await store.hit('ip:10.9.9.9', 60_000, 1000);
    expect((await store.hit('ip:10.9.9.9', 60_000, 1000)).count).toBe(2);
  });

  it('cost buckets: 10,000 distinct clients that spent points leave at most 100', async () => {
    const store = new MemoryCostBucketStore(100, () => 1000);
    const bucket = { capacity: 1000, perMs: 1000 / 60_000 };
    for (let client = 0; client < 10_000; client++) {
      await store.take(`sub:${client}`, 10, bucket);
      expect(store.size).toBeLessThanOrEqual(100);
    }
    await store.take('sub:spender', 600, bucket);
    expect(await store.take('sub:spender', 600, bucket)).toEqual({ taken: false, available: 400 });
  });
});
