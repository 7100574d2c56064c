import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/**
 * The headers Node keeps the first of when a request repeats them, where a web `Headers` joins
 * them all: these are read through the request's `Headers`, so that a repeated `Authorization`
 * stays one invalid value rather than its first.
 */
const keptOnce = new Set([
  ...['age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host'],
  ...['if-modified-since', 'if-unmodified-since', 'last-modified', 'location', 'max-forwards'],
  ...['proxy-authorization', 'referer', 'retry-after', 'server', 'user-agent', 'set-cookie'],
  'cookie',
]);

/**
 * A request header (lower-case name), read from Node's parsed headers when Node serves the
 * request: `c.req.header` goes through the adapter's web `Headers`, built from every header of the
 * request at the first read, which tests the name and the value against a pattern each at every
 * read, and a request reads half a dozen. Node joins a repeated header with commas, as a web
 * `Headers` does, but for those in `keptOnce`: one of those that is present is read through the
 * adapter; an absent one is absent in both (an anonymous read builds no `Headers` for its
 * `Authorization`). In-process (`app.fetch`), the request's own headers.
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming) return c.req.header(name);
  const value = incoming.headers[name] as string | undefined;
  return value !== undefined && keptOnce.has(name) ? c.req.header(name) : value;
}
