import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { build } from '../../src/build.js';

export const DEFAULT_POSTGRES_URL = 'postgresql://postgres@127.0.0.1:5432/test';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string | null;
  }
}

/** What the PostgreSQL suites found: whether they can run, and one line to print when any. */
export interface PostgresCheck {
  usable: boolean;
  /** What was missing and what was done about it, or what to do; none when all was there. */
  notice?: string;
}

/** The codes of PostgreSQL's refusals that this check explains (SQLSTATE). */
const NO_DATABASE = '3D000';
const DATABASE_EXISTS = '42P04';
const REFUSED_LOGIN = new Set(['28000', '28P01']);

/**
 * Connects to `url` as the PostgreSQL suites will. When the server is there but the database is
 * not, creates it (through the server's `postgres` database) and says so; otherwise says in one
 * line what is missing (the server, the user's login, the right to create the database) and how
 * to fix it. The password is never in a notice.
 */
export async function checkPostgres(url: string): Promise<PostgresCheck> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return skipped(`TEST_POSTGRES_URL is not a URL (${url})`);
  }
  const where = `${target.hostname}:${target.port || '5432'}`;
  const user = decodeURIComponent(target.username) || 'the default user';
  const database = decodeURIComponent(target.pathname.slice(1)) || user;
  const failure = await tryConnect(url);
  if (failure === undefined) return { usable: true };
  if (failure.code === NO_DATABASE) return createDatabase(target, database, where, user);
  if (failure.code !== undefined && REFUSED_LOGIN.has(failure.code))
    return skipped(
      `the server at ${where} refused user ${user} (${failure.message}); set TEST_POSTGRES_URL to a URL with a user it accepts`,
    );
  if (failure.code === 'ECONNREFUSED' || failure.code === 'ENOTFOUND' || failure.timeout)
    return skipped(
      `no server at ${where} (${failure.message}); start PostgreSQL there, or set TEST_POSTGRES_URL`,
    );
  return skipped(`${where} answered: ${failure.message}; or set TEST_POSTGRES_URL`);
}

interface ConnectFailure {
  code: string | undefined;
  message: string;
  timeout: boolean;
}

async function tryConnect(url: string): Promise<ConnectFailure | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.end();
    return undefined;
  } catch (error) {
    await client.end().catch(() => undefined);
    const { code, message } = error as { code?: string; message?: string };
    const text = message || String(error);
    return { code, message: text, timeout: /timeout/i.test(text) };
  }
}

async function createDatabase(
  target: URL,
  database: string,
  where: string,
  user: string,
): Promise<PostgresCheck> {
  const maintenance = new URL(target);
  maintenance.pathname = '/postgres';
  const client = new pg.Client({
    connectionString: maintenance.toString(),
    connectionTimeoutMillis: 3000,
  });
  try {
    await client.connect();
    await client.query(`CREATE DATABASE "${database.replaceAll('"', '""')}"`);
    return {
      usable: true,
      notice: `PostgreSQL: the database "${database}" did not exist at ${where}; created it for the tests.`,
    };
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    if (code === DATABASE_EXISTS) return { usable: true };
    const command = `createdb -h ${target.hostname} -p ${target.port || '5432'} -U ${user} ${database}`;
    return skipped(
      `the database "${database}" does not exist at ${where} and could not be created (${message}); create it (${command}) or set TEST_POSTGRES_URL`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

const skipped = (reason: string): PostgresCheck => ({
  usable: false,
  notice: `PostgreSQL tests skipped: ${reason}.`,
});

/**
 * Finds PostgreSQL once per run, for the PostgreSQL project (the SQLite one never uses it). Where
 * it cannot run, the project skips with a one-line notice saying why, at the start and again at
 * the end of the run; in CI (CI=true) that fails the run instead, so the suite never silently
 * shrinks.
 */
export default async function setup(project: TestProject) {
  // The tests that start the real server run the compiled one, as `npm start` does.
  await build();
  if (project.name !== 'postgresql') {
    project.provide('postgresUrl', null);
    return;
  }
  const url = process.env.TEST_POSTGRES_URL ?? DEFAULT_POSTGRES_URL;
  const { usable, notice } = await checkPostgres(url);
  if (!usable && process.env.CI === 'true')
    throw new Error(`PostgreSQL is required in CI: ${notice}`);
  if (notice) console.warn(notice);
  project.provide('postgresUrl', usable ? url : null);
  // Said again after the summary, where a long run's first lines have scrolled away.
  if (!usable) return () => console.warn(notice);
}
