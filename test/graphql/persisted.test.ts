import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApolloClient, gql as apolloGql, HttpLink, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { fetchExchange, Client as UrqlClient, gql as urqlGql } from '@urql/core';
import { persistedExchange } from '@urql/exchange-persisted';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeDb, type TestApp, useTestApp } from '../helpers/app.js';
import { makePet } from '../helpers/factories.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** What the server received: method, and whether the document text came with it. */
interface Sent {
  method: string;
  query: boolean;
  hash: boolean;
}

/** A fetch that records each request before sending it, as the server receives it. */
function recordingFetch(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const params: Record<string, unknown> =
      request.method === 'GET'
        ? Object.fromEntries(url.searchParams)
        : ((await request.clone().json()) as Record<string, unknown>);
    const extensions =
      typeof params.extensions === 'string' ? JSON.parse(params.extensions) : params.extensions;
    sent.push({
      method: request.method,
      query: typeof params.query === 'string',
      hash: typeof extensions?.persistedQuery?.sha256Hash === 'string',
    });
    return fetch(request);
  };
}

/** A GraphQL request by GET through the app's fetch, with the parameters as JSON where needed. */
function getRequest(app: TestApp, params: Record<string, unknown>) {
  const search = new URLSearchParams(
    Object.entries(params).map(([key, value]) => [
      key,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  );
  return app.fetch(
    new Request(`http://petstore.test/graphql?${search}`, {
      headers: { accept: 'application/graphql-response+json' },
    }),
  );
}

function postRequest(app: TestApp, body: unknown) {
  return app.fetch(
    new Request('http://petstore.test/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
      },
      body: JSON.stringify(body),
    }),
  );
}

async function answer(response: Response) {
  return { status: response.status, body: await response.json() };
}

const PetName = 'query PetName($id: ID!) { pet(id: $id) { id name } }';

describeDb('automatic persisted queries with the clients frontends use', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer();
  }, 60_000);
  afterAll(() => server?.stop());

  it('Apollo Client: a hash miss, the document resent once, then hits by hash (POST and GET)', async () => {
    for (const useGETForHashedQueries of [false, true]) {
      const sent: Sent[] = [];
      const client = new ApolloClient({
        cache: new InMemoryCache(),
        link: new PersistedQueryLink({ sha256, useGETForHashedQueries }).concat(
          new HttpLink({ uri: `${server.url}/graphql`, fetch: recordingFetch(sent) }),
        ),
      });
      // A document of its own per round, so the first request is a miss on this server.
      const query = apolloGql(
        `query ApolloPet${useGETForHashedQueries ? 'Get' : 'Post'} { pet(id: "1") { id name } }`,
      );
      const first = await client.query({ query, fetchPolicy: 'network-only' });
      expect(first.data).toEqual({ pet: { __typename: 'Pet', id: '1', name: expect.any(String) } });
      const second = await client.query({ query, fetchPolicy: 'network-only' });
      expect(second.data).toEqual(first.data);
      const hashedMethod = useGETForHashedQueries ? 'GET' : 'POST';
      expect(sent).toEqual([
        { method: hashedMethod, query: false, hash: true },
        { method: 'POST', query: true, hash: true },
        { method: hashedMethod, query: false, hash: true },
      ]);
    }
  });

  it('urql: a hash miss, the document resent once, then hits by hash over GET', async () => {
    const sent: Sent[] = [];
    const client = new UrqlClient({
      url: `${server.url}/graphql`,
      fetch: recordingFetch(sent),
      exchanges: [persistedExchange({ preferGetForPersistedQueries: true }), fetchExchange],
      requestPolicy: 'network-only',
    });
    const query = urqlGql`query UrqlPet { pet(id: "1") { id name } }`;
    const first = await client.query(query, {}).toPromise();
    expect(first.error).toBeUndefined();
    expect(first.data).toEqual({ pet: { id: '1', name: expect.any(String) } });
    const second = await client.query(query, {}).toPromise();
    expect(second.data).toEqual(first.data);
    expect(sent).toEqual([
      { method: 'GET', query: false, hash: true },
      { method: 'GET', query: true, hash: true },
      { method: 'GET', query: false, hash: true },
    ]);
  });
});

describeDb('automatic persisted queries over HTTP', () => {
  const app = useTestApp();

  it('answers an unknown hash with PERSISTED_QUERY_NOT_FOUND (400), by POST and by GET', async () => {
    const extensions = { persistedQuery: { version: 1, sha256Hash: sha256('{ never }') } };
    const expected = {
      status: 400,
      body: {
        errors: [
          {
            message: 'PersistedQueryNotFound',
            extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', status: 400 },
          },
        ],
        // Refused before its document was known: nothing priced, nothing charged.
        extensions: { cost: { requestedQueryCost: 0 } },
      },
    };
    expect(await answer(await postRequest(app(), { extensions }))).toEqual(expected);
    expect(await answer(await getRequest(app(), { extensions }))).toEqual(expected);
  });

  it('registers a document sent with its hash, then runs it by hash alone, by GET with an ETag', async () => {
    const pet = await makePet(app(), { name: 'Persisted' });
    const query = `query Persisted($id: ID!) { pet(id: $id) { name } }`;
    const extensions = { persistedQuery: { version: 1, sha256Hash: sha256(query) } };
    const variables = { id: String(pet.id) };
    const registered = await answer(await postRequest(app(), { query, variables, extensions }));
    expect(registered).toEqual({
      status: 200,
      body: {
        data: { pet: { name: 'Persisted' } },
        extensions: { cost: { requestedQueryCost: 1, actualQueryCost: 1 } },
      },
    });
    const byHash = await getRequest(app(), { variables, extensions });
    expect(byHash.headers.get('etag')).toMatch(/^"/);
    expect(await answer(byHash)).toEqual(registered);
    expect(await answer(await postRequest(app(), { variables, extensions }))).toEqual(registered);
  });

  it('refuses a hash that is not the SHA-256 of the document sent with it', async () => {
    const extensions = { persistedQuery: { version: 1, sha256Hash: sha256('{ other }') } };
    const response = await answer(await postRequest(app(), { query: PetName, extensions }));
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions.code).toBe('MALFORMED_REQUEST');
  });

  it('applies the limits to a document run by hash', async () => {
    const deep = `{ pets(first: 100) { edges { node { category { pets(first: 100) { edges { node { category { pets(first: 100) { totalCount } } } } } } } } } }`;
    const extensions = { persistedQuery: { version: 1, sha256Hash: sha256(deep) } };
    const refused = await answer(await postRequest(app(), { query: deep, extensions }));
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
  });
});

describeDb('PERSISTED_OPERATIONS_ONLY', () => {
  const listed = 'query Listed($id: ID!) { pet(id: $id) { name } }';
  const tooCostly =
    '{ pets(first: 100) { edges { node { category { pets(first: 100) { edges { node { name } } } } } } } }';
  const manifestPath = join(tmpdir(), `petstore-manifest-${process.pid}-${Date.now()}.json`);
  writeFileSync(
    manifestPath,
    JSON.stringify({ [`sha256:${sha256(listed)}`]: listed, [sha256(tooCostly)]: tooCostly }),
  );
  const app = useTestApp({ PERSISTED_OPERATIONS_ONLY: manifestPath });
  const only = {
    status: 400,
    body: {
      errors: [
        {
          message: expect.stringContaining('persisted operations'),
          extensions: { code: 'PERSISTED_QUERY_ONLY', status: 400 },
        },
      ],
      extensions: { cost: { requestedQueryCost: 0 } },
    },
  };

  it('runs a listed operation by its hash, by POST and by GET', async () => {
    const pet = await makePet(app(), { name: 'Listed' });
    const variables = { id: String(pet.id) };
    const ok = {
      status: 200,
      body: {
        data: { pet: { name: 'Listed' } },
        extensions: { cost: { requestedQueryCost: 1, actualQueryCost: 1 } },
      },
    };
    for (const sha256Hash of [`sha256:${sha256(listed)}`, sha256(listed)]) {
      const extensions = { persistedQuery: { version: 1, sha256Hash } };
      expect(await answer(await postRequest(app(), { variables, extensions }))).toEqual(ok);
      expect(await answer(await getRequest(app(), { variables, extensions }))).toEqual(ok);
    }
  });

  it('refuses anything else with 400 PERSISTED_QUERY_ONLY', async () => {
    expect(
      await answer(await postRequest(app(), { query: listed, variables: { id: '1' } })),
    ).toEqual(only);
    expect(await answer(await getRequest(app(), { query: '{ categories { name } }' }))).toEqual(
      only,
    );
    const unknown = { persistedQuery: { version: 1, sha256Hash: sha256('{ categories { id } }') } };
    expect(await answer(await postRequest(app(), { extensions: unknown }))).toEqual(only);
    // A listed hash with another document is not the listed operation.
    const mismatch = { persistedQuery: { version: 1, sha256Hash: sha256(listed) } };
    expect(
      await answer(
        await postRequest(app(), { query: '{ categories { id } }', extensions: mismatch }),
      ),
    ).toEqual(only);
  });

  it('applies the limits to listed operations', async () => {
    const extensions = { persistedQuery: { version: 1, sha256Hash: sha256(tooCostly) } };
    const refused = await answer(await postRequest(app(), { extensions }));
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
  });
});
