import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/**
 * The headers Node keeps the first of when a request repeats them, where a web `Headers` joins
 * them all: these are joined here from the request's raw headers, so that a repeated
 * `Authorization` stays one invalid value rather than its first.
 */
const keptOnce = new Set([
  ...['age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host'],
  ...['if-modified-since', 'if-unmodified-since', 'last-modified', 'location', 'max-forwards'],
  ...['proxy-authorization', 'referer', 'retry-after', 'server', 'user-agent', 'set-cookie'],
  'cookie',
]);

/** Every value of `name` in Node's raw pairs, joined as the adapter's `Headers` joins them. */
function joined(raw: readonly string[], name: string): string {
  const separator = name === 'cookie' ? '; ' : ', ';
  let value: string | undefined;
  for (let at = 0; at < raw.length; at += 2) {
    const given = raw[at] as string;
    if (given.length !== name.length || given.toLowerCase() !== name) continue;
    const next = raw[at + 1] as string;
    value = value === undefined ? next : `${value}${separator}${next}`;
  }
  return value ?? '';
}

/**
 * A request header (lower-case name), read from Node's parsed headers when Node serves the
 * request: `c.req.header` goes through the adapter's `Headers`, made at the first read, which tests
 * the name and the value against a pattern at every read, and a request reads half a dozen. Node
 * joins a repeated header with commas, as a web `Headers` does, but for those in `keptOnce`: one
 * of those that is present is joined from the raw headers here (a deprecated route's metrics read
 * `User-Agent` at every call); an absent one is absent in both. In-process (`app.fetch`), the
 * request's own headers.
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming) return c.req.header(name);
  const value = incoming.headers[name] as string | undefined;
  return value !== undefined && keptOnce.has(name) ? joined(incoming.rawHeaders, name) : value;
}
