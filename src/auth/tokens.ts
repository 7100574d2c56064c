import { createRemoteJWKSet, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import { LRUCache } from 'lru-cache';
import { anonymous, type Viewer } from '../domain/context.js';
import { DomainError } from '../errors/catalogue.js';

export interface AuthSettings {
  /** HS256 shared secret; used when no JWKS URL is set. */
  readonly jwtSecret: string | undefined;
  /** JWKS endpoint for RS256/ES256 tokens. */
  readonly jwksUrl: string | undefined;
  readonly issuer: string | undefined;
  readonly audience: string | undefined;
  /** What the verified tokens kept for their next request may take, in bytes. */
  readonly tokenCacheBytes: number;
}

export type TokenVerifier = (token: string) => Promise<Viewer>;

/**
 * The caller named by an `Authorization` value (the HTTP header, or the WebSocket's
 * `connection_init` payload): none is anonymous; anything but `Bearer <token>` with a valid token
 * is UNAUTHENTICATED, its message naming `where` the value came from.
 */
export async function viewerOf(
  authorization: unknown,
  verify: TokenVerifier,
  where: string,
): Promise<Viewer> {
  if (authorization === undefined) return anonymous;
  const token =
    typeof authorization === 'string'
      ? /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(authorization)?.[1]
      : undefined;
  if (!token) throw new DomainError('UNAUTHENTICATED', `${where} must be "Bearer <token>"`);
  return verify(token);
}

/**
 * The callers that verified tokens name, by the token's whole text (its signature included: only
 * a token that verified is ever kept), until the token expires; `maxBytes` bounds them, least
 * recently used out. A client sends the same token with every request, and checking its signature
 * is a good part of a write's CPU (WebCrypto's HMAC or RSA).
 */
export class VerifiedTokens {
  readonly #viewers: LRUCache<string, Viewer>;

  constructor(maxBytes: number) {
    this.#viewers = new LRUCache({
      maxSize: maxBytes,
      // The token's text (UTF-16) and the caller made of it; one larger than the bound is not kept.
      sizeCalculation: (_viewer, token) => token.length * 2 + 256,
    });
  }

  /** The caller a token names, unless it was never verified here or has expired since. */
  get(token: string): Viewer | undefined {
    const viewer = this.#viewers.get(token);
    return viewer?.expiresAt !== undefined && viewer.expiresAt > Date.now() ? viewer : undefined;
  }

  set(token: string, viewer: Viewer): void {
    this.#viewers.set(token, viewer);
  }

  /** What the kept tokens count as, in bytes. */
  get bytes(): number {
    return this.#viewers.calculatedSize;
  }
}

/**
 * Verifies bearer tokens: signature, expiry (always required), issuer and audience when set. A
 * token that verified is kept for later requests (`VerifiedTokens`); once it expires it is
 * verified again, and refused as expired.
 */
export function createTokenVerifier(settings: AuthSettings): TokenVerifier {
  const key = settings.jwksUrl
    ? createRemoteJWKSet(new URL(settings.jwksUrl))
    : new TextEncoder().encode(settings.jwtSecret ?? '');
  const algorithms = settings.jwksUrl ? ['RS256', 'ES256'] : ['HS256'];
  const verified = new VerifiedTokens(settings.tokenCacheBytes);
  return async (token) => {
    const kept = verified.get(token);
    if (kept) return kept;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, key as Uint8Array, {
        algorithms,
        issuer: settings.issuer,
        audience: settings.audience,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw new DomainError('UNAUTHENTICATED', `The bearer token is not valid: ${describe(error)}`);
    }
    const scope = typeof payload.scope === 'string' ? payload.scope : '';
    const viewer: Viewer = {
      authenticated: true,
      subject: payload.sub,
      scopes: new Set(scope.split(' ').filter(Boolean)),
      // `exp` is required above.
      expiresAt: (payload.exp as number) * 1000,
    };
    verified.set(token, viewer);
    return viewer;
  };
}

/** A short reason a person can act on, without echoing the token. */
function describe(error: unknown): string {
  const code = (error as { code?: string }).code;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'it has expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return `claim ${(error as { claim?: string }).claim ?? ''} does not match`.replace('  ', ' ');
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return 'its signature does not verify';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'its algorithm is not accepted';
    default:
      return 'it is malformed or cannot be checked';
  }
}

export interface TokenRequest {
  scopes: readonly string[];
  /** `developer` unless given; `null`: a token without a subject. */
  subject?: string | null;
  /** Lifetime in seconds; 1 hour by default. */
  expiresIn?: number;
  issuer?: string | undefined;
  audience?: string | undefined;
}

/** Mints an HS256 token (development, the `npm run token` script and tests). */
export function mintToken(secret: string, request: TokenRequest): Promise<string> {
  const jwt = new SignJWT({ scope: request.scopes.join(' ') })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + (request.expiresIn ?? 3600));
  if (request.subject !== null) jwt.setSubject(request.subject ?? 'developer');
  if (request.issuer) jwt.setIssuer(request.issuer);
  if (request.audience) jwt.setAudience(request.audience);
  return jwt.sign(new TextEncoder().encode(secret));
}
