import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeCategory, makePet } from '../helpers/factories.js';
import { graphqlRequest } from '../helpers/graphql.js';

interface Body {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions: { code: string } }[];
  extensions?: {
    cost?: { requestedQueryCost: number; actualQueryCost?: number };
    warnings?: { coordinate: string }[];
  };
}

describeDb(
  'the directives graphql-js specifies: @include, @skip, @deprecated, @specifiedBy, @oneOf',
  () => {
    // Answers from the response cache carry no actualQueryCost: the cache is off.
    const app = useTestApp({ RESPONSE_CACHE_TTL_MS: '0' });
    const post = async (body: unknown, headers: Record<string, string> = {}) => {
      const response = await app().fetch(graphqlRequest(body, headers));
      return { status: response.status, body: (await response.json()) as Body };
    };
    const get = async (query: string, variables?: unknown) => {
      const url = new URL('http://petstore.test/graphql');
      url.searchParams.set('query', query);
      if (variables) url.searchParams.set('variables', JSON.stringify(variables));
      const response = await app().fetch(
        new Request(url, { headers: { accept: 'application/graphql-response+json' } }),
      );
      return { status: response.status, body: (await response.json()) as Body };
    };

    it('lists the specified directives by introspection, beside the schema’s own', async () => {
      const { status, body } = await post({
        query: '{ __schema { directives { name locations args { name defaultValue } } } }',
      });
      expect(status).toBe(200);
      const { directives } = (body.data as { __schema: { directives: { name: string }[] } })
        .__schema;
      expect(directives.map((directive) => directive.name).sort()).toEqual(
        [
          'beta',
          'cost',
          'defer',
          'deprecated',
          'experimental',
          'include',
          'listSize',
          'oneOf',
          'skip',
          'specifiedBy',
          'stream',
          'sunset',
        ].sort(),
      );
      expect(directives.find((directive) => directive.name === 'deprecated')).toMatchObject({
        locations: expect.arrayContaining(['FIELD_DEFINITION', 'ENUM_VALUE']),
        args: [{ name: 'reason', defaultValue: '"No longer supported"' }],
      });
    });

    it('answers includeDeprecated, isDeprecated and deprecationReason by introspection', async () => {
      const { status, body } = await post({
        query: `{ __type(name: "Query") {
        fields(includeDeprecated: true) { name isDeprecated deprecationReason
          args(includeDeprecated: true) { name isDeprecated } } } }`,
      });
      expect(status).toBe(200);
      expect(body.errors).toBeUndefined();
      const { fields } = (body.data as { __type: { fields: { name: string }[] } }).__type;
      expect(fields.find((field) => field.name === 'pets')).toMatchObject({
        isDeprecated: false,
        deprecationReason: null,
      });
    });

    it('runs @include and @skip from literals and variables, over POST and GET, priced as they run', async () => {
      const category = await makeCategory(app());
      for (let i = 0; i < 2; i++) await makePet(app(), { categoryId: category.id });
      const query = `query Pets($c: ID, $with: Boolean!, $without: Boolean!) {
      pets(first: 2, categoryId: $c) { edges { node { id
        category @include(if: $with) { name }
        inventory @skip(if: $without) { quantity }
        always: category @include(if: true) @skip(if: false) { id }
        never: category @skip(if: true) { id }
        alsoNever: inventory @include(if: false) { quantity } } } } }`;
      // The connection 1, each of its 2 edges 1 and its node 1, `always` 1 per node: 7; each of
      // `category` and `inventory` that runs adds 1 per node. Left out, a field costs nothing.
      const cases = [
        { with: true, without: false, cost: 11, keys: ['always', 'category', 'id', 'inventory'] },
        { with: true, without: true, cost: 9, keys: ['always', 'category', 'id'] },
        { with: false, without: true, cost: 7, keys: ['always', 'id'] },
      ];
      for (const send of [
        post,
        (body: { query: string; variables: unknown }) => get(body.query, body.variables),
      ]) {
        for (const { cost, keys, ...flags } of cases) {
          const { status, body } = await send({
            query,
            variables: { c: String(category.id), ...flags },
          });
          expect(status).toBe(200);
          expect(body.errors).toBeUndefined();
          const { edges } = (body.data as { pets: { edges: { node: Record<string, unknown> }[] } })
            .pets;
          expect(edges).toHaveLength(2);
          for (const { node } of edges) expect(Object.keys(node).sort()).toEqual(keys);
          expect(body.extensions?.cost).toEqual({
            requestedQueryCost: cost,
            actualQueryCost: cost,
          });
        }
      }
    });

    it('neither warns of nor counts as used a field that @skip or @include leave out', async () => {
      const pet = await makePet(app());
      const client = `skipper-${randomBytes(3).toString('hex')}`;
      // updateInventory is @beta: its use is warned of and counted, when it runs.
      const mutation = `mutation Stock($skip: Boolean!) {
      updateInventory(petId: "${pet.id}", input: { quantity: 3 }) @skip(if: $skip) { quantity }
      literal: updateInventory(petId: "${pet.id}", input: { quantity: 4 }) @include(if: false) { quantity } }`;
      const headers = { authorization: app().authorization, 'graphql-client-name': client };
      const skipped = await post({ query: mutation, variables: { skip: true } }, headers);
      expect(skipped.status).toBe(200);
      expect(skipped.body.data).toEqual({});
      expect(skipped.body.extensions?.warnings).toBeUndefined();
      const used = async () => {
        const response = await app().fetch(
          new Request('http://petstore.test/usage', {
            headers: { authorization: `Bearer ${await app().token(['admin:read'])}` },
          }),
        );
        const report = (await response.json()) as {
          coordinates: { coordinate: string; clients: { name: string }[] }[];
        };
        return report.coordinates
          .filter((entry) => entry.clients.some((user) => user.name === client))
          .map((entry) => entry.coordinate);
      };
      expect(await used()).not.toContain('Mutation.updateInventory');

      const ran = await post({ query: mutation, variables: { skip: false } }, headers);
      expect(ran.body.data).toEqual({ updateInventory: { quantity: 3 } });
      expect(ran.body.extensions?.warnings?.map((warning) => warning.coordinate)).toEqual([
        'Mutation.updateInventory',
      ]);
      expect(await used()).toContain('Mutation.updateInventory');
    });
  },
);
