import type { ErrorHandler } from 'hono';
import type { RecordedResponse } from '../db/idempotency-keys.js';
import { PreconditionFailed } from '../domain/versions.js';
import { boundedError, type ErrorBounds } from '../errors/catalogue.js';
import { classifyError } from '../errors/classify.js';
import { restErrorAnswer } from '../errors/rest.js';
import { noteErrorCode } from '../http/access-log-fields.js';
import type { AppEnv } from '../http/env.js';
import type { Logger } from '../logger.js';
import { logFailure } from '../observability/log-throttle.js';
import { recordFailure } from '../tracing/hooks.js';
import { versionTag } from './kit/respond.js';

/**
 * A failure as REST answers it: the classifier's decision (its message bounded), rendered in the
 * Error shape with the headers its code carries; a stale If-Match also gets the version that is
 * current, as the ETag of REST's representations names it.
 */
function answerOf(error: unknown, bounds: ErrorBounds) {
  const { error: contract, log } = classifyError(error);
  const etag =
    error instanceof PreconditionFailed ? { etag: versionTag(error.currentVersion) } : undefined;
  const bounded = boundedError(contract, bounds);
  return { contract: bounded, log, answer: restErrorAnswer(bounded, etag) };
}

/** The response a failure gets, as an Idempotency-Key records it (src/idempotency/rest.ts). */
export function recordedError(error: unknown, bounds: ErrorBounds): RecordedResponse {
  const { status, headers, body } = answerOf(error, bounds).answer;
  return { status, headers: { ...headers }, body };
}

/**
 * The REST edge's rendering of failures in the Error shape `{code, message, status}`, with
 * `status` equal to the HTTP status, as `classifyError` decides: unexpected failures are logged
 * with the request id and answered 500 INTERNAL without any detail (no stack, no SQL).
 */
export function restErrorHandler(logger: Logger, bounds: ErrorBounds): ErrorHandler<AppEnv> {
  return (error, c) => {
    const { contract, log, answer } = answerOf(error, bounds);
    recordFailure(contract);
    noteErrorCode(c.get('accessLog'), contract.code);
    logFailure(logger, log, {
      err: error,
      requestId: c.get('requestId'),
      method: c.req.method,
      path: c.req.path,
    });
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  };
}
