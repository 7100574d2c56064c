import type { MiddlewareHandler } from 'hono';
import { type TokenVerifier, WWW_AUTHENTICATE } from '../auth/tokens.js';
import { anonymous } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import type { AppEnv } from './env.js';
import { errorResponse } from './error-response.js';

/**
 * Sets the request's viewer from `Authorization: Bearer <JWT>`. No header means anonymous; a header
 * that is not a valid bearer token rejects the whole request with 401 on both edges.
 */
export function authenticate(verify: TokenVerifier): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    if (header === undefined) {
      c.set('viewer', anonymous);
      return next();
    }
    const token = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(header)?.[1];
    try {
      if (!token)
        throw new DomainError(
          'UNAUTHENTICATED',
          'The Authorization header must be "Bearer <token>"',
        );
      c.set('viewer', await verify(token));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return errorResponse(c, error, {
        'WWW-Authenticate': `${WWW_AUTHENTICATE}, error="invalid_token"`,
      });
    }
    return next();
  };
}
