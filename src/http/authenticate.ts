import type { MiddlewareHandler } from 'hono';
import { type TokenVerifier, viewerOf, WWW_AUTHENTICATE } from '../auth/tokens.js';
import { DomainError } from '../domain/errors.js';
import type { AppEnv } from './env.js';
import { errorResponse } from './error-response.js';

/**
 * Sets the request's viewer from `Authorization: Bearer <JWT>`. No header means anonymous; a header
 * that is not a valid bearer token rejects the whole request with 401 on both edges.
 */
export function authenticate(verify: TokenVerifier): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    try {
      c.set(
        'viewer',
        await viewerOf(c.req.header('authorization'), verify, 'The Authorization header'),
      );
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return errorResponse(c, error, {
        'WWW-Authenticate': `${WWW_AUTHENTICATE}, error="invalid_token"`,
      });
    }
    return next();
  };
}
