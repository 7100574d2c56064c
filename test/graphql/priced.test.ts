import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { getIntrospectionQuery } from 'graphql';
import { expect, it } from 'vitest';
import { describeDb, type TestApp, useTestApp } from '../helpers/app.js';
import { anonymous } from '../helpers/client.js';
import { makePet } from '../helpers/factories.js';
import { graphqlRequest } from '../helpers/graphql.js';
import { scrape } from '../helpers/metrics.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface Result {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions: { code: string; status: number } }[];
  extensions?: { cost?: { requestedQueryCost: number; actualQueryCost?: number } };
}

describeDb('introspection and batches are priced like any other field', () => {
  const app = useTestApp({ RESPONSE_CACHE_TTL_MS: '0' });
  const post = async (body: unknown) => {
    const response = await anonymous(app()).fetch(graphqlRequest(body));
    return { status: response.status, body: (await response.json()) as Result | Result[] };
  };

  it('counts a type list by the schema’s size', async () => {
    const { status, body } = await post({ query: '{ __schema { types { name } } }' });
    const result = body as Result;
    const types = (result.data?.__schema as { types: unknown[] } | undefined)?.types.length ?? 0;
    expect(status).toBe(200);
    // __schema weighs 1 and each type 1.
    expect(result.extensions?.cost).toEqual({
      requestedQueryCost: 1 + types,
      actualQueryCost: 1 + types,
    });
  });

  it('runs the introspection GraphiQL and codegen send within half the default limit', async () => {
    // GraphiQL's options (@graphiql/react's schema store), and GraphQL Code Generator's.
    const graphiql = getIntrospectionQuery({
      inputValueDeprecation: true,
      schemaDescription: true,
    });
    const codegen = getIntrospectionQuery({ descriptions: true });
    const costs = [];
    for (const query of [graphiql, codegen]) {
      const { status, body } = await post({ query });
      expect(status).toBe(200);
      expect((body as Result).errors).toBeUndefined();
      const cost = (body as Result).extensions?.cost;
      // A schema twice as large still fits.
      expect(cost?.requestedQueryCost).toBeLessThanOrEqual(2500);
      expect(cost?.actualQueryCost).toBeLessThanOrEqual(cost?.requestedQueryCost ?? 0);
      costs.push(cost?.requestedQueryCost ?? 0);
    }
    // What docs/demand-control.md says it costs stays within a tenth of the truth.
    const docs = readFileSync(new URL('../../docs/demand-control.md', import.meta.url), 'utf8');
    const stated = /The introspection GraphiQL sends costs\s+about ([\d,]+) points/.exec(docs)?.[1];
    expect(Number(stated?.replaceAll(',', ''))).toBeGreaterThanOrEqual(0.9 * (costs[0] ?? 0));
    expect(Number(stated?.replaceAll(',', ''))).toBeLessThanOrEqual(1.1 * (costs[0] ?? 0));
  });

  it('prices two aliases of the type list with their fields by what they resolve', async () => {
    const list = 'types { name fields(includeDeprecated: true) { name } }';
    const { status, body } = await post({
      query: `{ a: __schema { ${list} } b: __schema { ${list} } }`,
    });
    expect(status).toBe(200);
    const result = body as Result;
    const { types } = (result.data as { a: { types: { fields: unknown[] | null }[] } }).a;
    const fields = types.reduce((sum, type) => sum + (type.fields?.length ?? 0), 0);
    // Each alias: __schema 1, each type 1, each field 1.
    expect(result.extensions?.cost).toEqual({
      requestedQueryCost: 2 * (1 + types.length + fields),
      actualQueryCost: 2 * (1 + types.length + fields),
    });
  });

  it('refuses a batch of introspection aliases like a batch of pages, before anything runs', async () => {
    const aliases = Array.from(
      { length: 12 },
      (_, i) => `s${i}: __schema { types { name fields { name type { name } } } }`,
    ).join(' ');
    const batch = Array.from({ length: 10 }, () => ({ query: `{ ${aliases} }` }));
    const { status, body } = await post(batch);
    expect(status).toBe(400);
    expect(body).toMatchObject({
      errors: [{ extensions: { code: 'QUERY_TOO_COMPLEX', status: 400 } }],
    });
  });

  it('prices a persisted operation sent by hash alone after its document in the same batch', async () => {
    const pet = await makePet(app());
    // Over 500 points: ten of them are over the limit of 5,000.
    const query = `{ pets(first: 100) { edges { node { id name category { name } inventory { quantity } } } } c: pets(first: 100) { edges { node { id } } } p: pet(id: "${pet.id}") { id } }`;
    const single = await post({ query });
    const cost = (single.body as Result).extensions?.cost?.requestedQueryCost ?? 0;
    expect(cost).toBeGreaterThan(500);

    const extensions = { persistedQuery: { version: 1, sha256Hash: sha256(query) } };
    const batch = [{ query, extensions }, ...Array.from({ length: 9 }, () => ({ extensions }))];
    const { status, body } = await post(batch);
    expect(status).toBe(400);
    expect((body as Result).errors?.[0]).toMatchObject({
      message: expect.stringContaining(`costs ${10 * cost} points`),
      extensions: { code: 'QUERY_TOO_COMPLEX' },
    });
  });
});

describeDb('introspection answered from memory (GRAPHQL_INTROSPECTION_CACHE_BYTES)', () => {
  const app = useTestApp({ RESPONSE_CACHE_TTL_MS: '0' });
  const small = useTestApp({
    RESPONSE_CACHE_TTL_MS: '0',
    GRAPHQL_INTROSPECTION_CACHE_BYTES: '4096',
  });
  const answers = async (of: () => TestApp) => {
    const samples = await scrape(of());
    const count = (source: string) =>
      samples.find(
        (sample) =>
          sample.name === 'petstore_introspection_answers_total' && sample.labels.source === source,
      )?.value ?? 0;
    return { executed: count('executed'), memory: count('memory') };
  };
  const post = async (of: () => TestApp, body: unknown) => {
    const response = await anonymous(of()).fetch(graphqlRequest(body));
    return { status: response.status, body: (await response.json()) as Result };
  };

  it('executes an introspection document once, then answers it from memory, priced the same', async () => {
    const query = getIntrospectionQuery({ inputValueDeprecation: true, schemaDescription: true });
    const first = await post(app, { query });
    const second = await post(app, { query });
    expect(second).toEqual(first);
    expect(first.body.extensions?.cost?.requestedQueryCost).toBeGreaterThan(0);
    expect(await answers(app)).toEqual({ executed: 1, memory: 1 });
    // Other variables are another answer; a query that reads data is never kept.
    const byName = 'query($name: String!) { __type(name: $name) { name } }';
    for (const name of ['Pet', 'Pet', 'Order']) {
      const { body } = await post(app, { query: byName, variables: { name } });
      expect(body.data).toEqual({ __type: { name } });
    }
    await post(app, { query: '{ __typename categories { id } }' });
    expect(await answers(app)).toEqual({ executed: 3, memory: 2 });
  });

  it('keeps no answer larger than a quarter of its bound', async () => {
    const query = getIntrospectionQuery();
    for (let i = 0; i < 2; i++) expect((await post(small, { query })).status).toBe(200);
    expect(await answers(small)).toEqual({ executed: 2, memory: 0 });
    const tiny = '{ __schema { queryType { name } } }';
    for (let i = 0; i < 2; i++) await post(small, { query: tiny });
    expect(await answers(small)).toEqual({ executed: 3, memory: 1 });
  });
});

describeDb('HEAD /graphql', () => {
  const app = useTestApp({ RESPONSE_CACHE_TTL_MS: '60000' });

  it('answers as GET does, on a cache miss and on a hit, without a body', async () => {
    const pet = await makePet(app());
    const url = `http://petstore.test/graphql?query=${encodeURIComponent(`{ pet(id: "${pet.id}") { name } }`)}`;
    const head = () => anonymous(app()).fetch(new Request(url, { method: 'HEAD' }));
    const miss = await head();
    const get = await anonymous(app()).fetch(new Request(url));
    const hit = await head();
    for (const answer of [miss, hit]) {
      expect(answer.status).toBe(200);
      expect(await answer.text()).toBe('');
      expect(answer.headers.get('content-type')).toBe(get.headers.get('content-type'));
      expect(answer.headers.get('etag')).toBe(get.headers.get('etag'));
    }
  });
});

describeDb(
  'the documents automatic persisted queries remember (PERSISTED_QUERIES_CACHE_BYTES)',
  () => {
    const app = useTestApp({ PERSISTED_QUERIES_CACHE_BYTES: '2048', RESPONSE_CACHE_TTL_MS: '0' });
    const post = async (body: unknown) => {
      const response = await anonymous(app()).fetch(graphqlRequest(body));
      return (await response.json()) as Result;
    };
    const register = (query: string) =>
      post({ query, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(query) } } });
    const byHash = (query: string) =>
      post({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(query) } } });

    it('forget the least recently used past the bound: a client then resends the document', async () => {
      const documents = Array.from(
        { length: 12 },
        (_, i) => `query Remembered${i} { categories { id name description } }`,
      );
      for (const query of documents) expect((await register(query)).errors).toBeUndefined();
      // 12 documents of about 150 bytes (twice that in memory) do not all fit in 2,048 bytes.
      expect((await byHash(documents[0] as string)).errors?.[0]?.extensions.code).toBe(
        'PERSISTED_QUERY_NOT_FOUND',
      );
      expect((await byHash(documents[11] as string)).errors).toBeUndefined();
    });
  },
);
