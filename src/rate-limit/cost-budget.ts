import type { CostAccount, CostBudgetStatus, CostCharge } from '../http/env.js';

/** The shape of every client's bucket: how many points it holds, and how fast it fills. */
export interface Bucket {
  capacity: number;
  /** Points restored a millisecond. */
  perMs: number;
}

/**
 * Where the buckets live. In memory for one process; Redis (redis-store.ts) makes one budget hold
 * across replicas. A bucket nobody has touched is full.
 */
export interface CostBucketStore {
  /**
   * Refills `key`'s bucket for the time since it was last touched, then takes `points` from it
   * (a negative number gives points back, never past the capacity). A take the bucket cannot cover
   * takes nothing. `points` 0 only reads.
   */
  take(key: string, points: number, bucket: Bucket): Promise<{ taken: boolean; available: number }>;
}

/**
 * Buckets in a Map of at most `maxClients` (a missing bucket is a full one): when it is full, the
 * buckets that have refilled are dropped, then the oldest.
 */
export class MemoryCostBucketStore implements CostBucketStore {
  readonly #buckets = new Map<string, { available: number; at: number }>();

  constructor(
    private readonly maxClients: number,
    private readonly now: () => number = Date.now,
  ) {}

  async take(key: string, points: number, bucket: Bucket) {
    const now = this.now();
    const state = this.#buckets.get(key);
    let available = state
      ? Math.min(bucket.capacity, state.available + Math.max(0, now - state.at) * bucket.perMs)
      : bucket.capacity;
    const taken = points <= available;
    if (taken) available = Math.min(bucket.capacity, available - points);
    if (available >= bucket.capacity) {
      this.#buckets.delete(key);
    } else {
      if (!state && this.#buckets.size >= this.maxClients) this.#prune(now, bucket);
      this.#buckets.set(key, { available, at: now });
    }
    return { taken, available };
  }

  /** How many clients it holds now (at most `maxClients`). */
  get size(): number {
    return this.#buckets.size;
  }

  #prune(now: number, bucket: Bucket) {
    for (const [key, state] of this.#buckets) {
      if (state.available + (now - state.at) * bucket.perMs >= bucket.capacity)
        this.#buckets.delete(key);
    }
    // Down to 99%, so that a full scan happens once per hundredth of the bound, not per client.
    for (const key of this.#buckets.keys()) {
      if (this.#buckets.size < this.maxClients * 0.99) break;
      this.#buckets.delete(key);
    }
  }
}

/**
 * The per-client GraphQL cost budget (RATE_LIMIT_COST_PER_MINUTE): a token bucket per client that
 * holds `perMinute` points and refills continuously at `perMinute` a minute. An operation is
 * charged its estimated cost before it runs and refunded what it did not spend after; one the
 * bucket cannot cover is refused (429 RATE_LIMITED, Retry-After: when it could be covered).
 */
export class CostBudget {
  readonly bucket: Bucket;

  constructor(
    readonly perMinute: number,
    private readonly store: CostBucketStore,
  ) {
    this.bucket = { capacity: perMinute, perMs: perMinute / 60_000 };
  }

  /** One request's view of `client`'s budget: what it charged and refunded, and the last status. */
  account(client: string): CostAccount & { readonly lastStatus: CostBudgetStatus | undefined } {
    const { store, bucket } = this;
    const statusOf = (available: number) => this.#status(available);
    let last: CostBudgetStatus | undefined;
    const take = async (points: number) => {
      const result = await store.take(client, points, bucket);
      last = statusOf(result.available);
      return { taken: result.taken, status: last, available: result.available };
    };
    return {
      get lastStatus() {
        return last;
      },
      async charge(points): Promise<CostCharge> {
        const { taken, status, available } = await take(points);
        if (taken) return { allowed: true, status };
        // An operation costing more than the whole budget waits for a full bucket (and is refused
        // again): its message says so.
        const missing = Math.min(points, bucket.capacity) - available;
        return {
          allowed: false,
          status,
          retryAfterSeconds: Math.max(1, Math.ceil(missing / bucket.perMs / 1000)),
        };
      },
      async refund(points) {
        return points > 0 ? (await take(-points)).status : (last ?? (await take(0)).status);
      },
      async status() {
        return last ?? (await take(0)).status;
      },
    };
  }

  /** Seconds until a bucket holding `available` points is full again. */
  secondsToFull(status: CostBudgetStatus): number {
    const missing = status.maximumAvailable - status.currentlyAvailable;
    return missing <= 0 ? 0 : Math.ceil(missing / this.bucket.perMs / 1000);
  }

  #status(available: number): CostBudgetStatus {
    return {
      maximumAvailable: this.perMinute,
      currentlyAvailable: Math.max(0, Math.floor(available)),
      restoreRate: Math.round((this.perMinute / 60) * 100) / 100,
    };
  }
}
