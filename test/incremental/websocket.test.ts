import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeDb, type TestApp, useTestApp } from '../helpers/app.js';
import { makeCategory, makePet } from '../helpers/factories.js';
import { assemble, multipartParts, PagedStream, PetStock } from '../helpers/incremental.js';
import { codeOf, events, liveSecret, liveToken, serveApp, wsClient } from '../helpers/live.js';

/**
 * Queries over graphql-ws (the published client): one `next` message per part, then `complete`,
 * each part the same as the multipart answer's over HTTP; a refusal is one `error` message.
 */

type Json = Record<string, unknown>;
type Served = Awaited<ReturnType<typeof serveApp>>;

/** What a graphql-ws client receives for one operation: its `next` payloads, and how it ended. */
async function overSocket(
  server: Served,
  payload: { query: string; variables?: Json; extensions?: Json },
  token?: string,
): Promise<{ parts: Json[]; error: unknown }> {
  const client = wsClient(server, token);
  try {
    const stream = events((sink) => client.subscribe(payload, sink));
    const error = await stream.ended;
    return { parts: stream.unread as Json[], error };
  } finally {
    await client.dispose();
  }
}

/** The test app served over real HTTP and WebSocket for the file's tests. */
function useServed(app: () => TestApp): () => Served {
  let server: Served | undefined;
  beforeAll(async () => {
    server = await serveApp(app());
  });
  afterAll(async () => {
    await server?.close();
  });
  return () => {
    if (!server) throw new Error('the server is not ready');
    return server;
  };
}

async function overHttp(app: TestApp, query: string, variables: Json, accept: string) {
  const response = await app.fetch(
    new Request('http://petstore.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify({ query, variables }),
    }),
  );
  return accept.startsWith('multipart')
    ? multipartParts(await response.text())
    : [(await response.json()) as Json];
}

describeDb('queries over graphql-ws', () => {
  const app = useTestApp({
    AUTH_JWT_SECRET: liveSecret,
    RESPONSE_CACHE_TTL_MS: '0',
    GRAPHQL_MAX_DEPTH: '6',
  });
  const served = useServed(app);

  async function page() {
    const category = await makeCategory(app());
    for (let i = 1; i <= 4; i++) await makePet(app(), { categoryId: category.id, quantity: i });
    return { categoryId: String(category.id) };
  }

  it('answers a plain query in one next message, with its cost report, then complete', async () => {
    const pet = await makePet(app(), { name: 'Plain' });
    const query = 'query ($id: ID!) { pet(id: $id) { id name } }';
    const variables = { id: String(pet.id) };
    const { parts, error } = await overSocket(served(), { query, variables });
    expect(error).toBeUndefined();
    expect(parts).toEqual([
      {
        data: { pet: { id: String(pet.id), name: 'Plain' } },
        extensions: { cost: { requestedQueryCost: 1, actualQueryCost: 1 } },
      },
    ]);
    expect(parts).toEqual(await overHttp(app(), query, variables, 'application/json'));
  });

  for (const spec of ['2022', 'v0.2'] as const) {
    it(`delivers @defer and @stream as successive next messages in the ${spec} format`, async () => {
      const pet = await makePet(app(), { name: 'Deferred', quantity: 7 });
      const accept =
        spec === '2022'
          ? 'multipart/mixed;deferSpec=20220824'
          : 'multipart/mixed;incrementalSpec=v0.2';
      for (const [query, variables] of [
        [PetStock, { id: String(pet.id) }],
        [PagedStream, await page()],
      ] as const) {
        const extensions = spec === 'v0.2' ? { incrementalSpec: 'v0.2' } : {};
        const { parts, error } = await overSocket(served(), { query, variables, extensions });
        expect(error).toBeUndefined();
        expect(parts.length).toBeGreaterThan(1);
        expect(parts[0]).toMatchObject({
          hasNext: true,
          extensions: { cost: { requestedQueryCost: expect.any(Number) } },
        });
        expect(parts.at(-1)).toMatchObject({ hasNext: false });
        // The same data as the multipart answer in that format (how the executor groups the
        // parts depends on what resolves first: the parts themselves may differ).
        expect(assemble(parts, spec)).toEqual(
          assemble(await overHttp(app(), query, variables, accept), spec),
        );
      }
    });
  }

  it('refuses a deferred fragment past the depth limit with one error message, nothing streamed', async () => {
    const deep = `{ pets(first: 1) { edges { node { ... @defer { category { pets(first: 1) { edges { node { id } } } } } } } } }`;
    const { parts, error } = await overSocket(served(), { query: deep });
    expect(parts).toEqual([]);
    expect(error).toMatchObject([{ extensions: { code: 'QUERY_TOO_COMPLEX', status: 400 } }]);
    expect(JSON.stringify(error)).toMatch(/depth/i);
  });

  it('fails a deferred field that needs a scope in its part, in the Error shape', async () => {
    const pet = await makePet(app());
    const query = `query ($id: ID!) { pet(id: $id) { name ... @defer(label: "orders") { orders(first: 2) { totalCount } } } }`;
    const variables = { id: String(pet.id) };
    const anonymous = await overSocket(served(), { query, variables });
    expect(anonymous.parts[1]).toMatchObject({
      incremental: [
        {
          data: { orders: null },
          errors: [
            { path: ['pet', 'orders'], extensions: { code: 'UNAUTHENTICATED', status: 401 } },
          ],
        },
      ],
    });
    const allowed = await overSocket(served(), { query, variables }, await liveToken());
    expect(allowed.parts[1]).toMatchObject({
      incremental: [{ data: { orders: { totalCount: 0 } } }],
    });
    expect(allowed.parts[1]).not.toHaveProperty('incremental.0.errors');
  });

  it('refuses a mutation with METHOD_NOT_ALLOWED: mutations go by POST', async () => {
    const pet = await makePet(app());
    const { parts, error } = await overSocket(
      served(),
      { query: `mutation { deletePet(id: "${pet.id}") }` },
      await liveToken(),
    );
    expect(parts).toEqual([]);
    expect(codeOf(error)).toEqual({ code: 'METHOD_NOT_ALLOWED', status: 405 });
    expect(await app().database.prisma.pet.count({ where: { id: pet.id } })).toBe(1);
  });

  it('runs a persisted query sent by its hash alone', async () => {
    const pet = await makePet(app(), { name: 'Hashed' });
    const query = `{ pet(id: "${pet.id}") { name ... @defer { status } } }`;
    const sha256Hash = createHash('sha256').update(query).digest('hex');
    const extensions = { persistedQuery: { version: 1, sha256Hash } };
    // Unknown yet: PERSISTED_QUERY_NOT_FOUND; known once a request has sent it with its text.
    const unknown = await overSocket(served(), { query: '', extensions });
    expect(codeOf(unknown.error).code).toBe('PERSISTED_QUERY_NOT_FOUND');
    await app().fetch(
      new Request('http://petstore.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, extensions }),
      }),
    );
    const client = wsClient(served());
    try {
      // The published client wants a `query` string: an empty one stands for none.
      const stream = events((sink) => client.subscribe({ query: '', extensions }, sink));
      expect(await stream.ended).toBeUndefined();
      expect(assemble(stream.unread as Json[], '2022')).toEqual({
        pet: { name: 'Hashed', status: 'available' },
      });
    } finally {
      await client.dispose();
    }
  });
});

describeDb('the cost budget over graphql-ws', () => {
  const app = useTestApp({
    AUTH_JWT_SECRET: liveSecret,
    RESPONSE_CACHE_TTL_MS: '0',
    RATE_LIMIT_COST_PER_MINUTE: '30',
  });
  const served = useServed(app);

  it('charges a query as over HTTP, reports it in its first part, and refuses one the budget cannot cover', async () => {
    const token = await liveToken();
    // Two pets: their deferred names make the answer come in parts.
    for (const _ of [1, 2]) await makePet(app());
    const query = (first: number) =>
      `{ pets(first: ${first}) { edges { node { id ... @defer { name } } } } }`;
    const charged = await overSocket(served(), { query: query(10) }, token);
    expect(charged.error).toBeUndefined();
    expect(charged.parts[0]?.extensions).toEqual({
      cost: {
        requestedQueryCost: 21,
        throttleStatus: { maximumAvailable: 30, currentlyAvailable: 9, restoreRate: 0.5 },
      },
    });
    const refused = await overSocket(served(), { query: query(20) }, token);
    expect(refused.parts).toEqual([]);
    expect(refused.error).toMatchObject([
      {
        message: expect.stringMatching(/costs 41 points/),
        extensions: { code: 'RATE_LIMITED', status: 429 },
      },
    ]);
  });
});
