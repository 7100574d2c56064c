import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoutes } from '../../bench/baseline/routes.js';
import { openStore, type Store } from '../../bench/baseline/store.js';
import { createFixture, type Fixture } from '../../bench/fixture.js';
import { scenarios } from '../../bench/scenarios.js';
import { type App, createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { database } from '../helpers/app.js';

/**
 * The benchmark's ratios mean something only while the baseline answers exactly what the product
 * does; this fails as soon as a schema or serialisation change makes them drift. The benchmark
 * runs on SQLite, so this does too. Every scenario must answer: a route that regresses to 404
 * fails here.
 */
describe.skipIf(database !== 'sqlite')('the benchmark baseline', () => {
  const file = join(tmpdir(), `petstore-bench-test-${process.pid}.db`);
  let fixture: Fixture;
  let app: App;
  let store: Store;

  beforeAll(async () => {
    fixture = await createFixture({ file, pets: 300 });
    app = await createApp(
      loadConfig({
        DATABASE_URL: `file:${file}`,
        SEED: 'false',
        LOG_LEVEL: 'silent',
        RATE_LIMIT_PER_MINUTE: '0',
      }),
    );
    store = openStore(file);
  });
  afterAll(async () => {
    store?.close();
    await app?.close();
    await rm(file, { force: true });
  });

  it.each(scenarios.map((scenario) => [scenario.name, scenario] as const))(
    'fails %s when its route answers 404 (a regression, never a skipped scenario)',
    (_name, scenario) => {
      const [request] = scenario.requests(fixture, 'Bearer token');
      if (!request) throw new Error('no request');
      const notFound = {
        status: 404,
        headers: new Headers({ 'content-type': 'application/json' }),
        body: '{"code":"NOT_FOUND","message":"No route","status":404}',
      };
      expect(() => scenario.check(request, notFound, fixture)).toThrow(/status 404/);
    },
  );

  for (const scenario of scenarios.filter((s) => s.baseline)) {
    it(`answers ${scenario.name} with the product's exact bytes`, async () => {
      const route = createRoutes(store);
      for (const request of scenario.requests(fixture, '').slice(0, 5)) {
        const response = await app.fetch(
          new Request(`http://bench.test${request.path}`, {
            method: request.method,
            headers: request.headers,
            body: request.body,
          }),
        );
        const product = { status: response.status, headers: response.headers };
        const body = await response.text();
        const reply = route(request.method, request.path, request.body ?? '');
        scenario.check(request, { ...product, body }, fixture);
        expect({ status: reply.status, body: reply.body }).toEqual({
          status: product.status,
          body,
        });
      }
    });
  }
});
