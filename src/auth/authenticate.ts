import type { Context, MiddlewareHandler, Next } from 'hono';
import { anonymous } from '../domain/context.js';
import { bearerChallenge, DomainError } from '../errors/catalogue.js';
import type { AppEnv } from '../http/env.js';
import { errorResponse } from '../http/error-response.js';
import { type TokenVerifier, viewerOf } from './tokens.js';

/**
 * Sets the request's viewer from `Authorization: Bearer <JWT>`; no header means anonymous. A header
 * that is not a valid bearer token leaves the caller anonymous and is noted: `refuseInvalidToken`
 * answers it with 401 after the rate limit has counted it, so that a flood of bad tokens is
 * limited like any other traffic. Without a rate limit (`refuseAtOnce`) nothing counts it first:
 * it is answered here, and no second middleware waits for it.
 */
export function authenticate(
  verify: TokenVerifier,
  { refuseAtOnce }: { refuseAtOnce: boolean },
): MiddlewareHandler<AppEnv> {
  const withToken = async (c: Context<AppEnv>, next: Next, authorization: string) => {
    try {
      c.set('viewer', await viewerOf(authorization, verify, 'The Authorization header'));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (refuseAtOnce) return refusal(c, error);
      c.set('viewer', anonymous);
      c.set('invalidToken', error);
    }
    return next();
  };
  // Not async: a request without a header (the anonymous reads) makes no promise of its own here.
  return (c, next) => {
    const authorization = c.req.header('authorization');
    if (authorization !== undefined) return withToken(c, next, authorization);
    c.set('viewer', anonymous);
    return next();
  };
}

/** Refuses a request whose token `authenticate` found invalid: 401 on both edges. */
export function refuseInvalidToken(): MiddlewareHandler<AppEnv> {
  return (c, next) => {
    const error = c.get('invalidToken');
    return error ? Promise.resolve(refusal(c, error)) : next();
  };
}

const refusal = (c: Context<AppEnv>, error: DomainError) =>
  errorResponse(c, error, bearerChallenge('invalid_token'));
