import { expect, it } from 'vitest';
import type { UsageReport } from '../../src/usage/report.js';
import { createTestApp, describeDb, type TestApp, useTestApp } from '../helpers/app.js';
import { graphqlRequest } from '../helpers/graphql.js';
import { captureLogs } from '../helpers/logs.js';
import { scrape } from '../helpers/metrics.js';

const named = (name: string, headers: Record<string, string> = {}) => ({
  'graphql-client-name': name,
  'graphql-client-version': '1.0',
  ...headers,
});

/** One GraphQL query and one REST read under `headers`: both edges count the name. */
async function call(app: TestApp, headers: Record<string, string>) {
  const graphql = await app.fetch(graphqlRequest({ query: '{ categories { id } }' }, headers));
  const rest = await app.fetch(new Request('http://petstore.test/api/categories', { headers }));
  expect([graphql.status, rest.status]).toEqual([200, 200]);
}

/** The client names /metrics, /usage and the access log show, each sorted. */
async function namesShown(app: TestApp, logs: ReturnType<typeof captureLogs>) {
  const metrics = new Set(
    (await scrape(app))
      .filter((sample) => sample.name === 'http_requests_total')
      .map((sample) => sample.labels.client_name as string),
  );
  const authorization = `Bearer ${await app.token(['admin:read'])}`;
  const response = await app.fetch(
    new Request('http://petstore.test/usage', { headers: { authorization } }),
  );
  const report = (await response.json()) as UsageReport;
  const usage = new Set(
    report.coordinates.flatMap((entry) => entry.clients.map((client) => client.name)),
  );
  const log = new Set(logs.accessLines().map((line) => line.client as string | undefined));
  return { metrics, usage, log };
}

describeDb('client names', () => {
  const logs = captureLogs();
  const app = useTestApp({ CLIENT_NAMES: 'shop-web, shop-ios' }, { logger: logs.logger });

  it('keeps a listed name and a name with a valid token after an anonymous burst of 60 names', async () => {
    for (let i = 0; i < 60; i++) await call(app(), named(`squatter-${i}`));
    await call(app(), named('shop-web'));
    await call(app(), named('partner-app', { authorization: app().authorization }));
    const shown = await namesShown(app(), logs);
    for (const names of [shown.metrics, shown.usage, shown.log]) {
      expect(names).toContain('shop-web');
      expect(names).toContain('partner-app');
      expect(names).toContain('other');
      // Anonymous callers took the ten names left to them (CLIENT_NAMES_ANONYMOUS_MAX), no more.
      const squatters = [...names].filter((name) => name?.startsWith('squatter-'));
      expect(squatters.sort()).toEqual(
        Array.from({ length: 10 }, (_, i) => `squatter-${i}`).sort(),
      );
    }
  });
});

describeDb('client names, bounded', () => {
  it('gives a caller with a valid token a new name while CLIENT_NAMES_MAX has room, then other', async () => {
    const logs = captureLogs();
    const bounded = await createTestApp(
      { CLIENT_NAMES: 'shop-web', CLIENT_NAMES_MAX: '3', CLIENT_NAMES_ANONYMOUS_MAX: '1' },
      { logger: logs.logger },
    );
    try {
      const token = { authorization: bounded.authorization };
      await call(bounded, named('anonymous-one'));
      await call(bounded, named('anonymous-two'));
      await call(bounded, named('partner-one', token));
      await call(bounded, named('partner-two', token));
      await call(bounded, named('shop-web'));
      // A name taken stays its own for every caller.
      await call(bounded, named('partner-one'));
      await call(bounded, named('anonymous-one', token));
      expect(
        logs
          .accessLines()
          .filter((line) => line.path === '/api/categories')
          .map((line) => line.client),
      ).toEqual([
        'anonymous-one',
        'other',
        'partner-one',
        'other',
        'shop-web',
        'partner-one',
        'anonymous-one',
      ]);
    } finally {
      await bounded.close();
    }
  });
});
