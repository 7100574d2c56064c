import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { createRoutes } from '../../bench/baseline/routes.js';
import { openStore, type Store } from '../../bench/baseline/store.js';
import { placeOrder } from '../../bench/documents.js';
import { createFixture, type Fixture } from '../../bench/fixture.js';
import { openFloorDatabase } from '../../bench/floor/database.js';
import { createGraphQLFloor } from '../../bench/floor/graphql.js';
import { createRestFloor } from '../../bench/floor/rest.js';
import { scenarios } from '../../bench/scenarios.js';
import { withoutCostReport } from '../../bench/verify.js';
import { type App, createApp } from '../../src/app.js';
import { mintToken } from '../../src/auth/tokens.js';
import { loadConfig } from '../../src/config.js';
import { scopes } from '../../src/domain/authorization.js';
import { database, describeDb } from '../helpers/app.js';

/**
 * The benchmark's ratios mean something only while the baseline answers exactly what the product
 * does; this fails as soon as a schema or serialisation change makes them drift, on SQLite (the
 * better-sqlite3 baseline) and on PostgreSQL (the pg baseline). Every scenario must answer: a
 * route that regresses to 404 fails here.
 */
describeDb('the benchmark baseline', () => {
  const secret = 'bench-test-secret-0123456789abcdef';
  let fixture: Fixture;
  let app: App;
  let store: Store;
  let floor: ReturnType<typeof openFloorDatabase>;

  beforeAll(async () => {
    fixture = await createFixture({
      target:
        database === 'sqlite'
          ? { database, file: join(tmpdir(), `petstore-bench-test-${process.pid}.db`) }
          : { database, url: inject('postgresUrl') ?? '' },
      pets: 300,
    });
    app = await createApp(
      loadConfig({
        DATABASE_URL: fixture.url,
        AUTH_JWT_SECRET: secret,
        SEED: 'false',
        LOG_LEVEL: 'silent',
        RATE_LIMIT_PER_MINUTE: '0',
        RATE_LIMIT_COST_PER_MINUTE: '0',
      }),
    );
    store = await openStore(fixture.url);
    floor = openFloorDatabase({ DATABASE_URL: fixture.url, SEED: 'false' });
  });
  afterAll(async () => {
    await store?.close();
    await floor?.database.close();
    await app?.close();
    await fixture?.drop();
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
        const reply = await route(request.method, request.path, request.body ?? '');
        scenario.check(request, { ...product, body }, fixture);
        // The cached scenarios repeat the requests above: this app (cache on) answers them from
        // its cache, which runs nothing and charges nothing: its report keeps the requested cost
        // and has no actual one (docs/demand-control.md).
        const expected = scenario.cached
          ? reply.body.replace(/"cost":\{("requestedQueryCost":\d+)[^}]*\}/, '"cost":{$1}')
          : reply.body;
        expect({ status: reply.status, body: expected }).toEqual({
          status: product.status,
          body,
        });
      }
    });
  }

  // The framework floor (bench/floor/) must answer the product's bytes too, or product ÷ floor
  // compares different work.
  for (const scenario of scenarios.filter((s) => s.floor)) {
    it(`answers ${scenario.name} on the ${scenario.floor} floor with the product's exact bytes`, async () => {
      const { database: db, shared, config } = floor;
      const server =
        scenario.floor === 'graphql'
          ? createGraphQLFloor({ database: db, shared, listItems: config.limits.graphqlListItems })
          : createRestFloor({ database: db, shared });
      for (const request of scenario.requests(fixture, '').slice(0, 5)) {
        const answer = async (fetch: (request: Request) => Response | Promise<Response>) => {
          const response = await fetch(
            new Request(`http://bench.test${request.path}`, {
              method: request.method,
              headers: request.headers,
              body: request.body,
            }),
          );
          return {
            status: response.status,
            headers: response.headers,
            body: await response.text(),
          };
        };
        const product = await answer((r) => app.fetch(r));
        const floorAnswer = await answer((r) => server.fetch(r));
        scenario.check(request, floorAnswer, fixture);
        expect({ status: floorAnswer.status, body: floorAnswer.body }).toEqual({
          status: product.status,
          body: withoutCostReport(product.body),
        });
      }
    });
  }

  // A floor answering a scenario's reference requests (the REST floor with the contract's headers)
  // must send what the product sends: its status, its bytes and the same headers.
  for (const scenario of scenarios.filter((s) => s.reference?.floor === 'rest')) {
    it(`answers ${scenario.name}'s reference on the rest floor with the product's bytes and headers`, async () => {
      const { database: db, shared } = floor;
      const server = createRestFloor({ database: db, shared });
      const requests = scenario.requests(fixture, '').slice(0, 5);
      const references = scenario.reference?.requests(fixture, '') ?? [];
      // The rate limit's headers are the one difference: the bench runs with the limit off.
      const headerNames = (headers: Headers) =>
        [...headers.keys()].filter((name) => !name.startsWith('ratelimit')).sort();
      for (const [at, request] of requests.entries()) {
        const reference = references[at];
        if (!reference) throw new Error('no reference request');
        const product = await app.fetch(new Request(`http://bench.test${request.path}`));
        const answer = await server.fetch(new Request(`http://bench.test${reference.path}`));
        expect({
          status: answer.status,
          body: await answer.text(),
          headers: headerNames(answer.headers),
        }).toEqual({
          status: product.status,
          body: await product.text(),
          headers: headerNames(product.headers),
        });
      }
    });
  }

  it('finds every unit placeOrder took accounted for by an order, and notices one that is not', async () => {
    const petId = fixture.orderPetIds[0] as number;
    const order = await app.fetch(
      new Request('http://bench.test/graphql', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${await mintToken(secret, { scopes, subject: 'bench' })}`,
        },
        body: JSON.stringify({
          query: placeOrder,
          variables: { input: { petId: String(petId), quantity: 2 } },
        }),
      }),
    );
    expect(await order.json()).toMatchObject({ data: { placeOrder: { quantity: 2 } } });
    expect(await fixture.unaccountedUnits()).toBe(0);
    await app.database.prisma.inventoryItem.update({
      where: { petId: BigInt(petId) },
      data: { quantity: { decrement: 3 } },
    });
    expect(await fixture.unaccountedUnits()).toBe(3);
  });
});
