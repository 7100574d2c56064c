import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { activeTracing, traceparentOf } from './hooks.js';

/** The response header naming the request's trace (W3C Trace Context Level 2). */
export const TRACE_RESPONSE_HEADER = 'traceresponse';

function setResponseHeader(c: Context, name: string, value: string) {
  try {
    c.res.headers.set(name, value);
  } catch {
    // Some responses have immutable headers; copy them into a new response.
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set(name, value);
  }
}

/**
 * What the HTTP instrumentation cannot know about the server span it made: the route that
 * answered (`http.route`, and the span's name `GET /api/pets/:petId`). Also names the trace on the
 * response, as `traceresponse: 00-<trace id>-<span id>-<flags>`, so that a caller (or an operator
 * holding a response) finds the trace. First in the app's middleware, and only when tracing is on.
 */
export function traceHttp(): MiddlewareHandler {
  return async (c, next) => {
    const span = activeTracing()?.api.trace.getActiveSpan();
    await next();
    if (!span) return;
    const route = routePath(c);
    span.setAttribute('http.route', route);
    span.updateName(`${c.req.method} ${route}`);
    setResponseHeader(c, TRACE_RESPONSE_HEADER, traceparentOf(span.spanContext()));
  };
}
