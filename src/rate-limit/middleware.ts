import type { Context, MiddlewareHandler } from 'hono';
import type { Viewer } from '../domain/context.js';
import type { AppEnv, CostBudgetStatus } from '../http/env.js';
import { errorResponse } from '../http/error-response.js';
import type { CostBudget } from './cost-budget.js';

/**
 * Where request counts live. In memory for one process; a shared store (Redis, the database)
 * implementing the same call makes the limit hold across replicas.
 */
export interface RateLimitStore {
  /** Counts one request for `key` in the window containing `now`; returns the count so far. */
  hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
}

/** Fixed one-minute windows per client, kept in a Map (expired windows are dropped lazily). */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #windows = new Map<string, { count: number; resetAt: number }>();

  async hit(key: string, windowMs: number, now: number) {
    let window = this.#windows.get(key);
    if (!window || window.resetAt <= now) {
      if (this.#windows.size > 10_000) this.#prune(now);
      window = { count: 0, resetAt: now + windowMs };
      this.#windows.set(key, window);
    }
    window.count++;
    return { ...window };
  }

  #prune(now: number) {
    for (const [key, window] of this.#windows) if (window.resetAt <= now) this.#windows.delete(key);
  }
}

const WINDOW_MS = 60_000;

/** The GraphQL path: the one whose requests the cost budget charges. */
const GRAPHQL_PATH = '/graphql';

/** Who a caller counts as for per-client bounds: the token's subject, else the peer address. */
export function clientKey(viewer: Viewer, address: string): string {
  return viewer.authenticated && viewer.subject ? `sub:${viewer.subject}` : `ip:${address}`;
}

export interface RateLimitOptions {
  /** Requests per client and minute in clock-aligned windows (RATE_LIMIT_PER_MINUTE). */
  requests?: { perMinute: number; store: RateLimitStore } | undefined;
  /** The GraphQL cost budget (RATE_LIMIT_COST_PER_MINUTE), charged by the GraphQL edge. */
  cost?: CostBudget | undefined;
  /** The peer address of a request: the client of a caller without a valid token. */
  clientAddress: (c: Context<AppEnv>) => string;
}

/** One policy's state for the `RateLimit` field: units left, seconds until they are restored. */
interface PolicyState {
  remaining: number;
  resetSeconds: number;
}

/**
 * The structured fields of the IETF draft "RateLimit header fields for HTTP"
 * (draft-ietf-httpapi-ratelimit-headers-10), one list item per budget: `requests` (q requests in
 * a w-second window) and, on /graphql, `cost` (q cost points, refilled continuously over w
 * seconds). `RateLimit` says what is left (r) and in how many seconds it is restored (t).
 */
function draftFields(
  requests: { perMinute: number; state: PolicyState } | undefined,
  cost: { perMinute: number; state: PolicyState } | undefined,
): Record<string, string> {
  const policies: string[] = [];
  const states: string[] = [];
  if (requests) {
    policies.push(`"requests";q=${requests.perMinute};w=60`);
    states.push(`"requests";r=${requests.state.remaining};t=${requests.state.resetSeconds}`);
  }
  if (cost) {
    policies.push(`"cost";q=${cost.perMinute};qu="cost-points";w=60`);
    states.push(`"cost";r=${cost.state.remaining};t=${cost.state.resetSeconds}`);
  }
  return policies.length === 0
    ? {}
    : { 'RateLimit-Policy': policies.join(', '), RateLimit: states.join(', ') };
}

/**
 * The per-client rate limits of both edges (client: the token subject, else the address; a request
 * with an invalid token counts by its address, before it is refused with 401):
 * - a budget of requests per minute, over which the request is refused with 429 RATE_LIMITED and
 *   Retry-After;
 * - on /graphql, the cost budget: this hands the caller's account to the GraphQL edge, which
 *   charges each operation (src/graphql/demand-control.ts).
 * Every response of both edges, 401s and 429s included, carries the draft's `RateLimit-Policy` and
 * `RateLimit` fields for the budgets that apply to it, and, for the request budget, the older
 * `RateLimit-Limit`/`-Remaining`/`-Reset` trio of the draft's earlier versions.
 */
export function rateLimits({
  requests,
  cost,
  clientAddress,
}: RateLimitOptions): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = clientKey(c.get('viewer'), clientAddress(c));
    const account = cost && c.req.path === GRAPHQL_PATH ? cost.account(key) : undefined;
    if (account) c.set('costAccount', account);
    let window: PolicyState | undefined;
    let refused = false;
    if (requests) {
      const now = Date.now();
      const { count, resetAt } = await requests.store.hit(key, WINDOW_MS, now);
      window = {
        remaining: Math.max(0, requests.perMinute - count),
        resetSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)),
      };
      refused = count > requests.perMinute;
    }
    const fields = async () => {
      let costState: PolicyState | undefined;
      if (cost && account) {
        const status: CostBudgetStatus = await account.status();
        costState = {
          remaining: status.currentlyAvailable,
          resetSeconds: cost.secondsToFull(status),
        };
      }
      return {
        ...draftFields(
          requests && window && { perMinute: requests.perMinute, state: window },
          cost && costState && { perMinute: cost.perMinute, state: costState },
        ),
        ...(requests && window
          ? {
              'RateLimit-Limit': String(requests.perMinute),
              'RateLimit-Remaining': String(window.remaining),
              'RateLimit-Reset': String(window.resetSeconds),
            }
          : {}),
      };
    };
    if (refused && window) {
      return errorResponse(c, 'RATE_LIMITED', {
        ...(await fields()),
        'Retry-After': String(window.resetSeconds),
      });
    }
    await next();
    for (const [name, value] of Object.entries(await fields())) c.res.headers.set(name, value);
  };
}
