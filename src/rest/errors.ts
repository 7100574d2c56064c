import type { Context, ErrorHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { WWW_AUTHENTICATE } from '../auth/tokens.js';
import {
  isDatabaseUnreachable,
  unavailableMessage,
  unreachableLogMessage,
} from '../db/unreachable.js';
import { DomainError, type ErrorBody, errorStatus } from '../domain/errors.js';
import type { AppEnv } from '../http/env.js';
import type { Logger } from '../logger.js';
import { logThrottled } from '../observability/log-throttle.js';
import { sendJson } from './respond.js';

/**
 * The REST edge's one translation of failures into the Error shape `{code, message, status}`,
 * with `status` equal to the HTTP status. Anything that is not a DomainError is unexpected: it is
 * logged with the request id and answered 500 INTERNAL without any detail (no stack, no SQL).
 */
export function restErrorHandler(logger: Logger): ErrorHandler<AppEnv> {
  return (error, c) => {
    if (error instanceof DomainError) return sendError(c, error.toBody());
    if (isDatabaseUnreachable(error)) {
      // One line per second during an outage, not one per request.
      logThrottled(
        logger,
        'warn',
        { err: error, requestId: c.get('requestId') },
        unreachableLogMessage,
      );
      return sendError(c, new DomainError('UNAVAILABLE', unavailableMessage).toBody());
    }
    logger.error(
      { err: error, requestId: c.get('requestId'), method: c.req.method, path: c.req.path },
      'unexpected error in a REST handler',
    );
    return sendError(c, {
      code: 'INTERNAL',
      message: 'Unexpected error; it has been logged.',
      status: errorStatus.INTERNAL,
    });
  };
}

function sendError(c: Context, body: ErrorBody): Response {
  // A missing token where one is needed: say how to authenticate.
  if (body.code === 'UNAUTHENTICATED') c.header('WWW-Authenticate', WWW_AUTHENTICATE);
  return sendJson(c, body.status as ContentfulStatusCode, body);
}
