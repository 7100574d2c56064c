import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { database, databaseAvailable } from '../helpers/app.js';
import { checkPostgres } from '../helpers/global-setup.js';

/** The test server's URL with another user or database. */
function variant(change: { user?: string; database?: string }) {
  const url = new URL(inject('postgresUrl') as string);
  if (change.user !== undefined) url.username = change.user;
  if (change.database !== undefined) url.pathname = `/${change.database}`;
  return url.toString();
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject('postgresUrl') as string });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A port on which nothing listens (one the system just gave and took back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.skipIf(database !== 'postgresql' || !databaseAvailable)(
  'the PostgreSQL check of the test run',
  () => {
    it('creates a database the server lacks, and says so in one line', async () => {
      const name = `petstore_check_${randomBytes(4).toString('hex')}`;
      try {
        const { host } = new URL(variant({}));
        expect(await checkPostgres(variant({ database: name }))).toEqual({
          usable: true,
          notice: `PostgreSQL: the database "${name}" did not exist at ${host}; created it for the tests.`,
        });
        // It is there now: a second check has nothing to say.
        expect(await checkPostgres(variant({ database: name }))).toEqual({ usable: true });
      } finally {
        await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name}`));
      }
    });

    it('names the missing server, not a database, when nothing listens', async () => {
      const port = await closedPort();
      expect(await checkPostgres(`postgresql://postgres@127.0.0.1:${port}/test`)).toEqual({
        usable: false,
        notice: `PostgreSQL tests skipped: no server at 127.0.0.1:${port} (connect ECONNREFUSED 127.0.0.1:${port}); start PostgreSQL there, or set TEST_POSTGRES_URL.`,
      });
    });

    it('names a user the server refuses', async () => {
      const check = await checkPostgres(variant({ user: 'petstore_no_such_user' }));
      expect(check.usable).toBe(false);
      expect(check.notice).toMatch(
        /^PostgreSQL tests skipped: the server at \S+ refused user petstore_no_such_user \(.*petstore_no_such_user.*\); set TEST_POSTGRES_URL to a URL with a user it accepts\.$/,
      );
    });

    it('gives the command to run when the database is missing and the user may not create it', async () => {
      const role = `petstore_nocreate_${randomBytes(4).toString('hex')}`;
      const name = `petstore_check_${randomBytes(4).toString('hex')}`;
      await admin((client) => client.query(`CREATE ROLE ${role} LOGIN NOCREATEDB`));
      try {
        const url = new URL(variant({ user: role, database: name }));
        const check = await checkPostgres(url.toString());
        expect(check).toEqual({
          usable: false,
          notice: `PostgreSQL tests skipped: the database "${name}" does not exist at ${url.host} and could not be created (permission denied to create database); create it (createdb -h ${url.hostname} -p ${url.port || '5432'} -U ${role} ${name}) or set TEST_POSTGRES_URL.`,
        });
      } finally {
        await admin((client) => client.query(`DROP ROLE IF EXISTS ${role}`));
      }
    });
  },
);
