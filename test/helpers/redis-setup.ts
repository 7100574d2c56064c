import { Redis } from 'ioredis';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string | null;
  }
}

/**
 * Finds Redis once per run (TEST_REDIS_URL, default the local one). Without it the suites that
 * need it skip with a one-line notice; in CI (CI=true) a missing Redis fails the run instead.
 */
export default async function setup(project: TestProject) {
  const url = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    project.provide('redisUrl', url);
  } catch (error) {
    if (process.env.CI === 'true')
      throw new Error(`Redis is required in CI but ${url} is unreachable: ${error}`);
    if (project.name === 'postgresql')
      console.warn(`Redis tests skipped: no server at ${url} (set TEST_REDIS_URL).`);
    project.provide('redisUrl', null);
  } finally {
    client.disconnect();
  }
}
