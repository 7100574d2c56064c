import type { Context, ErrorHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { WWW_AUTHENTICATE } from '../auth/tokens.js';
import { classifyError, type ErrorBody } from '../domain/errors.js';
import type { AppEnv } from '../http/env.js';
import type { Logger } from '../logger.js';
import { logFailure } from '../observability/log-throttle.js';
import { recordFailure } from '../tracing/hooks.js';
import { sendJson } from './respond.js';

/**
 * The REST edge's rendering of failures in the Error shape `{code, message, status}`, with
 * `status` equal to the HTTP status, as `classifyError` decides: unexpected failures are logged
 * with the request id and answered 500 INTERNAL without any detail (no stack, no SQL).
 */
export function restErrorHandler(logger: Logger): ErrorHandler<AppEnv> {
  return (error, c) => {
    const { body, log } = classifyError(error);
    recordFailure(body);
    logFailure(logger, log, {
      err: error,
      requestId: c.get('requestId'),
      method: c.req.method,
      path: c.req.path,
    });
    return sendError(c, body);
  };
}

function sendError(c: Context, body: ErrorBody): Response {
  // A missing token where one is needed: say how to authenticate.
  if (body.code === 'UNAUTHENTICATED') c.header('WWW-Authenticate', WWW_AUTHENTICATE);
  return sendJson(c, body.status as ContentfulStatusCode, body);
}
