import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.js';

/** Public reads: any cache may keep them but must revalidate (If-None-Match) before reuse. */
export const PUBLIC_CACHE_CONTROL = 'no-cache';
/** Anything read with a token: never stored, never shared. */
export const PRIVATE_CACHE_CONTROL = 'private, no-store';

/** A strong validator of a body: the same bytes, the same tag. */
export function strongETag(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/** Whether `If-None-Match` names the tag (weak comparison, as RFC 9110 asks of this header). */
export function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

/**
 * HTTP validators for GET (and HEAD) answers of both edges: a 200 JSON response gets a strong
 * `ETag` (a hash of its body) and `Cache-Control` (`no-cache` for a request without a token,
 * `private, no-store` for one with a token); `If-None-Match` naming the current tag answers 304
 * with no body. Other methods and statuses are left alone, except that the response-cache
 * plugin's own validators (its key as ETag, a Last-Modified) are never sent: they do not change
 * when the data does.
 */
export function httpValidators(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const res = c.res;
    if (res.headers.has('last-modified')) res.headers.delete('last-modified');
    const method = c.req.method;
    if ((method !== 'GET' && method !== 'HEAD') || res.status !== 200) {
      if (res.headers.has('etag')) res.headers.delete('etag');
      return;
    }
    // JSON only: never read a stream (an event stream would never end) or a page.
    if (!/json/i.test(res.headers.get('content-type') ?? '')) return;
    const body = await res.text();
    const etag = strongETag(body);
    const headers = new Headers(res.headers);
    headers.set('ETag', etag);
    headers.set(
      'Cache-Control',
      c.req.header('authorization') === undefined ? PUBLIC_CACHE_CONTROL : PRIVATE_CACHE_CONTROL,
    );
    if (ifNoneMatch(c.req.header('if-none-match'), etag)) {
      headers.delete('content-type');
      headers.delete('content-length');
      c.res = undefined;
      c.res = new Response(null, { status: 304, headers });
      return;
    }
    c.res = undefined;
    c.res = new Response(body, { status: 200, headers });
  };
}
