import { createSchema, createYoga } from 'graphql-yoga';
import { Hono } from 'hono';
import { expect, it } from 'vitest';
import { anonymous } from '../../src/domain/context.js';
import { chain, type Link } from '../../src/http/chain.js';
import type { AppEnv } from '../../src/http/env.js';
import { accessLog } from '../../src/observability/access-log.js';
import { BoundedLabel } from '../../src/observability/bounded-label.js';
import { ClientNames } from '../../src/observability/client-name.js';
import { graphqlMetrics } from '../../src/observability/graphql-metrics.js';
import { httpMetrics } from '../../src/observability/http-metrics.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { metricsRoutes } from '../../src/observability/metrics-route.js';
import { honoPath } from '../../src/rest/kit/route.js';
import { routeMark } from '../../src/rest/marks.js';
import { allRoutes } from '../../src/rest/routes/index.js';
import { createTestApp, describeDb, useTestApp } from '../helpers/app.js';
import { parseMetrics, sampleValue, scrape } from '../helpers/metrics.js';

const get = (path: string, headers: Record<string, string> = {}) =>
  new Request(`http://petstore.test${path}`, { headers });

/** The labels of a request that names no client. */
const unnamed = { client_name: 'unknown', client_version: 'unknown' };

const postGraphQL = (body: unknown) =>
  new Request('http://petstore.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify(body),
  });

describeDb('/metrics', () => {
  // Executed operations: answers from the response cache count in its own metrics instead.
  const app = useTestApp({ RESPONSE_CACHE_TTL_MS: '0' });

  it('serves the Prometheus text format with HTTP, GraphQL, database, deprecation and process metrics', async () => {
    const response = await app().fetch(get('/metrics'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const types = [...(await response.text()).matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(
      ([, name, type]) => `${name} ${type}`,
    );
    expect(types).toEqual(
      expect.arrayContaining([
        'http_requests_total counter',
        'http_request_duration_seconds histogram',
        'graphql_envelop_request counter',
        'graphql_envelop_request_duration histogram',
        'graphql_envelop_error_result counter',
        'petstore_db_statements_total counter',
        'petstore_deprecated_calls_total counter',
        'process_cpu_user_seconds_total counter',
        'nodejs_eventloop_lag_seconds gauge',
      ]),
    );
  });

  it('counts HTTP requests by route pattern and status; unknown routes share one label', async () => {
    await app().fetch(get('/health/live'));
    await app().fetch(get('/health/live'));
    await app().fetch(get('/no/such/route/1'));
    await app().fetch(get('/no/such/route/2'));
    const samples = await scrape(app());
    expect(
      sampleValue(samples, 'http_requests_total', {
        ...unnamed,
        method: 'GET',
        route: '/health/live',
        status: '200',
      }),
    ).toBe(2);
    expect(
      sampleValue(samples, 'http_requests_total', {
        ...unnamed,
        method: 'GET',
        route: 'unmatched',
        status: '404',
      }),
    ).toBe(2);
    expect(
      sampleValue(samples, 'http_request_duration_seconds_count', {
        client_name: 'unknown',
        method: 'GET',
        route: '/health/live',
        status: '200',
      }),
    ).toBe(2);
    expect(samples.some((sample) => sample.labels.route?.startsWith('/no/'))).toBe(false);
  });

  it('writes each duration histogram as cumulative buckets that end at its count, with a sum', async () => {
    for (let i = 0; i < 3; i++) await app().fetch(get('/health/ready'));
    const labels = { client_name: 'unknown', method: 'GET', route: '/health/ready', status: '200' };
    const samples = await scrape(app());
    const buckets = samples.filter(
      (sample) =>
        sample.name === 'http_request_duration_seconds_bucket' &&
        Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    );
    const counts = buckets.map((bucket) => bucket.value);
    const bounds = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10'];
    expect(buckets.map((bucket) => bucket.labels.le)).toEqual([...bounds, '+Inf']);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    const count = sampleValue(samples, 'http_request_duration_seconds_count', labels);
    expect(count).toBeGreaterThanOrEqual(3);
    expect(counts.at(-1)).toBe(count);
    expect(sampleValue(samples, 'http_request_duration_seconds_sum', labels)).toBeGreaterThan(0);
  });

  it('labels requests with the client name and version they send, Apollo Client’s headers too', async () => {
    const named = (headers: Record<string, string>) => app().fetch(get('/health/live', headers));
    await named({ 'graphql-client-name': 'shop-web', 'graphql-client-version': '4.1.0' });
    await named({ 'graphql-client-name': 'shop-web', 'graphql-client-version': '4.1.0' });
    await named({ 'apollographql-client-name': 'shop-ios', 'apollographql-client-version': '7' });
    await named({ 'graphql-client-name': 'shop-cli' });
    const samples = await scrape(app());
    const count = (client_name: string, client_version: string) =>
      sampleValue(samples, 'http_requests_total', {
        method: 'GET',
        route: '/health/live',
        status: '200',
        client_name,
        client_version,
      });
    expect([
      count('shop-web', '4.1.0'),
      count('shop-ios', '7'),
      count('shop-cli', 'unknown'),
    ]).toEqual([2, 1, 1]);
    // Durations by name only: a histogram per version would multiply its buckets.
    expect(
      sampleValue(samples, 'http_request_duration_seconds_count', {
        method: 'GET',
        route: '/health/live',
        status: '200',
        client_name: 'shop-web',
      }),
    ).toBe(2);
  });

  it('keeps at most CLIENT_NAMES_MAX names and CLIENT_VERSIONS_MAX versions of each; later ones are other', async () => {
    const bounded = await createTestApp({ CLIENT_NAMES_MAX: '2', CLIENT_VERSIONS_MAX: '1' });
    try {
      for (const [name, version] of <[string, string][]>[
        ['one', '1'],
        ['one', '2'],
        ['two', '1'],
        ['three', '1'],
        ['four\u001b[31m', '1'],
      ]) {
        await bounded.fetch(
          get('/health/live', { 'graphql-client-name': name, 'graphql-client-version': version }),
        );
      }
      const pairs = (await scrape(bounded))
        .filter((sample) => sample.name === 'http_requests_total')
        .map(({ labels, value }) => `${labels.client_name}@${labels.client_version}=${value}`)
        .sort();
      expect(pairs).toEqual(['one@1=1', 'one@other=1', 'other@other=2', 'two@1=1']);
    } finally {
      await bounded.close();
    }
  });

  it('counts GraphQL operations by name, and errors by phase and contract code', async () => {
    await app().fetch(
      postGraphQL({ query: 'query MetricsPets { pets(first: 1) { totalCount } }' }),
    );
    await app().fetch(
      postGraphQL({ query: 'query MetricsPets { pets(first: 1) { totalCount } }' }),
    );
    await app().fetch(postGraphQL({ query: '{ pet(id: "abc") { id } }' }));
    await app().fetch(postGraphQL({ query: '{ noSuchField }' }));
    const samples = await scrape(app());
    expect(
      sampleValue(samples, 'graphql_envelop_request', {
        operationType: 'query',
        operationName: 'MetricsPets',
      }),
    ).toBe(2);
    expect(
      sampleValue(samples, 'graphql_envelop_request_duration_count', {
        operationType: 'query',
        operationName: 'MetricsPets',
      }),
    ).toBe(2);
    expect(
      sampleValue(samples, 'graphql_envelop_error_result', {
        operationType: 'query',
        operationName: 'Anonymous',
        phase: 'execute',
        code: 'VALIDATION_FAILED',
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'graphql_envelop_error_result', {
        operationType: 'query',
        operationName: 'Anonymous',
        phase: 'validate',
        code: 'GRAPHQL_VALIDATION_FAILED',
      }),
    ).toBe(1);
  });

  it('exposes the database statement counter', async () => {
    const before = sampleValue(await scrape(app()), 'petstore_db_statements_total') ?? Number.NaN;
    await app().fetch(postGraphQL({ query: '{ categories { id } }' }));
    const after = sampleValue(await scrape(app()), 'petstore_db_statements_total') ?? Number.NaN;
    expect(before).toBeGreaterThan(0);
    expect(after).toBeGreaterThan(before);
    expect(after).toBe(app().database.statementCount());
  });

  it('keeps each app’s metrics in its own registry', async () => {
    const other = await createTestApp();
    try {
      const mine = sampleValue(await scrape(app()), 'http_requests_total', {
        ...unnamed,
        method: 'GET',
        route: '/health/ready',
        status: '200',
      });
      await other.fetch(get('/health/ready'));
      await other.fetch(get('/health/ready'));
      expect(
        sampleValue(await scrape(other), 'http_requests_total', {
          ...unnamed,
          method: 'GET',
          route: '/health/ready',
          status: '200',
        }),
      ).toBe(2);
      expect(
        sampleValue(await scrape(app()), 'http_requests_total', {
          ...unnamed,
          method: 'GET',
          route: '/health/ready',
          status: '200',
        }),
      ).toBe(mine);
    } finally {
      await other.close();
    }
  });
});

describeDb('deprecated calls per client', () => {
  const app = useTestApp();

  /**
   * The app's middleware order (access log and metrics first, auth next, each REST route's marks
   * chained before its handler under /api), with routes that answer like `GET /api/pets/{petId}`
   * (deprecated) and `GET /api/pets`.
   */
  function gateway() {
    const metrics = createMetrics(app().database);
    const hono = new Hono<AppEnv>();
    hono.use(
      accessLog(app().logger, new ClientNames(app().config.clientNames), httpMetrics(metrics)),
    );
    // Stands in for the auth middleware: a verified token's subject becomes the viewer.
    hono.use(async (c, next) => {
      const subject = c.req.header('x-subject');
      c.set(
        'viewer',
        subject ? { authenticated: true, subject, scopes: new Set<string>() } : anonymous,
      );
      await next();
    });
    hono.route('/', metricsRoutes(metrics));
    const noUsage = { enabled: false, record: () => {} };
    const answers: Record<string, Link<AppEnv>> = {
      '/pets': (c) => c.json([]),
      '/pets/{petId}': (c) => c.json({ id: c.req.param('petId') }),
    };
    // Each route as the façade mounts it: its marks, then its handler, in one chain.
    for (const { spec } of allRoutes) {
      const answer = answers[spec.path];
      if (spec.method !== 'get' || !answer) continue;
      const mark = routeMark(spec, { config: app().config, usage: noUsage });
      hono.get(`/api${honoPath(spec.path)}`, mark ? chain(mark, answer) : chain(answer));
    }
    return hono;
  }

  it('counts calls to a deprecated REST route by token subject, else User-Agent', async () => {
    const hono = gateway();
    await hono.fetch(get('/api/pets/1', { 'user-agent': 'legacy-shop/1.0' }));
    await hono.fetch(get('/api/pets/2', { 'user-agent': 'legacy-shop/1.0' }));
    await hono.fetch(get('/api/pets/3', { 'user-agent': 'legacy-shop/1.0', 'x-subject': 'alice' }));
    await hono.fetch(get('/api/pets/4'));
    await hono.fetch(get('/api/pets', { 'user-agent': 'modern-shop/2.0' }));
    const samples = await scrape(hono);
    const deprecated = samples.filter(
      (sample) => sample.name === 'petstore_deprecated_calls_total',
    );
    expect(deprecated.map(({ labels, value }) => ({ ...labels, value }))).toEqual(
      expect.arrayContaining([
        { api: 'rest', operation: 'GET /api/pets/{petId}', client: 'legacy-shop/1.0', value: 2 },
        { api: 'rest', operation: 'GET /api/pets/{petId}', client: 'alice', value: 1 },
        { api: 'rest', operation: 'GET /api/pets/{petId}', client: 'unknown', value: 1 },
      ]),
    );
    expect(deprecated).toHaveLength(3);
    expect(
      sampleValue(samples, 'http_requests_total', {
        ...unnamed,
        method: 'GET',
        route: '/api/pets/{petId}',
        status: '200',
      }),
    ).toBe(4);
  });

  it('truncates user agents, and caps the number of distinct clients', async () => {
    const hono = gateway();
    const long = `Mozilla/5.0 ${'x'.repeat(200)}`;
    await hono.fetch(get('/api/pets/1', { 'user-agent': long }));
    const samples = await scrape(hono);
    expect(
      sampleValue(samples, 'petstore_deprecated_calls_total', {
        api: 'rest',
        operation: 'GET /api/pets/{petId}',
        client: long.slice(0, 64),
      }),
    ).toBe(1);

    const label = new BoundedLabel(2, 8);
    expect(
      ['one', 'two', 'three', 'one', '  ', 'a-very-long-agent'].map((v) => label.value(v)),
    ).toEqual(['one', 'two', 'other', 'one', 'unknown', 'other']);
  });

  it('counts deprecated GraphQL fields and arguments per client', async () => {
    const metrics = createMetrics(app().database);
    const yoga = createYoga<{ viewer: typeof anonymous }>({
      schema: createSchema({
        typeDefs: /* GraphQL */ `
          type Query {
            petById(id: ID!): String @deprecated(reason: "Use pet.")
            pet(id: ID!, legacyId: Int @deprecated(reason: "Use id.")): String
          }
        `,
        resolvers: { Query: { petById: () => 'Rex', pet: () => 'Rex' } },
      }),
      plugins: [graphqlMetrics(metrics)],
    });
    const ask = (query: string, headers: Record<string, string>, subject?: string) =>
      yoga.fetch(
        new Request('http://petstore.test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ query }),
        }),
        {
          viewer: subject ? { authenticated: true, subject, scopes: new Set<string>() } : anonymous,
        },
      );
    await ask('{ petById(id: "1") }', { 'user-agent': 'old-app/3' });
    await ask('{ petById(id: "1") }', { 'user-agent': 'old-app/3' }, 'bob');
    await ask('{ pet(id: "1", legacyId: 1) }', { 'user-agent': 'old-app/3' });
    await ask('{ pet(id: "1") }', { 'user-agent': 'new-app/1' });
    const samples = parseMetrics(await metrics.registry.metrics());
    expect(
      samples
        .filter((sample) => sample.name === 'petstore_deprecated_calls_total')
        .map(({ labels, value }) => ({ ...labels, value })),
    ).toEqual(
      expect.arrayContaining([
        { api: 'graphql', operation: 'Query.petById', client: 'old-app/3', value: 1 },
        { api: 'graphql', operation: 'Query.petById', client: 'bob', value: 1 },
        { api: 'graphql', operation: 'pet.legacyId', client: 'old-app/3', value: 1 },
      ]),
    );
    expect(
      samples.filter((sample) => sample.name === 'petstore_deprecated_calls_total'),
    ).toHaveLength(3);
  });
});

describeDb('deprecated calls on the real REST route', () => {
  const app = useTestApp({ PET_BY_ID_SUNSET: '2999-01-01T00:00:00Z' });

  it('counts GET /api/pets/{petId} per client', async () => {
    const { makePet } = await import('../helpers/factories.js');
    const pet = await makePet(app());
    const response = await app().fetch(
      new Request(`http://petstore.test/api/pets/${pet.id}`, {
        headers: { 'user-agent': 'legacy-app/7' },
      }),
    );
    expect(response.headers.get('deprecation')).toBe('@1795219200');
    const samples = await scrape(app());
    expect(
      sampleValue(samples, 'petstore_deprecated_calls_total', {
        api: 'rest',
        operation: 'GET /api/pets/{petId}',
        client: 'legacy-app/7',
      }),
    ).toBe(1);
  });
});
