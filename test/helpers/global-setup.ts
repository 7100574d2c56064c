import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { build } from '../../src/build.js';

export const DEFAULT_POSTGRES_URL = 'postgresql://postgres@127.0.0.1:5432/test';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string | null;
  }
}

/**
 * Finds PostgreSQL once per run. Without it the PostgreSQL project skips with a one-line notice;
 * in CI (CI=true) a missing server fails the run instead, so the suite never silently shrinks.
 */
export default async function setup(project: TestProject) {
  // The tests that start the real server run the compiled one, as `npm start` does.
  await build();
  const url = process.env.TEST_POSTGRES_URL ?? DEFAULT_POSTGRES_URL;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.end();
    project.provide('postgresUrl', url);
  } catch (error) {
    if (process.env.CI === 'true')
      throw new Error(`PostgreSQL is required in CI but ${url} is unreachable: ${error}`);
    if (project.name === 'postgresql') {
      console.warn(`PostgreSQL tests skipped: no server at ${url} (set TEST_POSTGRES_URL).`);
    }
    project.provide('postgresUrl', null);
  }
}
