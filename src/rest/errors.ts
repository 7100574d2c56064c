import type { ErrorHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { WWW_AUTHENTICATE } from '../auth/tokens.js';
import type { RecordedResponse } from '../db/idempotency-keys.js';
import {
  boundedBody,
  type ClassifiedError,
  classifyError,
  DomainError,
  type ErrorBounds,
} from '../domain/errors.js';
import { PreconditionFailed } from '../domain/versions.js';
import { noteErrorCode } from '../http/access-log-fields.js';
import type { AppEnv } from '../http/env.js';
import { KeyInFlight } from '../idempotency/keys.js';
import type { Logger } from '../logger.js';
import { logFailure } from '../observability/log-throttle.js';
import { recordFailure } from '../tracing/hooks.js';
import { stringifyJson } from './json.js';
import { JSON_CONTENT_TYPE, sendJson, versionTag } from './respond.js';

/** 405 on a path the API knows: `Allow` names the methods it has. */
export class MethodNotAllowed extends DomainError {
  constructor(
    message: string,
    readonly allow: string,
  ) {
    super('METHOD_NOT_ALLOWED', message);
  }
}

/**
 * A failure as REST answers it: the classifier's decision (its message bounded), and the headers
 * its code carries.
 */
function answerOf(
  error: unknown,
  bounds: ErrorBounds,
): ClassifiedError & { headers: Record<string, string> } {
  const classified = classifyError(error);
  classified.body = boundedBody(classified.body, bounds);
  const headers: Record<string, string> = {};
  // A missing token where one is needed: say how to authenticate.
  if (classified.body.code === 'UNAUTHENTICATED') headers['www-authenticate'] = WWW_AUTHENTICATE;
  // A stale If-Match: the version that is current.
  if (error instanceof PreconditionFailed) headers.etag = versionTag(error.currentVersion);
  if (error instanceof KeyInFlight) headers['retry-after'] = String(error.retryAfterSeconds);
  if (error instanceof MethodNotAllowed) headers.allow = error.allow;
  return { ...classified, headers };
}

/** The response a failure gets, as an Idempotency-Key records it (src/rest/idempotent.ts). */
export function recordedError(error: unknown, bounds: ErrorBounds): RecordedResponse {
  const { body, headers } = answerOf(error, bounds);
  return {
    status: body.status,
    headers: { 'content-type': JSON_CONTENT_TYPE, ...headers },
    body: stringifyJson(body),
  };
}

/**
 * The REST edge's rendering of failures in the Error shape `{code, message, status}`, with
 * `status` equal to the HTTP status, as `classifyError` decides: unexpected failures are logged
 * with the request id and answered 500 INTERNAL without any detail (no stack, no SQL).
 */
export function restErrorHandler(logger: Logger, bounds: ErrorBounds): ErrorHandler<AppEnv> {
  return (error, c) => {
    const { body, log, headers } = answerOf(error, bounds);
    recordFailure(body);
    noteErrorCode(c.get('accessLog'), body.code);
    logFailure(logger, log, {
      err: error,
      requestId: c.get('requestId'),
      method: c.req.method,
      path: c.req.path,
    });
    return sendJson(c, body.status as ContentfulStatusCode, body, headers);
  };
}
