import type { IncomingMessage } from 'node:http';
import type * as Otel from '@opentelemetry/api';
import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { activeTracing, type Failure, markFailed, type Tracing, traceparentOf } from './hooks.js';

/** The response header naming the request's trace (W3C Trace Context Level 2). */
export const TRACE_RESPONSE_HEADER = 'traceresponse';

/** Requests that would flood traces without telling anything: probes and scrapes. */
const untraced = /^\/(health\/|metrics$)/;

/** What a server span is made from: the request line, a way to read headers, the peer. */
interface IncomingRequest {
  method: string;
  path: string;
  header(name: string): string | undefined;
  peer: string | undefined;
}

const headerGetter: Otel.TextMapGetter<IncomingRequest> = {
  get: (request, name) => request.header(name),
  keys: () => [],
};

/**
 * A server span (the semantic conventions' HTTP server span), continuing the trace a
 * `traceparent` header names, or starting one. Named by its method until its route is known.
 */
function startServerSpan(tracing: Tracing, request: IncomingRequest) {
  const { api, tracer } = tracing;
  const parent = api.propagation.extract(api.ROOT_CONTEXT, request, headerGetter);
  const userAgent = request.header('user-agent');
  const span = tracer.startSpan(
    request.method,
    {
      kind: api.SpanKind.SERVER,
      attributes: {
        'http.request.method': request.method,
        'url.path': request.path,
        ...(request.peer ? { 'network.peer.address': request.peer } : {}),
        ...(userAgent ? { 'user_agent.original': userAgent } : {}),
      },
    },
    parent,
  );
  return { span, context: api.trace.setSpan(parent, span) };
}

/** Ends a server span with its route (`GET /api/pets/:petId`) and the response's status. */
function endServerSpan(span: Otel.Span, method: string, route: string | undefined, status: number) {
  if (route) {
    span.setAttribute('http.route', route);
    span.updateName(`${method} ${route}`);
  }
  span.setAttribute('http.response.status_code', status);
  span.end();
}

/**
 * The server span of each HTTP request, as the app's first middleware (added only when tracing
 * is on): everything the request does runs in its context, and the response names its trace in
 * `traceresponse: 00-<trace id>-<span id>-<flags>`, so that a caller (or an operator holding a
 * response) finds it. The span ends when the response is ready; an SSE stream's events are traces
 * of their own.
 *
 * OpenTelemetry's HTTP instrumentation made this span before, and measured on `pet(id)` it was
 * most of what tracing cost (with 10% sampled, +35% CPU per request with it, +11% without): it
 * binds every listener of every response to the request's context and computes its attributes
 * before the sampler decides. This makes the same span for a few microseconds (bench/README.md).
 * `setResponseHeaders` is the app's one way of adding headers to an answer that is ready.
 */
export function traceHttp(
  setResponseHeaders: (c: Context, headers: Readonly<Record<string, string>>) => void,
): MiddlewareHandler {
  const tracing = activeTracing();
  if (!tracing) return (_c, next) => next();
  return async (c, next) => {
    if (untraced.test(c.req.path)) return next();
    const method = c.req.method;
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    const { span, context } = startServerSpan(tracing, {
      method,
      path: c.req.path,
      header: (name) => c.req.header(name),
      peer: incoming?.socket.remoteAddress,
    });
    try {
      await tracing.api.context.with(context, next);
    } finally {
      setResponseHeaders(c, { [TRACE_RESPONSE_HEADER]: traceparentOf(span.spanContext()) });
      endServerSpan(span, method, routePath(c), c.res.status);
    }
  };
}

/** How a WebSocket upgrade ended: the connection opened (101), or the upgrade was refused. */
export interface Handshake {
  accepted(): void;
  refused(failure: Failure): void;
}

const untracedHandshake: Handshake = { accepted() {}, refused() {} };

/**
 * The server span of a WebSocket upgrade (an upgrade never reaches the app's middleware): `GET
 * /graphql`, ended with the handshake's status (101, or a refusal's code and status). Only the
 * handshake: a connection may stay open for hours, so its operations and events are traces of
 * their own. `route` is undefined for a path no endpoint serves.
 */
export function traceHandshake(request: IncomingMessage, route: string | undefined): Handshake {
  const tracing = activeTracing();
  if (!tracing) return untracedHandshake;
  const method = request.method ?? 'GET';
  const { span } = startServerSpan(tracing, {
    method,
    path: new URL(request.url ?? '/', 'http://localhost').pathname,
    header: (name) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value.join(',') : value;
    },
    peer: request.socket.remoteAddress,
  });
  return {
    accepted: () => endServerSpan(span, method, route, 101),
    refused(failure) {
      markFailed(span, failure);
      endServerSpan(span, method, route, failure.status);
    },
  };
}
