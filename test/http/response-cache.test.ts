import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeDb, type TestApp, useTestApp } from '../helpers/app.js';
import { makeCategory, makeOrder, makePet } from '../helpers/factories.js';
import { serveApp } from '../helpers/live.js';
import { type Sample, sampleValue, scrape } from '../helpers/metrics.js';
import { rest } from '../helpers/rest.js';

const URL_BASE = 'http://petstore.test';

/** A GraphQL query by GET, as a browser or a CDN-friendly client sends it. */
function getQuery(
  app: TestApp,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  const params = new URLSearchParams({ query, variables: JSON.stringify(variables) });
  return app.fetch(
    new Request(`${URL_BASE}/graphql?${params}`, {
      headers: { accept: 'application/graphql-response+json', ...headers },
    }),
  );
}

/** A GraphQL operation by POST. */
function postQuery(
  app: TestApp,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  return app.fetch(
    new Request(`${URL_BASE}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...headers,
      },
      body: JSON.stringify({ query, variables }),
    }),
  );
}

const cacheCount = (samples: Sample[], name: string, labels: Record<string, string>) =>
  sampleValue(samples, `petstore_response_cache_${name}_total`, labels) ?? 0;

const PetName = 'query PetName($id: ID!) { pet(id: $id) { id name status } }';
const PetWithOrders =
  'query PetWithOrders($id: ID!) { pet(id: $id) { id name orders(first: 5) { totalCount } } }';

describeDb('the response cache and HTTP validators', () => {
  const app = useTestApp({ RESPONSE_CACHE_TTL_MS: '60000' });
  const token = () => ({ authorization: app().authorization });

  it('answers a repeated public GraphQL read from the cache, with ETag and no-cache', async () => {
    const pet = await makePet(app(), { name: 'Cached' });
    const before = await scrape(app());
    const first = await getQuery(app(), PetName, { id: String(pet.id) });
    const firstBody = await first.text();
    const second = await getQuery(app(), PetName, { id: String(pet.id) });
    const after = await scrape(app());

    expect(first.status).toBe(200);
    const data = { pet: { id: String(pet.id), name: 'Cached', status: 'available' } };
    expect(JSON.parse(firstBody)).toEqual({
      data,
      extensions: { cost: { requestedQueryCost: 1, actualQueryCost: 1 } },
    });
    expect(first.headers.get('cache-control')).toBe('no-cache');
    expect(first.headers.get('etag')).toMatch(/^"[\w-]{32}"$/);
    expect(first.headers.get('last-modified')).toBeNull();
    expect(second.status).toBe(200);
    // A hit runs nothing (no actualQueryCost) and reports what its document costs.
    expect(await second.json()).toEqual({ data, extensions: { cost: { requestedQueryCost: 1 } } });
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    const delta = (name: string) =>
      cacheCount(after, name, { edge: 'graphql' }) - cacheCount(before, name, { edge: 'graphql' });
    expect({ hits: delta('hits'), misses: delta('misses') }).toEqual({ hits: 1, misses: 1 });
  });

  it('answers 304 with no body to If-None-Match with the current tag, on both edges', async () => {
    const pet = await makePet(app(), { name: 'Validated' });
    const graphqlFirst = await getQuery(app(), PetName, { id: String(pet.id) });
    const graphqlTag = graphqlFirst.headers.get('etag') as string;
    const graphqlAgain = await getQuery(
      app(),
      PetName,
      { id: String(pet.id) },
      { 'if-none-match': graphqlTag },
    );
    expect(graphqlAgain.status).toBe(304);
    expect(await graphqlAgain.text()).toBe('');
    expect(graphqlAgain.headers.get('etag')).toBe(graphqlTag);
    expect(graphqlAgain.headers.get('cache-control')).toBe('no-cache');

    const anonymous = { fetch: app().fetch };
    const restFirst = await rest(anonymous, 'GET', `/store/inventory/${pet.id}`);
    expect(restFirst.status).toBe(200);
    expect(restFirst.headers.get('cache-control')).toBe('no-cache');
    const restTag = restFirst.headers.get('etag') as string;
    // One resource: its version (a list's tag is a hash of its body).
    expect(restTag).toMatch(/^"\d+"$/);
    const restAgain = await rest(anonymous, 'GET', `/store/inventory/${pet.id}`, {
      headers: { 'if-none-match': `"other", ${restTag}` },
    });
    expect({ status: restAgain.status, text: restAgain.text }).toEqual({ status: 304, text: '' });
    expect(restAgain.headers.get('etag')).toBe(restTag);

    // A write changes the body, so the old tag no longer matches.
    await rest(app(), 'PUT', `/store/inventory/${pet.id}`, { json: { quantity: 7 } });
    const changed = await rest(anonymous, 'GET', `/store/inventory/${pet.id}`, {
      headers: { 'if-none-match': restTag },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ petId: Number(pet.id), quantity: 7, status: 'available' });
    expect(changed.headers.get('etag')).not.toBe(restTag);
  });

  it('sends private, no-store for anything read with a token', async () => {
    const pet = await makePet(app());
    const graphqlRead = await getQuery(app(), PetWithOrders, { id: String(pet.id) }, token());
    expect(graphqlRead.status).toBe(200);
    expect(graphqlRead.headers.get('cache-control')).toBe('private, no-store');
    expect(graphqlRead.headers.get('etag')).toMatch(/^"/);
    const orders = await rest(app(), 'GET', `/store/orders?petId=${pet.id}`);
    expect(orders.status).toBe(200);
    expect(orders.headers.get('cache-control')).toBe('private, no-store');
    const petsWithToken = await rest(app(), 'GET', '/pets');
    expect(petsWithToken.headers.get('cache-control')).toBe('private, no-store');
  });

  it('never serves an authorized answer to an anonymous caller, nor the other way round', async () => {
    const pet = await makePet(app(), { quantity: 3 });
    await makeOrder(app(), { petId: pet.id, quantity: 2 });
    const variables = { id: String(pet.id) };

    const authorized = await postQuery(app(), PetWithOrders, variables, token());
    expect(await authorized.json()).toEqual({
      data: { pet: { id: String(pet.id), name: pet.name, orders: { totalCount: 1 } } },
      extensions: { cost: { requestedQueryCost: 3, actualQueryCost: 3 } },
    });
    const anonymous = (await (await postQuery(app(), PetWithOrders, variables)).json()) as {
      data: unknown;
      errors: { extensions: { code: string } }[];
    };
    expect(anonymous.data).toEqual({ pet: { id: String(pet.id), name: pet.name, orders: null } });
    expect(anonymous.errors.map((error) => error.extensions.code)).toEqual(['UNAUTHENTICATED']);

    // An anonymous answer in the cache is not what a caller with a token gets either.
    const before = await scrape(app());
    await postQuery(app(), PetName, variables);
    await postQuery(app(), PetName, variables);
    const withToken = await postQuery(app(), PetName, variables, token());
    expect(withToken.status).toBe(200);
    const after = await scrape(app());
    expect(
      cacheCount(after, 'hits', { edge: 'graphql' }) -
        cacheCount(before, 'hits', { edge: 'graphql' }),
    ).toBe(1);
    expect(
      cacheCount(after, 'misses', { edge: 'graphql' }) -
        cacheCount(before, 'misses', { edge: 'graphql' }),
    ).toBe(1);
  });

  it('evicts GraphQL answers on a REST write and REST answers on a GraphQL write', async () => {
    const category = await makeCategory(app());
    const pet = await makePet(app(), { name: 'Before', categoryId: category.id });
    const anonymous = { fetch: app().fetch };
    const read = async () =>
      (
        (await (await getQuery(app(), PetName, { id: String(pet.id) })).json()) as {
          data: { pet: { name: string } };
        }
      ).data.pet.name;
    expect(await read()).toBe('Before');
    expect(await read()).toBe('Before');
    const before = await scrape(app());
    const put = await rest(app(), 'PUT', `/pets/${pet.id}`, {
      json: { name: 'After REST', categoryId: category.id },
    });
    expect(put.status).toBe(200);
    expect(await read()).toBe('After REST');
    const after = await scrape(app());
    expect(
      cacheCount(after, 'evictions', { reason: 'write' }) -
        cacheCount(before, 'evictions', { reason: 'write' }),
    ).toBeGreaterThanOrEqual(1);

    const listPath = `/pets?categoryId=${category.id}`;
    const list = await rest<{ name: string }[]>(anonymous, 'GET', listPath);
    expect(list.body.map((p) => p.name)).toEqual(['After REST']);
    expect((await rest(anonymous, 'GET', listPath)).text).toBe(list.text);
    const created = await postQuery(
      app(),
      'mutation ($input: NewPet!) { createPet(input: $input) { id } }',
      { input: { name: 'New over GraphQL', categoryId: String(category.id) } },
      token(),
    );
    expect(created.status).toBe(200);
    const listAfter = await rest<{ name: string }[]>(anonymous, 'GET', listPath);
    expect(listAfter.body.map((p) => p.name)).toEqual(['After REST', 'New over GraphQL']);
    expect(listAfter.headers.get('x-total-count')).toBe('2');
  });

  it('evicts a cached list when an entity of its kind is created', async () => {
    const categories = async () =>
      (
        (await (await getQuery(app(), '{ categories { name } }')).json()) as {
          data: { categories: { name: string }[] };
        }
      ).data.categories.map((c) => c.name);
    const first = await categories();
    expect(await categories()).toEqual(first);
    const posted = await rest(app(), 'POST', '/categories', { json: { name: 'Brand new kind' } });
    expect(posted.status).toBe(201);
    expect(await categories()).toEqual([...first, 'Brand new kind']);
  });

  it('answers a hit before GraphQL runs: no operation executed, no SQL statement', async () => {
    const pet = await makePet(app(), { name: 'Answered early' });
    const query = `query Early($id: ID!) { pet(id: $id) { name } }`;
    const variables = { id: String(pet.id) };
    const operations = async () =>
      sampleValue(await scrape(app()), 'graphql_envelop_request', {
        operationType: 'query',
        operationName: 'Early',
      }) ?? 0;
    const first = await postQuery(app(), query, variables);
    expect(await first.json()).toMatchObject({ data: { pet: { name: 'Answered early' } } });
    const [ranBefore, statementsBefore] = [await operations(), app().database.statementCount()];
    const second = await postQuery(app(), query, variables);
    expect(await second.json()).toMatchObject({
      data: { pet: { name: 'Answered early' } },
      // Nothing ran (no actualQueryCost); the report names what the document costs.
      extensions: { cost: { requestedQueryCost: 1 } },
    });
    expect(await operations()).toBe(ranBefore);
    expect(app().database.statementCount()).toBe(statementsBefore);
  });

  it('shows hits, misses and evictions in /metrics', async () => {
    const pet = await makePet(app());
    const anonymous = { fetch: app().fetch };
    await rest(anonymous, 'GET', `/pets/${pet.id}`);
    await rest(anonymous, 'GET', `/pets/${pet.id}`);
    await rest(app(), 'DELETE', `/pets/${pet.id}`);
    const samples = await scrape(app());
    expect(cacheCount(samples, 'hits', { edge: 'rest' })).toBeGreaterThanOrEqual(1);
    expect(cacheCount(samples, 'misses', { edge: 'rest' })).toBeGreaterThanOrEqual(1);
    expect(cacheCount(samples, 'evictions', { reason: 'write' })).toBeGreaterThanOrEqual(1);
    const gone = await rest(anonymous, 'GET', `/pets/${pet.id}`);
    expect(gone.status).toBe(404);
  });
});

/** An app served over a real connection for the tests of a block, with `env`. */
function useServedApp(env: Record<string, string>) {
  const app = useTestApp(env);
  let served: Awaited<ReturnType<typeof serveApp>>;
  beforeAll(async () => {
    served = await serveApp(app());
  });
  afterAll(() => served?.close());
  return { app, url: () => served.url };
}

/** Headers as the Node adapter writes them: the answer's own, and those added once it is ready. */
const headersOf = (response: Response) => Object.fromEntries(response.headers);

describeDb('answers over a real connection', () => {
  const { app, url } = useServedApp({ RESPONSE_CACHE_TTL_MS: '60000' });

  it('carry the request id, the validators and the deprecation marks on a hit as on a miss', async () => {
    const pet = await makePet(app());
    const post = (requestId: string) =>
      fetch(`${url()}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': requestId },
        body: JSON.stringify({ query: PetName, variables: { id: String(pet.id) } }),
      });
    const get = (requestId: string, headers: Record<string, string> = {}) =>
      fetch(`${url()}/api/pets/${pet.id}`, {
        headers: { 'x-request-id': requestId, ...headers },
      });
    const before = await scrape(app());
    const graphql = [await post('miss-1'), await post('hit-1')];
    const restAnswers = [await get('miss-2'), await get('hit-2')];
    const after = await scrape(app());
    for (const edge of ['graphql', 'rest']) {
      const hits = (samples: Sample[]) => cacheCount(samples, 'hits', { edge });
      expect(hits(after) - hits(before)).toBe(1);
    }

    const [graphqlMiss, graphqlHit] = graphql.map(headersOf);
    expect(graphqlMiss?.['x-request-id']).toBe('miss-1');
    expect(graphqlHit?.['x-request-id']).toBe('hit-1');
    expect(graphqlHit?.['content-type']).toBe(graphqlMiss?.['content-type']);
    // The same data; a hit ran nothing, so it reports no actual cost.
    const [missBody, hitBody] = await Promise.all(graphql.map((answer) => answer.json()));
    expect(hitBody.data).toEqual(missBody.data);

    const [restMiss, restHit] = restAnswers.map(headersOf);
    expect(restHit?.['x-request-id']).toBe('hit-2');
    for (const name of ['etag', 'cache-control', 'deprecation', 'sunset', 'link', 'content-type'])
      expect([name, restHit?.[name]]).toEqual([name, restMiss?.[name]]);
    expect(restHit?.deprecation).toMatch(/^@\d+$/);

    const unchanged = await get('hit-3', { 'if-none-match': restHit?.etag as string });
    expect(unchanged.status).toBe(304);
    expect(headersOf(unchanged)).toMatchObject({ 'x-request-id': 'hit-3', etag: restHit?.etag });
    expect(headersOf(unchanged)['content-type']).toBeUndefined();
  });
});

describeDb('with RESPONSE_CACHE_TTL_MS=0', () => {
  const app = useTestApp({ RESPONSE_CACHE_TTL_MS: '0' });

  it('caches nothing but still sends validators', async () => {
    const pet = await makePet(app());
    const first = await getQuery(app(), PetName, { id: String(pet.id) });
    const again = await getQuery(
      app(),
      PetName,
      { id: String(pet.id) },
      { 'if-none-match': first.headers.get('etag') as string },
    );
    expect(again.status).toBe(304);
    const samples = await scrape(app());
    expect(cacheCount(samples, 'hits', { edge: 'graphql' })).toBe(0);
    expect(cacheCount(samples, 'misses', { edge: 'graphql' })).toBe(0);
  });
});

describeDb('uncached answers over a real connection, with the rate limit on', () => {
  const { app, url } = useServedApp({ RESPONSE_CACHE_TTL_MS: '0', RATE_LIMIT_PER_MINUTE: '1000' });

  it('carry the route headers, the validators, the request id and the rate limit together', async () => {
    const pet = await makePet(app());
    const get = (headers: Record<string, string> = {}) =>
      fetch(`${url()}/api/pets/${pet.id}`, { headers: { 'x-request-id': 'r-1', ...headers } });
    const read = await get();
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ id: Number(pet.id), name: pet.name });
    const headers = headersOf(read);
    expect(headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-cache',
      'x-request-id': 'r-1',
      'ratelimit-limit': '1000',
    });
    expect(headers.etag).toMatch(/^"\d+"$/);
    expect(headers.ratelimit).toMatch(/^"requests";r=\d+;t=\d+$/);
    expect(Number(headers['content-length'])).toBeGreaterThan(0);

    const unchanged = await get({ 'if-none-match': headers.etag as string });
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe('');
    expect(headersOf(unchanged)).toMatchObject({
      etag: headers.etag,
      'cache-control': 'no-cache',
      'ratelimit-limit': '1000',
    });
    expect(headersOf(unchanged)['content-type']).toBeUndefined();

    const refused = await fetch(`${url()}/api/pets/${pet.id}`, { method: 'PATCH' });
    expect(refused.status).toBe(405);
    expect(headersOf(refused)).toMatchObject({
      allow: 'GET, HEAD, PUT, DELETE',
      'content-type': 'application/json; charset=utf-8',
      'ratelimit-limit': '1000',
    });
    expect(await refused.json()).toMatchObject({ code: 'METHOD_NOT_ALLOWED', status: 405 });
  });
});
