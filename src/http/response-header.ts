import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';

/**
 * Puts a header on a request's answer once the answer is ready. Served by Node (`c.env.outgoing`),
 * it goes on the Node response, which `writeHead` merges with the answer's own headers: the
 * answer's web `Headers` is never built for it (a cache hit or a REST answer carries plain
 * headers, and would otherwise build one per request for this alone). In-process (`app.fetch`),
 * it goes on the answer.
 */
export function setResponseHeader(c: Context, name: string, value: string): void {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing && !outgoing.headersSent) {
    outgoing.setHeader(name, value);
    return;
  }
  try {
    c.res.headers.set(name, value);
  } catch {
    // Some responses have immutable headers; copy them into a new response.
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set(name, value);
  }
}
