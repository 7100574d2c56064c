import type { Context, MiddlewareHandler } from 'hono';
import type { Link } from '../http/chain.js';
import type { AccessLogFields, AppEnv } from '../http/env.js';
import { setResponseHeaders } from '../http/response-header.js';
import type { Logger } from '../logger.js';
import { annotateSpan } from '../tracing/hooks.js';
import type { ClientNames } from './client-name.js';
import type { RequestCount } from './http-metrics.js';
import { requestIdFrom } from './request-id.js';

/**
 * Gives each request its id (a sane incoming `X-Request-Id`, else a new one); when the response is
 * ready, names its client if `nameClient` has not (a route without a token check names it as a
 * caller without a token), puts the id and the other answer headers (`addAnswerHeaders`) on it and
 * writes one JSON access line. Only the method, the path (never the query string), the operation
 * name, the status, the error codes the answer carries, the duration, the token subject and the
 * client's name and version (when it sends one) are logged: no other header, so no tokens. `count`
 * (the HTTP metrics) gets the request with its duration once the answer is ready: the two share
 * one link of Hono's chain, the first.
 */
export function accessLog(
  logger: Logger,
  clients: ClientNames,
  count: RequestCount,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const requestId = requestIdFrom(c.req.header('x-request-id'));
    const fields: AccessLogFields = {};
    // Lower-case names, as the answer keeps them: no name is lowered and interned anew per request.
    const answerHeaders: Record<string, string> = { 'x-request-id': requestId };
    c.set('requestId', requestId);
    c.set('accessLog', fields);
    c.set('answerHeaders', answerHeaders);
    // Lines about this request carry the id only where their code passes it (REST and GraphQL
    // failures, readiness; see createLogger): the id travels on the context, not in the logger.
    await next();
    const durationMs = performance.now() - started;
    const client = c.get('clientName') ?? setClientName(c, clients, false);
    const named = client.name !== 'unknown';
    setResponseHeaders(c, answerHeaders);
    count(c, durationMs / 1000);
    const status = c.res.status;
    // The pages' scripts and styles (a page load is a dozen of them) at debug level.
    const level = status >= 500 ? 'error' : c.req.path.startsWith('/assets/') ? 'debug' : 'info';
    // A line nobody reads is not built (the bench and many deployments log warnings only).
    if (!logger.isLevelEnabled(level)) return;
    const line = {
      requestId,
      method: c.req.method,
      path: c.req.path,
      operation: fields.operation,
      status,
      code: fields.code,
      durationMs: Math.round(durationMs * 10) / 10,
      subject: c.get('viewer')?.subject,
      client: named ? client.name : undefined,
      clientVersion: named ? client.version : undefined,
    };
    logger[level](line, 'request');
  };
}

/**
 * Names the request's client (bounded, see ClientNames; on the server span too) once its token is
 * checked: a caller with a valid token may take any free name, one without only the few names
 * left to such callers. Right after `authenticate`, before anything that counts by client name.
 */
export function nameClient(clients: ClientNames): Link<AppEnv> {
  return (c, next) => {
    setClientName(c, clients, c.get('viewer')?.authenticated === true);
    return next();
  };
}

function setClientName(c: Context<AppEnv>, clients: ClientNames, authenticated: boolean) {
  const client = clients.of((name) => c.req.header(name), authenticated);
  c.set('clientName', client);
  if (client.name !== 'unknown')
    annotateSpan({
      'petstore.client.name': client.name,
      'petstore.client.version': client.version,
    });
  return client;
}
