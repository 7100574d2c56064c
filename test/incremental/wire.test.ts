import { expect, it } from 'vitest';
import { describeDb, type TestApp, useTestApp } from '../helpers/app.js';
import { makeCategory, makePet } from '../helpers/factories.js';
import {
  assemble,
  eventStreamParts,
  multipartParts,
  PagedStream,
  PetStock,
} from '../helpers/incremental.js';

const URL_BASE = 'http://petstore.test';

/** The same documents without the directives: what one complete answer holds. */
const strip = (query: string) =>
  query.replace(/\s*@(defer|stream)\([^)]*\)/g, '').replace(/\.\.\.\s*\{/g, '... on Pet {');

function post(app: TestApp, query: string, variables: object, accept: string) {
  return app.fetch(
    new Request(`${URL_BASE}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify({ query, variables }),
    }),
  );
}

async function json(app: TestApp, query: string, variables: object) {
  const response = await post(app, query, variables, 'application/json');
  return ((await response.json()) as { data: unknown }).data;
}

const accepts = {
  '2022 multipart': { accept: 'multipart/mixed;deferSpec=20220824', spec: '2022', sse: false },
  'bare multipart': { accept: 'multipart/mixed', spec: '2022', sse: false },
  'v0.2 multipart': { accept: 'multipart/mixed;incrementalSpec=v0.2', spec: 'v0.2', sse: false },
  '2022 event stream': { accept: 'text/event-stream', spec: '2022', sse: true },
  'v0.2 event stream': {
    accept: 'text/event-stream;incrementalSpec=v0.2',
    spec: 'v0.2',
    sse: true,
  },
} as const;

describeDb('@defer and @stream on the wire', () => {
  const app = useTestApp();

  async function page() {
    const category = await makeCategory(app());
    for (let i = 1; i <= 4; i++) await makePet(app(), { categoryId: category.id, quantity: i });
    return { categoryId: String(category.id) };
  }

  for (const [name, { accept, spec, sse }] of Object.entries(accepts)) {
    it(`delivers a deferred fragment and a streamed page in the ${name} format`, async () => {
      const pet = await makePet(app(), { name: 'Deferred', quantity: 7 });
      for (const [query, variables] of [
        [PetStock, { id: String(pet.id) }],
        [PagedStream, await page()],
      ] as const) {
        const response = await post(app(), query, variables, accept);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe(
          sse ? 'text/event-stream' : 'multipart/mixed; boundary="-"',
        );
        const body = await response.text();
        const read = sse
          ? eventStreamParts(body)
          : { parts: multipartParts(body), completed: true };
        expect(read.completed).toBe(true);
        const { parts } = read;
        expect(parts.length).toBeGreaterThan(1);
        // The cost report travels with the first part; what ran, with the last.
        const costOf = (part: Record<string, unknown> | undefined) =>
          (part?.extensions as { cost?: { requestedQueryCost: number } } | undefined)?.cost;
        const requested = costOf(parts[0])?.requestedQueryCost;
        expect(requested).toBeGreaterThan(0);
        expect(costOf(parts.at(-1))).toMatchObject({
          requestedQueryCost: requested,
          actualQueryCost: expect.any(Number),
        });
        expect(assemble(parts, spec)).toEqual(await json(app(), strip(query), variables));
      }
    });
  }

  it('answers one complete answer to a client that takes no stream, the same data', async () => {
    const pet = await makePet(app(), { quantity: 3 });
    const variables = { id: String(pet.id) };
    for (const accept of ['application/json', 'application/graphql-response+json', '*/*']) {
      const response = await post(app(), PetStock, variables, accept);
      expect(response.headers.get('content-type')).toMatch(/json/);
      const body = (await response.json()) as { data: unknown };
      expect(body.data).toEqual(await json(app(), strip(PetStock), variables));
    }
  });

  it('streams by GET too, and not at all with if: false', async () => {
    const pet = await makePet(app(), { quantity: 2 });
    const query =
      'query ($id: ID!, $late: Boolean!) { pet(id: $id) { id ... @defer(if: $late) { name } } }';
    const get = (late: boolean) =>
      app().fetch(
        new Request(
          `${URL_BASE}/graphql?${new URLSearchParams({ query, variables: JSON.stringify({ id: String(pet.id), late }) })}`,
          { headers: { accept: 'multipart/mixed;incrementalSpec=v0.2' } },
        ),
      );
    const streamed = multipartParts(await (await get(true)).text());
    expect(streamed).toHaveLength(2);
    expect(streamed[0]).toMatchObject({ hasNext: true, pending: [{ id: '0', path: ['pet'] }] });
    const whole = multipartParts(await (await get(false)).text());
    expect(whole).toHaveLength(1);
    expect(whole[0]?.data).toEqual({ pet: { id: String(pet.id), name: pet.name } });
  });

  it('refuses whole, before anything streams: a deferred fragment too deep, in a mutation, @stream on one', async () => {
    // Depth 11 (the limit is 10), all of it past the deferred fragment's boundary.
    const nested = 'category { pets(first: 1) { edges { node { '.repeat(2);
    const deep = `{ pets(first: 1) { edges { node { ... @defer { ${nested} id ${' } } } }'.repeat(2)} } } } } }`;
    for (const [query, code] of [
      [deep, 'QUERY_TOO_COMPLEX'],
      ['mutation { deletePet(id: "1") ... @defer { __typename } }', 'GRAPHQL_VALIDATION_FAILED'],
      ['{ pet(id: "1") @stream { id } }', 'GRAPHQL_VALIDATION_FAILED'],
      [
        '{ a: pet(id: "1") { ... @defer(label: "x") { id } } b: pet(id: "2") { ... @defer(label: "x") { id } } }',
        'GRAPHQL_VALIDATION_FAILED',
      ],
    ]) {
      const response = await post(app(), query as string, {}, 'multipart/mixed;deferSpec=20220824');
      expect(response.headers.get('content-type')).toBe('multipart/mixed; boundary="-"');
      expect(response.status).toBe(400);
      const parts = multipartParts(await response.text());
      expect(parts).toHaveLength(1);
      const [part] = parts as [{ errors: { extensions: object }[] }];
      expect(part).not.toHaveProperty('data');
      expect(part).not.toHaveProperty('hasNext');
      expect(part.errors[0]?.extensions).toMatchObject({ code, status: 400 });
      if (query === deep) expect(JSON.stringify(part.errors)).toMatch(/depth/i);
    }
  });
});

describeDb('@defer and @stream under the scopes and the list-item cap', () => {
  const app = useTestApp({ GRAPHQL_MAX_LIST_ITEMS: '4', RESPONSE_CACHE_TTL_MS: '60000' });

  it('fails a deferred field that needs a scope locally, in its part, in the Error shape', async () => {
    const pet = await makePet(app());
    const query = `query ($id: ID!) { pet(id: $id) { name ... @defer(label: "orders") { orders(first: 2) { totalCount } } } }`;
    const response = await post(
      app(),
      query,
      { id: String(pet.id) },
      'multipart/mixed;incrementalSpec=v0.2',
    );
    const parts = multipartParts(await response.text());
    expect(parts[0]).toMatchObject({ data: { pet: { name: pet.name } }, pending: [{ id: '0' }] });
    const incremental = parts[1]?.incremental as
      | { id: string; data: unknown; errors: unknown[] }[]
      | undefined;
    const deferred = incremental?.[0];
    expect(deferred).toMatchObject({ id: '0', data: { orders: null } });
    expect(deferred?.errors).toMatchObject([
      { path: ['pet', 'orders'], extensions: { code: 'UNAUTHENTICATED', status: 401 } },
    ]);
  });

  it('refuses a stream past the list-item cap as if inline: one part, no data, never kept', async () => {
    const category = await makeCategory(app());
    for (let i = 0; i < 6; i++) await makePet(app(), { categoryId: category.id });
    const query = `query ($c: ID) { pets(first: 6, categoryId: $c) { edges @stream(initialCount: 1) { node { id } } } }`;
    const variables = { c: String(category.id) };
    for (const _ of [1, 2]) {
      const response = await post(app(), query, variables, 'multipart/mixed;deferSpec=20220824');
      // The page's items are counted as the page resolves, before any item streams; the second
      // request is refused again (an answer with an error is never kept).
      const parts = multipartParts(await response.text());
      expect(parts).toHaveLength(1);
      expect(parts[0]).toMatchObject({
        data: null,
        errors: [
          { path: ['pets', 'edges'], extensions: { code: 'QUERY_TOO_COMPLEX', status: 400 } },
        ],
      });
    }
  });
});
