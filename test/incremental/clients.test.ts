import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { Defer20220824Handler, GraphQL17Alpha9Handler } from '@apollo/client/incremental';
import { fetchExchange, Client as UrqlClient, gql as urqlGql } from '@urql/core';
import { expect, it } from 'vitest';
import { describeDb, type TestApp, useTestApp } from '../helpers/app.js';
import { makeCategory, makePet } from '../helpers/factories.js';

const URL_BASE = 'http://petstore.test';

const PetStock = `query PetStock($id: ID!) {
  pet(id: $id) { id name ... @defer(label: "stock") { inventory { quantity } } }
}`;

const Page = `query Page($categoryId: ID) {
  pets(first: 5, categoryId: $categoryId) {
    edges @stream(initialCount: 1, label: "rest") { node { id name } }
  }
}`;

/** The fetch a client is given: the app's handler, each request and its Accept noted. */
function appFetch(app: () => TestApp, accepts: string[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(new URL(String(input), URL_BASE), init);
    accepts.push(request.headers.get('accept') ?? '');
    return app().fetch(request);
  };
}

describeDb('@defer and @stream with the clients as published', () => {
  const app = useTestApp();

  async function fixtures() {
    const category = await makeCategory(app());
    const pets = [];
    for (let i = 1; i <= 3; i++)
      pets.push(await makePet(app(), { categoryId: category.id, quantity: i }));
    return { categoryId: String(category.id), pets };
  }

  for (const [name, handler, accept] of [
    [
      'Defer20220824Handler',
      () => new Defer20220824Handler(),
      'multipart/mixed;deferSpec=20220824',
    ],
    [
      'GraphQL17Alpha9Handler',
      () => new GraphQL17Alpha9Handler(),
      'multipart/mixed;incrementalSpec=v0.2',
    ],
  ] as const) {
    it(`Apollo Client 4 with its ${name}: @defer arrives after the first screen, @stream item by item`, async () => {
      const { categoryId, pets } = await fixtures();
      const accepts: string[] = [];
      const client = new ApolloClient({
        link: new HttpLink({ uri: `${URL_BASE}/graphql`, fetch: appFetch(app, accepts) }),
        cache: new InMemoryCache(),
        incrementalHandler: handler(),
      });
      const pet = pets[2] as (typeof pets)[number];
      const seen = await new Promise<{ dataState: string; data: unknown }[]>((resolve, reject) => {
        const results: { dataState: string; data: unknown }[] = [];
        const subscription = client
          .watchQuery({ query: gql(PetStock), variables: { id: String(pet.id) } })
          .subscribe({
            next: (result) => {
              if (result.dataState === 'empty') return;
              results.push({ dataState: result.dataState, data: result.data });
              if (result.dataState === 'complete') {
                subscription.unsubscribe();
                resolve(results);
              }
            },
            error: reject,
          });
      });
      expect(accepts[0]?.startsWith(accept)).toBe(true);
      expect(seen.at(0)).toMatchObject({
        dataState: 'streaming',
        data: { pet: { name: pet.name } },
      });
      expect(seen.at(0)?.data).not.toHaveProperty('pet.inventory');
      expect(seen.at(-1)).toMatchObject({
        dataState: 'complete',
        data: { pet: { id: String(pet.id), name: pet.name, inventory: { quantity: 3 } } },
      });

      const page = await client.query({
        query: gql(Page),
        variables: { categoryId },
        fetchPolicy: 'no-cache',
      });
      expect(page.data).toMatchObject({
        pets: { edges: pets.map((row) => ({ node: { id: String(row.id), name: row.name } })) },
      });
      client.stop();
    });
  }

  for (const accept of [
    'multipart/mixed;deferSpec=20220824',
    'multipart/mixed;incrementalSpec=v0.2',
    'text/event-stream',
    'text/event-stream;incrementalSpec=v0.2',
  ]) {
    it(`urql reads the answer in parts (${accept}${accept.includes('v0.2') ? ', @defer' : ''})`, async () => {
      const { categoryId, pets } = await fixtures();
      const accepts: string[] = [];
      const client = new UrqlClient({
        url: `${URL_BASE}/graphql`,
        exchanges: [fetchExchange],
        fetch: appFetch(app, accepts),
        fetchOptions: { headers: { accept } },
        preferGetMethod: false,
      });
      const cases = [
        [
          PetStock,
          { id: String(pets[0]?.id) },
          { pet: { name: pets[0]?.name, inventory: { quantity: 1 } } },
        ],
        [
          Page,
          { categoryId },
          {
            pets: { edges: pets.map((row) => ({ node: { id: String(row.id), name: row.name } })) },
          },
        ],
      ] as const;
      // urql 6 merges a v0.2 stream's items as a 2022 one's (an index at the end of the path, which
      // a v0.2 stream's path has not): with urql, @stream wants the 2022 format (docs/api.md).
      for (const [query, variables, whole] of accept.includes('v0.2') ? cases.slice(0, 1) : cases) {
        const results = await new Promise<{ data: unknown; hasNext: boolean }[]>(
          (resolve, reject) => {
            const seen: { data: unknown; hasNext: boolean }[] = [];
            const { unsubscribe } = client.query(urqlGql(query), variables).subscribe((result) => {
              if (result.error) reject(result.error);
              seen.push({ data: result.data, hasNext: result.hasNext });
              if (!result.hasNext) {
                unsubscribe();
                resolve(seen);
              }
            });
          },
        );
        expect(results.length).toBeGreaterThan(1);
        expect(results[0]?.hasNext).toBe(true);
        expect(results.at(-1)?.data).toMatchObject(whole);
      }
      expect(accepts.every((sent) => sent === accept)).toBe(true);
    });
  }
});
