import { createSchema, createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stabilityMarks, stabilityWarnings } from '../../src/warnings/graphql.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makePet } from '../helpers/factories.js';
import { graphqlRequest } from '../helpers/graphql.js';
import {
  events,
  liveSecret,
  liveToken,
  restCall,
  restPet,
  sseClient,
  untilOpen,
  wsClient,
} from '../helpers/live.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

const experimental = (field: string) => ({
  code: 'EXPERIMENTAL',
  coordinate: `Subscription.${field}`,
  message: `Subscription.${field} is experimental: it may change or disappear without notice.`,
});

describeDb('warnings in responses', () => {
  const app = useTestApp();

  it('warns a document that uses updateInventory (@beta), once, and changes nothing else', async () => {
    const pet = await makePet(app());
    const response = await app().fetch(
      graphqlRequest(
        {
          query: `mutation Stock { a: updateInventory(petId: "${pet.id}", input: { quantity: 3 }) { quantity } b: updateInventory(petId: "${pet.id}", input: { quantity: 4 }) { quantity } }`,
        },
        { authorization: app().authorization },
      ),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      data: { a: { quantity: 3 }, b: { quantity: 4 } },
      extensions: {
        warnings: [
          {
            code: 'BETA',
            coordinate: 'Mutation.updateInventory',
            message:
              'Mutation.updateInventory is beta: it works and is supported, but its shape may still change.',
          },
        ],
        cost: expect.any(Object),
      },
    });
  });

  it('gives a plain query no warnings at all', async () => {
    const response = await app().fetch(
      graphqlRequest({ query: '{ pets(first: 1, status: available) { totalCount } }' }),
    );
    const body = await response.json();
    expect(body.extensions).toEqual({ cost: expect.any(Object) });
  });
});

describeDb('warnings of subscriptions (@experimental), on their first event', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({ AUTH_JWT_SECRET: liveSecret, SEED: 'false' });
  });
  afterAll(() => server?.stop());

  it('over SSE and WebSocket: the first event carries the warning, the next ones do not', async () => {
    const token = await liveToken();
    const { id } = await restPet(server, token, 1);
    const query = `subscription { inventoryChanged(petId: "${id}") { quantity } }`;
    const ws = wsClient(server, token);
    const sse = sseClient(server, token);
    const overWs = events((sink) => ws.subscribe({ query }, sink));
    const overSse = events((sink) => sse.subscribe({ query }, sink));
    await untilOpen(server, 2);
    // An event reads the stock when it is delivered: the second write waits for the first's
    // events, or both could read its quantity.
    const cursor = expect.stringMatching(/^\d+$/);
    const set = async (quantity: number) =>
      expect(
        (await restCall(server, 'PUT', `/store/inventory/${id}`, token, { quantity })).status,
      ).toBe(200);
    await set(5);
    for (const stream of [overWs, overSse]) {
      // Every event carries its cursor; only the first, the warning.
      expect(await stream.next()).toEqual({
        data: { inventoryChanged: { quantity: 5 } },
        extensions: { cursor, warnings: [experimental('inventoryChanged')] },
      });
    }
    await set(6);
    for (const stream of [overWs, overSse]) {
      expect(await stream.next()).toEqual({
        data: { inventoryChanged: { quantity: 6 } },
        extensions: { cursor },
      });
      stream.close();
    }
    await ws.dispose();
    sse.dispose();
  });
});

describe('warnings of deprecated elements', () => {
  const schema = createSchema({
    typeDefs: /* GraphQL */ `
      directive @sunset(date: String!) on FIELD_DEFINITION | ARGUMENT_DEFINITION | INPUT_FIELD_DEFINITION | ENUM_VALUE
      enum Size { small large huge @deprecated(reason: "Use large") @sunset(date: "2027-06-30") }
      input Order { size: Size, note: String @deprecated(reason: "Nobody reads it.") }
      type Query {
        petById(id: ID!): String @deprecated(reason: "Use pet.") @sunset(date: "2027-06-30")
        pet(id: ID!, legacyId: Int @deprecated): String
        order(input: Order): String
      }
    `,
    resolvers: { Query: { petById: () => 'Rex', pet: () => 'Rex', order: () => 'ok' } },
  });
  const yoga = createYoga({ schema, plugins: [stabilityWarnings()] });
  const ask = async (query: string, variables?: Record<string, unknown>) => {
    const response = await yoga.fetch(
      new Request('http://petstore.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      }),
    );
    return (await response.json()).extensions?.warnings;
  };

  it('names the reason and the sunset date when the schema gives one (@sunset)', async () => {
    expect(
      await ask('{ a: petById(id: "1") b: petById(id: "2") pet(id: "1", legacyId: 7) }'),
    ).toEqual([
      {
        code: 'DEPRECATED',
        coordinate: 'Query.pet(legacyId:)',
        message: 'Query.pet(legacyId:) is deprecated: No longer supported.',
      },
      {
        code: 'DEPRECATED',
        coordinate: 'Query.petById',
        message: 'Query.petById is deprecated: Use pet. It goes away on 2027-06-30.',
      },
    ]);
  });

  it('warns of deprecated enum values and input fields, written in the document or sent in variables', async () => {
    const sizes = [
      {
        code: 'DEPRECATED',
        coordinate: 'Order.note',
        message: 'Order.note is deprecated: Nobody reads it.',
      },
      {
        code: 'DEPRECATED',
        coordinate: 'Size.huge',
        message: 'Size.huge is deprecated: Use large. It goes away on 2027-06-30.',
      },
    ];
    expect(await ask('{ order(input: { size: huge, note: "x" }) }')).toEqual(sizes);
    expect(
      await ask('query($o: Order) { order(input: $o) }', { o: { size: 'huge', note: 'x' } }),
    ).toEqual(sizes);
    expect(
      await ask('query($o: Order) { order(input: $o) }', { o: { size: 'small' } }),
    ).toBeUndefined();
  });

  it('finds every marked element of the gateway’s schema: updateInventory and the subscriptions', async () => {
    const { schema: gateway } = await import('../../src/graphql/schema/index.js');
    expect(
      [...stabilityMarks(gateway)].map(([coordinate, { code }]) => `${code} ${coordinate}`),
    ).toEqual([
      'BETA Mutation.updateInventory',
      'EXPERIMENTAL Subscription.inventoryChanged',
      'EXPERIMENTAL Subscription.orderChanged',
      'EXPERIMENTAL Subscription.petChanged',
    ]);
  });
});
