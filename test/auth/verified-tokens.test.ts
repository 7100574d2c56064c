import { expect, it } from 'vitest';
import { VerifiedTokens } from '../../src/auth/tokens.js';
import type { Viewer } from '../../src/domain/context.js';

const viewer = (expiresAt: number): Viewer => ({
  authenticated: true,
  subject: 'alice',
  scopes: new Set(['pets:write']),
  expiresAt,
});

it('keeps verified tokens within its bound in bytes, however many distinct tokens arrive', () => {
  const tokens = new VerifiedTokens(64 * 1024);
  const later = Date.now() + 60_000;
  const token = (n: number) => `${'x'.repeat(300)}.${n}`;
  for (let n = 0; n < 10_000; n++) tokens.set(token(n), viewer(later));
  expect(tokens.bytes).toBeLessThanOrEqual(64 * 1024);
  expect(tokens.bytes).toBeGreaterThan(32 * 1024);
  // The least recently used went first.
  expect(tokens.get(token(9_999))).toBeDefined();
  expect(tokens.get(token(0))).toBeUndefined();
  // A token larger than the whole bound is not kept.
  tokens.set('y'.repeat(40 * 1024), viewer(later));
  expect(tokens.get('y'.repeat(40 * 1024))).toBeUndefined();
});

it('never answers with a token that has expired since it was verified', () => {
  const tokens = new VerifiedTokens(64 * 1024);
  tokens.set('expired', viewer(Date.now() - 1));
  tokens.set('valid', viewer(Date.now() + 60_000));
  expect(tokens.get('expired')).toBeUndefined();
  expect(tokens.get('valid')?.subject).toBe('alice');
});
