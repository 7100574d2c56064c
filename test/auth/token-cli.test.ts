import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { createTokenVerifier } from '../../src/auth/tokens.js';
import { projectRoot } from '../helpers/process.js';

const secret = randomBytes(32).toString('base64url');

/** `npm run -s token -- <args>`, as a developer types it. */
function token(...args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'npm',
      ['run', '-s', 'token', '--', ...args],
      { cwd: projectRoot, env: { ...process.env, AUTH_JWT_SECRET: secret, LOG_LEVEL: 'silent' } },
      (error, stdout, stderr) =>
        resolve({
          code: error ? Number(error.code) : 0,
          stdout,
          // npm's own configuration warnings are not the command's output.
          stderr: stderr.replace(/^npm warn .*\n/gm, ''),
        }),
    );
  });
}

describe('npm run token', { timeout: 60_000 }, () => {
  it('--help prints the usage and exits 0', async () => {
    const result = await token('--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: npm run token -- \[scope…\] \[--sub <subject>\]/);
    expect(result.stdout).toContain('--ttl <seconds>');
    expect(result.stdout).toContain(
      'pets:write orders:read orders:write inventory:write admin:read',
    );
    expect(result.stderr).toBe('');
  });

  it.each([
    [
      ['--ttl', 'abc'],
      'token: --ttl must be a whole number of seconds from 1 to 31536000, not "abc"',
    ],
    [['--ttl', '-5'], /^token: Option '--ttl' argument is ambiguous/],
    [['--ttl=0'], /^token: --ttl must be a whole number/],
    [['--ttl'], /^token: Option '--ttl <value>' argument missing/],
    [['--bogus'], /^token: Unknown option '--bogus'/],
    [['pets:read'], /^token: unknown scope\(s\): pets:read; scopes: pets:write/],
  ])('%j: one line on stderr, exit code 2, no stack trace', async (args, expected) => {
    const result = await token(...args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    if (typeof expected === 'string')
      expect(lines[0]).toBe(`${expected} (see npm run token -- --help)`);
    else expect(lines[0]).toMatch(expected);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('mints every scope when none is asked, admin:read (the usage report) included', async () => {
    const result = await token();
    expect(result.code).toBe(0);
    expect(String(decodeJwt(result.stdout.trim()).scope).split(' ')).toEqual([
      'pets:write',
      'orders:read',
      'orders:write',
      'inventory:write',
      'admin:read',
    ]);
  });

  it('mints a token for the scopes, subject and lifetime asked, signed with the secret', async () => {
    const result = await token('orders:read', '--sub', 'alice', '--ttl', '120');
    expect(result.code).toBe(0);
    const jwt = result.stdout.trim();
    const viewer = await createTokenVerifier({
      jwtSecret: secret,
      jwksUrl: undefined,
      issuer: undefined,
      audience: undefined,
      tokenCacheBytes: 1024,
    })(jwt);
    const claims = decodeJwt(jwt);
    expect(viewer).toEqual({
      authenticated: true,
      subject: 'alice',
      scopes: new Set(['orders:read']),
      expiresAt: (claims.exp ?? 0) * 1000,
    });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(120);
  });
});
