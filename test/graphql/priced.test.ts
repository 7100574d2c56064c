import { createHash } from 'node:crypto';
import { getIntrospectionQuery } from 'graphql';
import { expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { anonymous } from '../helpers/client.js';
import { makePet } from '../helpers/factories.js';
import { graphqlRequest } from '../helpers/graphql.js';

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

  it('still runs the introspection GraphiQL and codegen send, under the default limits', async () => {
    const { status, body } = await post({ query: getIntrospectionQuery({ descriptions: true }) });
    expect(status).toBe(200);
    expect((body as Result).errors).toBeUndefined();
    expect((body as Result).extensions?.cost?.requestedQueryCost).toBeLessThan(5000);
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
