import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { expect, it } from 'vitest';
import { mintToken } from '../../src/auth/tokens.js';
import { describeDb } from '../helpers/app.js';
import { runNode } from '../helpers/process.js';
import { startServer } from '../helpers/server.js';

const dredd = join(
  dirname(createRequire(import.meta.url).resolve('dredd/package.json')),
  'bin/dredd',
);

/**
 * Dredd, the classic OpenAPI contract tester, run as docs/api.md shows it: against the document
 * the server serves, with docs/examples/dredd/hooks.cjs, on a fresh database. Every transaction
 * the hooks can provoke passes; the others are skipped (docs/api.md lists them and why).
 */
describeDb('Dredd against the served OpenAPI document', () => {
  it('passes every transaction it runs', { timeout: 120_000 }, async () => {
    const secret = randomBytes(32).toString('hex');
    // The rate limit on, as it is by default: its headers are on every answer.
    const server = await startServer({
      AUTH_JWT_SECRET: secret,
      RATE_LIMIT_PER_MINUTE: '1200',
    });
    try {
      const token = (...scopes: string[]) => mintToken(secret, { scopes });
      const answer = await runNode(
        [
          dredd,
          `${server.url}/api/openapi.json`,
          `${server.url}/api`,
          '--hookfiles=docs/examples/dredd/hooks.cjs',
          '--loglevel=warning',
          '--no-color',
        ],
        {
          TOKEN: await token('pets:write', 'orders:read', 'orders:write', 'inventory:write'),
          TOKEN_ORDERS_READ: await token('orders:read'),
          TOKEN_PETS_WRITE: await token('pets:write'),
        },
      );
      const output = answer.stdout + answer.stderr;
      const summary = /complete: (\d+) passing, (\d+) failing, (\d+) errors, (\d+) skipped/.exec(
        output,
      );
      expect(summary, output).not.toBeNull();
      const [, passing, failing, errors, skipped] = (summary ?? []).map(Number);
      expect({ passing, failing, errors, skipped }, output).toEqual({
        passing: 108,
        failing: 0,
        errors: 0,
        skipped: 71,
      });
      expect(answer.code).toBe(0);
    } finally {
      await server.stop();
    }
  });
});
