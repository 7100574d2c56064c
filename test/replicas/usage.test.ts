import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageReport } from '../../src/usage/report.js';
import { createTestApp, database, databaseAvailable, type TestApp } from '../helpers/app.js';
import { graphqlRequest } from '../helpers/graphql.js';
import { rest } from '../helpers/rest.js';

/** Two replicas need one database they can both reach: PostgreSQL, as in production. */
const runs = database === 'postgresql' && databaseAvailable;

async function usage(app: TestApp, token: string, coordinate: string): Promise<UsageReport> {
  const response = await app.fetch(
    new Request(`http://petstore.test/usage?coordinate=${encodeURIComponent(coordinate)}`, {
      headers: { authorization: `Bearer ${token}` },
    }),
  );
  expect(response.status).toBe(200);
  return (await response.json()) as UsageReport;
}

/** coordinate → client name → version → count. */
function counts(report: UsageReport) {
  return Object.fromEntries(
    report.coordinates.map((entry) => [
      `${entry.api} ${entry.coordinate}`,
      Object.fromEntries(
        entry.clients.map((client) => [
          client.name,
          Object.fromEntries(client.versions.map((version) => [version.version, version.count])),
        ]),
      ),
    ]),
  );
}

describe.runIf(runs)('usage across two replicas on one PostgreSQL', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    // Each replica writes what it counted every 100 ms.
    a = await createTestApp({ USAGE_FLUSH_INTERVAL_MS: '100' });
    const replica = await createTestApp({
      USAGE_FLUSH_INTERVAL_MS: '100',
      DATABASE_URL: a.config.database.url,
      AUTH_JWT_SECRET: a.secret,
    });
    // Requests to `b` carry `a`'s tokens, which both verify.
    b = { ...replica, authorization: a.authorization, token: a.token };
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('a query on replica A and REST calls on replica B show in /usage on either, added up', async () => {
    const client = `shop-${randomBytes(3).toString('hex')}`;
    const headers = { 'graphql-client-name': client, 'graphql-client-version': '3.0' };
    const token = await a.token(['admin:read']);
    const query = { query: 'query Names { categories { name } }' };
    expect((await a.fetch(graphqlRequest(query, headers))).status).toBe(200);
    expect((await rest(b, 'GET', '/categories', { headers })).status).toBe(200);
    expect((await rest(b, 'GET', '/categories', { headers })).status).toBe(200);
    // B writes its own counts before it answers; A's arrive with its next write.
    const deadline = Date.now() + 5000;
    let seen = counts(await usage(b, token, 'Category.name'));
    while (!seen['graphql Category.name'] && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen = counts(await usage(b, token, 'Category.name'));
    }
    expect(seen).toEqual({ 'graphql Category.name': { [client]: { '3.0': 1 } } });
    expect(counts(await usage(a, token, 'listCategories'))).toMatchObject({
      'rest listCategories': { [client]: { '3.0': 2 } },
    });
  });

  it('adds what both replicas count for the same client and coordinates at the same moment', async () => {
    const client = `busy-${randomBytes(3).toString('hex')}`;
    const headers = { 'graphql-client-name': client, 'graphql-client-version': '1' };
    const token = await a.token(['admin:read']);
    const calls = Array.from({ length: 40 }, (_, i) =>
      (i % 2 === 0 ? a : b).fetch(new Request('http://petstore.test/api/categories', { headers })),
    );
    for (const response of await Promise.all(calls)) expect(response.status).toBe(200);
    // Both replicas write the same rows at once (each /usage writes its replica's counts first).
    const [fromA, fromB] = await Promise.all([
      usage(a, token, 'listCategories'),
      usage(b, token, 'listCategories'),
    ]);
    const deadline = Date.now() + 5000;
    let report = fromB;
    while (counts(report)['rest listCategories']?.[client]?.['1'] !== 40 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      report = await usage(a, token, 'listCategories');
    }
    expect(fromA.coordinates).toHaveLength(1);
    expect(counts(report)['rest listCategories']?.[client]).toEqual({ '1': 40 });
  });
});
