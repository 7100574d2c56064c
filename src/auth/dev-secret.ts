import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../config.js';
import { scopes } from '../domain/authorization.js';
import { type AuthSettings, mintToken } from './tokens.js';

export const DEV_SECRET_FILE = resolve('data/dev-jwt-secret');

/**
 * The auth settings to run with. Outside production, with neither a secret nor a JWKS URL, a random
 * secret is made once and kept in ./data/ (git-ignored) so tokens survive restarts; in production
 * that situation stops the start.
 */
export function resolveAuthSettings(
  auth: AuthSettings,
  production: boolean,
): AuthSettings & { devSecret: boolean } {
  if (auth.jwtSecret || auth.jwksUrl) return { ...auth, devSecret: false };
  if (production) {
    throw new ConfigError(
      'Invalid configuration:\n  AUTH_JWT_SECRET or AUTH_JWKS_URL must be set in production',
    );
  }
  return { ...auth, jwtSecret: readOrCreateDevSecret(), devSecret: true };
}

/** Mints the development token: every scope, subject `developer`, a day unless told. */
export function mintDevelopmentToken(secret: string, expiresIn = 86400): Promise<string> {
  return mintToken(secret, { scopes, subject: 'developer', expiresIn });
}

export function readOrCreateDevSecret(file = DEV_SECRET_FILE): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
