import net from 'node:net';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { database, databaseAvailable, describeDb } from '../helpers/app.js';
import { childDatabase, runNode } from '../helpers/process.js';

/**
 * A start that cannot work ends in one line on stderr saying what to do, with a non-zero exit code:
 * never a stack trace, never a hang. The real compiled server is started, as `npm start` runs it.
 */
async function start(env: Record<string, string>) {
  const answer = await runNode(
    ['dist/server.js'],
    // Development mode (no secret): its token must not be printed before the start fails.
    { AUTH_JWT_SECRET: '', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', ...env },
    { timeoutMs: 20_000 },
  );
  expect(answer.code, 'exits by itself, with a failure').toBe(1);
  expect(`${answer.stdout}${answer.stderr}`).not.toMatch(/\n\s+at /);
  const lines = answer.stderr.trim().split('\n');
  expect(lines, answer.stderr).toHaveLength(1);
  return lines[0];
}

describeDb('a server that cannot start', () => {
  it('says the port is in use, and how to choose another', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as net.AddressInfo;
    const db = childDatabase();
    try {
      expect(await start({ PORT: String(port), DATABASE_URL: db.url })).toBe(
        `Port ${port} on 127.0.0.1 is already in use (another gateway still running?): stop that ` +
          'process, or set PORT to a port nothing listens on',
      );
    } finally {
      taken.close();
      await db.drop();
    }
  });

  it('says HOST is not an address of this machine', async () => {
    const db = childDatabase();
    try {
      // 192.0.2.0/24 is reserved for documentation: no machine has it.
      expect(await start({ HOST: '192.0.2.1', DATABASE_URL: db.url })).toBe(
        'HOST 192.0.2.1 is not an address of this machine: set HOST to one of its addresses ' +
          '(127.0.0.1 for this machine only, 0.0.0.0 for every network interface)',
      );
    } finally {
      await db.drop();
    }
  });
});

describe.skipIf(database !== 'sqlite' || !databaseAvailable)(
  'a SQLite path that cannot work',
  () => {
    it('is refused when it names a directory', async () => {
      const directory = tmpdir();
      expect(await start({ DATABASE_URL: `file:${directory}` })).toBe(
        `DATABASE_URL names ${directory}, which is a directory: name a file in it, e.g. ` +
          `file:${directory}/petstore.db`,
      );
    });

    it('is refused when its directory cannot be created, at once', async () => {
      expect(await start({ DATABASE_URL: 'file:/proc/nope/x.db' })).toBe(
        'DATABASE_URL names /proc/nope/x.db, but the directory /proc/nope cannot be created ' +
          '(ENOENT): name a path this user can write to, e.g. file:./data/petstore.db',
      );
    });
  },
);
