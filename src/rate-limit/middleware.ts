import type { MiddlewareHandler } from 'hono';
import type { Viewer } from '../domain/context.js';
import type { AppEnv } from '../http/env.js';
import { errorResponse } from '../http/error-response.js';

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

/** Who a caller counts as for per-client bounds: the token's subject, else the peer address. */
export function clientKey(viewer: Viewer, address: string): string {
  return viewer.authenticated && viewer.subject ? `sub:${viewer.subject}` : `ip:${address}`;
}

/**
 * Per-client budget of `perMinute` requests (client: the token subject, else the address), with
 * RateLimit-Limit/Remaining/Reset on every response and 429 RATE_LIMITED + Retry-After beyond it.
 */
export function rateLimit(
  perMinute: number,
  store: RateLimitStore,
  clientAddress: (c: Parameters<MiddlewareHandler<AppEnv>>[0]) => string,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = clientKey(c.get('viewer'), clientAddress(c));
    const now = Date.now();
    const { count, resetAt } = await store.hit(key, WINDOW_MS, now);
    const resetSeconds = Math.max(1, Math.ceil((resetAt - now) / 1000));
    const headers = {
      'RateLimit-Limit': String(perMinute),
      'RateLimit-Remaining': String(Math.max(0, perMinute - count)),
      'RateLimit-Reset': String(resetSeconds),
    };
    if (count > perMinute) {
      return errorResponse(c, 'RATE_LIMITED', { ...headers, 'Retry-After': String(resetSeconds) });
    }
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}
