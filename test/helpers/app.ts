import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import { type App, type AppOptions, createApp } from '../../src/app.js';
import { mintToken, type TokenRequest } from '../../src/auth/tokens.js';
import { loadConfig } from '../../src/config.js';
import { scopes } from '../../src/domain/authorization.js';

export const database = process.env.TEST_DATABASE === 'postgresql' ? 'postgresql' : 'sqlite';
const postgresUrl = inject('postgresUrl');

/** True when this project's database is usable here (PostgreSQL may be absent on a laptop). */
export const databaseAvailable = database === 'sqlite' || postgresUrl !== null;

/** `describe` that skips when the project's database is absent (global setup printed why). */
export const describeDb = describe.skipIf(!databaseAvailable);

export interface TestApp extends App {
  /** Runs raw SQL on this test file's database (for rows the API cannot make, e.g. huge ids). */
  sql(statement: string): Promise<void>;
  /** A valid token signed with this app's secret: all scopes unless given. */
  token(scopes?: readonly string[], claims?: Omit<TokenRequest, 'scopes'>): Promise<string>;
  /** `Bearer <all-scopes token>`: what the request helpers send unless told otherwise. */
  readonly authorization: string;
  /** The HS256 secret this app verifies tokens with. */
  readonly secret: string;
  /** Names its database: in the SQLite file's name, or the PostgreSQL schema and `application_name`. */
  readonly databaseName: string;
}

/**
 * A fresh app on a database of its own: a new SQLite file, or a new PostgreSQL schema, migrated
 * and empty. Extra environment variables override the defaults; `options` go to createApp (e.g. a
 * logger writing where the test reads).
 */
export async function createTestApp(
  env: Record<string, string> = {},
  options: AppOptions = {},
): Promise<TestApp> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const url =
    database === 'sqlite'
      ? `file:${join(tmpdir(), `petstore-${name}.db`)}`
      : // The application_name tells this app's connections apart from other files' (fault tests).
        `${postgresUrl}${postgresUrl?.includes('?') ? '&' : '?'}schema=${name}&application_name=${name}`;
  const secret = randomBytes(32).toString('base64url');
  const config = loadConfig({
    DATABASE_URL: url,
    SEED: 'false',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    RATE_LIMIT_COST_PER_MINUTE: '0',
    AUTH_JWT_SECRET: secret,
    // Usage counts are written when GET /usage asks (or at close), never in the middle of a test
    // that counts SQL statements.
    USAGE_FLUSH_INTERVAL_MS: '3600000',
    ...env,
  });
  const app = await createApp(config, options);
  const token = (granted: readonly string[] = scopes, claims: Omit<TokenRequest, 'scopes'> = {}) =>
    mintToken(secret, { scopes: granted, ...claims });
  return {
    ...app,
    secret,
    databaseName: name,
    token,
    authorization: `Bearer ${await token()}`,
    sql: (statement) => app.database.prisma.$executeRawUnsafe(statement).then(() => undefined),
    close: async () => {
      await app.close();
      if (config.database.provider === 'sqlite') {
        await rm(config.database.file, { force: true });
      } else {
        const client = new pg.Client({ connectionString: postgresUrl ?? undefined });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
        await client.end();
      }
    },
  };
}

/** One app per test file: created before the tests, closed and deleted after them. */
export function useTestApp(
  env: Record<string, string> = {},
  options: AppOptions = {},
): () => TestApp {
  let app: TestApp | undefined;
  beforeAll(async () => {
    if (databaseAvailable) app = await createTestApp(env, options);
  });
  afterAll(async () => {
    await app?.close();
  });
  return () => {
    if (!app) throw new Error('the test app is not ready');
    return app;
  };
}
