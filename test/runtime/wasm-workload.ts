/**
 * A child process of wasm-baseline-tier.test.ts: starts the app on a fresh SQLite file (its
 * migrations, its seed), sends GraphQL reads of every kind, then prints its resident memory in MB
 * after a full collection. With `baseline` as its argument it first loads src/runtime's module.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

if (process.argv[2] === 'baseline') await import('../../src/runtime/wasm-baseline-tier.js');
const { createApp } = await import('../../src/app.js');
const { loadConfig } = await import('../../src/config.js');

const dir = await mkdtemp(join(tmpdir(), 'petstore-wasm-'));
const app = await createApp(
  loadConfig({
    DATABASE_URL: `file:${join(dir, 'petstore.db')}`,
    SEED: 'true',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    RATE_LIMIT_COST_PER_MINUTE: '0',
    AUTH_JWT_SECRET: 'a-secret-of-the-workload-only-0123456789abcdef',
  }),
);
const queries = [
  '{ pet(id: "1") { id name status category { name } } }',
  '{ pets(first: 20) { edges { node { id name inventory { quantity } } } pageInfo { hasNextPage } } }',
  '{ categories { id name } }',
];
for (let round = 0; round < 400; round++)
  for (const query of queries) {
    const response = await app.fetch(
      new Request('http://localhost/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      }),
    );
    if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}`);
    await response.text();
  }
await app.close();
(globalThis as { gc?: () => void }).gc?.();
await new Promise((resolve) => setTimeout(resolve, 500));
process.stdout.write(`${Math.round(process.memoryUsage().rss / 1048576)}\n`);
await rm(dir, { recursive: true, force: true });
