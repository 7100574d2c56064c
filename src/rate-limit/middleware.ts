import type { Context, MiddlewareHandler } from 'hono';
import type { Viewer } from '../domain/context.js';
import { rateLimited } from '../errors/catalogue.js';
import type { AppEnv, CostBudgetStatus } from '../http/env.js';
import { errorResponse } from '../http/error-response.js';
import { setResponseHeaders } from '../http/response-header.js';
import type { CostBudget } from './cost-budget.js';

/**
 * Where request counts live. In memory for one process; a shared store (Redis, the database)
 * implementing the same call makes the limit hold across replicas.
 */
export interface RateLimitStore {
  /** Counts one request for `key` in the window containing `now`; returns the count so far. */
  hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
}

/**
 * Fixed one-minute windows per client, kept in a Map of at most `maxClients` windows: expired ones
 * are dropped when it is full, then the oldest (a client dropped that way starts a new window).
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #windows = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly maxClients: number) {}

  async hit(key: string, windowMs: number, now: number) {
    let window = this.#windows.get(key);
    if (!window || window.resetAt <= now) {
      if (!window && this.#windows.size >= this.maxClients) this.#prune(now);
      window = { count: 0, resetAt: now + windowMs };
      this.#windows.set(key, window);
    }
    window.count++;
    return { ...window };
  }

  /** How many clients it holds now (at most `maxClients`). */
  get size(): number {
    return this.#windows.size;
  }

  #prune(now: number) {
    for (const [key, window] of this.#windows) if (window.resetAt <= now) this.#windows.delete(key);
    // Down to 99%, so that a full scan happens once per hundredth of the bound, not per client.
    for (const key of this.#windows.keys()) {
      if (this.#windows.size < this.maxClients * 0.99) break;
      this.#windows.delete(key);
    }
  }
}

const WINDOW_MS = 60_000;

/** The GraphQL path: the one whose requests the cost budget charges. */
const GRAPHQL_PATH = '/graphql';

/** Who a caller counts as for per-client bounds: the token's subject, else the peer address. */
export function clientKey(viewer: Viewer, address: string): string {
  return viewer.authenticated && viewer.subject ? `sub:${viewer.subject}` : `ip:${address}`;
}

/** One policy's state for the `RateLimit` field: units left, seconds until they are restored. */
interface PolicyState {
  remaining: number;
  resetSeconds: number;
}

/**
 * The per-client request budget (RATE_LIMIT_PER_MINUTE): requests per client and minute, in
 * windows a shared store may align on the clock. Every request of every transport counts: an HTTP
 * request here (`rateLimits`), a WebSocket upgrade and each `subscribe` message in
 * src/live/websocket.ts.
 */
export class RequestBudget {
  constructor(
    readonly perMinute: number,
    private readonly store: RateLimitStore,
  ) {}

  /** Counts one request of `client`: whether it is over the budget, and the window's state. */
  async count(client: string): Promise<PolicyState & { refused: boolean }> {
    const now = Date.now();
    const { count, resetAt } = await this.store.hit(client, WINDOW_MS, now);
    return {
      refused: count > this.perMinute,
      remaining: Math.max(0, this.perMinute - count),
      resetSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)),
    };
  }
}

/** The budgets that are on: each transport counts its requests against them. */
export interface RateLimits {
  /** The request budget (RATE_LIMIT_PER_MINUTE), while it is on. */
  requests?: RequestBudget | undefined;
  /** The GraphQL cost budget (RATE_LIMIT_COST_PER_MINUTE), charged by the GraphQL edge. */
  cost?: CostBudget | undefined;
}

export interface RateLimitOptions extends RateLimits {
  /** The peer address of a request: the client of a caller without a valid token. */
  clientAddress: (c: Context<AppEnv>) => string;
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
 *   charges each operation (src/cost/demand-control.ts).
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
    const window = requests && (await requests.count(key));
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
    if (window?.refused) {
      return errorResponse(c, rateLimited(window.resetSeconds), await fields());
    }
    await next();
    setResponseHeaders(c, await fields());
  };
}
