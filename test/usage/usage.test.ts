import { randomBytes } from 'node:crypto';
import { ApolloClient, gql as apolloGql, HttpLink, InMemoryCache } from '@apollo/client';
import { expect, it } from 'vitest';
import type { UsageReport } from '../../src/usage/report.js';
import { describeDb, type TestApp, useTestApp } from '../helpers/app.js';
import { makePet } from '../helpers/factories.js';
import { graphqlRequest } from '../helpers/graphql.js';
import { rest } from '../helpers/rest.js';

const unique = (prefix: string) => `${prefix}-${randomBytes(3).toString('hex')}`;

const named = (name: string, version?: string) => ({
  'graphql-client-name': name,
  ...(version ? { 'graphql-client-version': version } : {}),
});

/** GET /usage with an admin:read token (or the headers given). */
async function usage(app: TestApp, query = '', headers?: Record<string, string>) {
  const authorization = `Bearer ${await app.token(['admin:read'])}`;
  const response = await app.fetch(
    new Request(`http://petstore.test/usage${query}`, { headers: headers ?? { authorization } }),
  );
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** What the report says about one client: coordinate → its versions and their counts. */
function usedBy(report: UsageReport, client: string) {
  const found: Record<string, Record<string, number>> = {};
  for (const entry of report.coordinates) {
    for (const user of entry.clients) {
      if (user.name !== client) continue;
      found[`${entry.api} ${entry.coordinate}`] = Object.fromEntries(
        user.versions.map((version) => [version.version, version.count]),
      );
    }
  }
  return found;
}

describeDb('usage by client', () => {
  const app = useTestApp();

  it('shows a GraphQL query under the client it names, with every coordinate it used', async () => {
    const client = unique('shop-web');
    const query =
      'query SoldPets($status: PetStatus) { pets(first: 2, status: $status) { edges { node { name } } } }';
    for (const version of ['4.1.0', '4.1.0', '4.2.0']) {
      const response = await app().fetch(
        graphqlRequest({ query, variables: { status: 'sold' } }, named(client, version)),
      );
      expect(response.status).toBe(200);
    }
    const { status, headers, body } = await usage(app());
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(usedBy(body, client)).toEqual(
      Object.fromEntries(
        [
          'Pet',
          'Pet.name',
          'PetConnection',
          'PetConnection.edges',
          'PetEdge',
          'PetEdge.node',
          'PetStatus',
          // Sent in a variable: read from the request's values.
          'PetStatus.sold',
          'Query',
          'Query.pets',
          'Query.pets(first:)',
          'Query.pets(status:)',
        ].map((coordinate) => [`graphql ${coordinate}`, { '4.1.0': 2, '4.2.0': 1 }]),
      ),
    );
    const entry = (body as UsageReport).coordinates.find(
      (each) => each.coordinate === 'PetStatus.sold',
    );
    const mine = entry?.clients.find((each) => each.name === client);
    expect(mine).toEqual({
      name: client,
      count: 3,
      firstSeen: expect.any(String),
      lastSeen: expect.any(String),
      versions: [
        { version: '4.1.0', count: 2, firstSeen: expect.any(String), lastSeen: expect.any(String) },
        { version: '4.2.0', count: 1, firstSeen: expect.any(String), lastSeen: expect.any(String) },
      ],
    });
    expect(Date.parse(mine?.firstSeen ?? '')).toBeLessThanOrEqual(Date.parse(mine?.lastSeen ?? ''));
    expect(Date.now() - Date.parse(mine?.lastSeen ?? '')).toBeLessThan(60_000);
  });

  it('knows Apollo Client by the name and version it is given (apollographql-client-*)', async () => {
    const name = unique('apollo-app');
    const { id } = await makePet(app(), { name: 'Apollo' });
    const client = new ApolloClient({
      cache: new InMemoryCache(),
      clientAwareness: { name, version: '1.3' },
      link: new HttpLink({
        uri: 'http://petstore.test/graphql',
        fetch: (input, init) => app().fetch(new Request(input, init)),
      }),
    });
    const result = await client.query({
      query: apolloGql`query NamedApolloClientPet($id: ID!) { pet(id: $id) { id name } }`,
      variables: { id: String(id) },
    });
    expect(result.data).toEqual({ pet: { __typename: 'Pet', id: String(id), name: 'Apollo' } });
    expect(usedBy((await usage(app())).body, name)).toMatchObject({
      'graphql Query.pet': { '1.3': 1 },
      'graphql Query.pet(id:)': { '1.3': 1 },
      'graphql Pet.name': { '1.3': 1 },
    });
  });

  it('shows each REST call under its operation id, whatever its answer', async () => {
    const client = unique('legacy-shop');
    const { id } = await makePet(app());
    expect(
      (await rest(app(), 'GET', `/pets/${id}`, { headers: named(client, '2.0') })).status,
    ).toBe(200);
    expect(
      (await rest(app(), 'GET', '/pets/987654321', { headers: named(client, '2.0') })).status,
    ).toBe(404);
    expect(
      (await rest(app(), 'GET', '/pets?limit=1', { headers: named(client, '2.0') })).status,
    ).toBe(200);
    // A route that does not exist is no operation: not counted.
    expect(
      (
        await app().fetch(
          new Request('http://petstore.test/api/nothing', { headers: named(client) }),
        )
      ).status,
    ).toBe(404);
    expect(usedBy((await usage(app())).body, client)).toEqual({
      'rest getPetById': { '2.0': 2 },
      'rest listPets': { '2.0': 1 },
    });
  });

  it('keeps one coordinate with ?coordinate=, and refuses a filter given twice or empty', async () => {
    const client = unique('filtered');
    await app().fetch(graphqlRequest({ query: '{ categories { name } }' }, named(client, '1')));
    const { status, body } = await usage(app(), '?coordinate=Category.name');
    expect(status).toBe(200);
    expect((body as UsageReport).coordinates.map((entry) => entry.coordinate)).toEqual([
      'Category.name',
    ]);
    expect(usedBy(body, client)).toEqual({ 'graphql Category.name': { '1': 1 } });
    expect((await usage(app(), '?coordinate=No.suchThing')).body.coordinates).toEqual([]);
    for (const query of ['?coordinate=A&coordinate=B', '?coordinate=']) {
      expect(await usage(app(), query)).toMatchObject({
        status: 400,
        body: {
          code: 'VALIDATION_FAILED',
          status: 400,
          message: expect.stringContaining('coordinate'),
        },
      });
    }
  });

  it('is 401 without a token and 403 without admin:read, in the Error shape', async () => {
    const anonymous = await usage(app(), '', {});
    expect(anonymous).toMatchObject({
      status: 401,
      body: {
        code: 'UNAUTHENTICATED',
        message: 'This operation needs a bearer token with the admin:read scope',
        status: 401,
      },
    });
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const others = `Bearer ${await app().token(['pets:write', 'orders:read', 'orders:write', 'inventory:write'])}`;
    expect(await usage(app(), '', { authorization: others })).toEqual({
      status: 403,
      headers: expect.any(Headers),
      body: {
        code: 'FORBIDDEN',
        message: 'The token does not grant the admin:read scope this operation needs',
        status: 403,
      },
    });
    const wrongMethod = await app().fetch(
      new Request('http://petstore.test/usage', {
        method: 'POST',
        headers: { authorization: app().authorization },
      }),
    );
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD');
  });
});

describeDb('the days a usage report covers', () => {
  const app = useTestApp();
  const DAY_MS = 86_400_000;
  const dayAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString().slice(0, 10);
  /** A stored count `days` ago, as a replica's write leaves it. */
  const countedDaysAgo = (days: number) =>
    app().database.prisma.usageCount.create({
      data: {
        day: Math.floor(Date.now() / DAY_MS) - days,
        api: 'rest',
        coordinate: `getPetById`,
        clientName: 'web',
        clientVersion: `${days}`,
        count: 1n,
        firstSeen: BigInt(Date.now() - days * DAY_MS),
        lastSeen: BigInt(Date.now() - days * DAY_MS),
      },
    });

  it('covers today alone on a fresh database, whatever the retention', async () => {
    const { body } = await usage(app());
    expect(body).toMatchObject({ generatedAt: expect.any(String), from: dayAgo(0), to: dayAgo(0) });
  });

  it('covers from the first day it recorded a use, at most the retention (30 days)', async () => {
    await countedDaysAgo(3);
    expect((await usage(app())).body).toMatchObject({ from: dayAgo(3), to: dayAgo(0) });
    // A day past the retention, not yet deleted: the report still covers only the days it keeps.
    await countedDaysAgo(40);
    expect((await usage(app())).body).toMatchObject({ from: dayAgo(29), to: dayAgo(0) });
  });
});

describeDb('usage recording off', () => {
  const app = useTestApp({ USAGE_BUFFER_ENTRIES: '0' });

  it('counts nothing with USAGE_BUFFER_ENTRIES=0, and /usage still answers', async () => {
    await app().fetch(graphqlRequest({ query: '{ categories { id } }' }, named('quiet')));
    await rest(app(), 'GET', '/categories', { headers: named('quiet') });
    const { status, body } = await usage(app());
    expect(status).toBe(200);
    expect(body.coordinates).toEqual([]);
  });
});
