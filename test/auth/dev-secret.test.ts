import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { readOrCreateDevSecret, resolveAuthSettings } from '../../src/auth/dev-secret.js';
import { ConfigError } from '../../src/config.js';

const none = {
  jwtSecret: undefined,
  jwksUrl: undefined,
  issuer: undefined,
  audience: undefined,
  tokenCacheBytes: 1024,
};

it('refuses to start in production without a secret or JWKS URL', () => {
  expect(() => resolveAuthSettings(none, true)).toThrow(ConfigError);
  expect(() => resolveAuthSettings(none, true)).toThrow(/AUTH_JWT_SECRET or AUTH_JWKS_URL/);
  expect(resolveAuthSettings({ ...none, jwtSecret: 's3cret' }, true)).toMatchObject({
    jwtSecret: 's3cret',
    devSecret: false,
  });
});

it('makes a development secret once and keeps it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-secret-'));
  try {
    const file = join(dir, 'data', 'dev-jwt-secret');
    const first = readOrCreateDevSecret(file);
    expect(first.length).toBeGreaterThanOrEqual(40);
    expect(readOrCreateDevSecret(file)).toBe(first);
    expect((await readFile(file, 'utf8')).trim()).toBe(first);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
