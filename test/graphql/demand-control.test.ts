import { beforeAll, expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { anonymous, type Client, withAuthorization } from '../helpers/client.js';
import { makeCategory, makePet } from '../helpers/factories.js';
import { graphqlRequest } from '../helpers/graphql.js';
import { rest } from '../helpers/rest.js';
import { sdlActual, sdlEstimate } from '../helpers/sdl-cost.js';

interface Cost {
  requestedQueryCost: number;
  actualQueryCost?: number;
  throttleStatus?: { maximumAvailable: number; currentlyAvailable: number; restoreRate: number };
}

interface Result {
  data?: unknown;
  errors?: { message: string; extensions: { code: string; status: number } }[];
  extensions?: { cost?: Cost };
}

async function post(app: Client, body: unknown) {
  const response = await app.fetch(
    graphqlRequest(body, app.authorization ? { authorization: app.authorization } : {}),
  );
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** Costs 1 + 25 x 2 = 51 points, and resolves as much with 25 pets or more. */
const page25 = '{ pets(first: 25) { edges { node { id } } } }';
/** Costs 1 + 50 x 2 = 101 points; with 25 pets it resolves 51. */
const page50 = '{ pets(first: 50) { edges { node { id } } } }';

describeDb('the cost budget (RATE_LIMIT_COST_PER_MINUTE)', () => {
  // 120 points a minute: 2 a second come back, slow enough that a test sees what it spent.
  const app = useTestApp({ RATE_LIMIT_COST_PER_MINUTE: '120', RESPONSE_CACHE_TTL_MS: '0' });
  const client = async (subject: string) =>
    withAuthorization(app(), `Bearer ${await app().token([], { subject })}`);

  let petId = 0n;
  beforeAll(async () => {
    const category = await makeCategory(app());
    for (let i = 0; i < 25; i++) petId = (await makePet(app(), { categoryId: category.id })).id;
  });

  it('reports the cost of a success: requested, actual and the budget after it', async () => {
    const query = `{ pet(id: "${petId}") { id name category { name } } }`;
    const { status, body } = await post(await client('reporter'), { query });
    expect(status).toBe(200);
    expect(body.extensions).toEqual({
      cost: {
        requestedQueryCost: sdlEstimate({ query }),
        actualQueryCost: 2,
        throttleStatus: {
          maximumAvailable: 120,
          currentlyAvailable: expect.any(Number),
          restoreRate: 2,
        },
      },
    });
    expect(body.extensions.cost.throttleStatus.currentlyAvailable).toBeGreaterThanOrEqual(118);
  });

  it('refunds the difference once a small actual cost is known', async () => {
    const refunded = await client('refunded');
    const first = await post(refunded, { query: page50 });
    expect(first.status).toBe(200);
    const cost: Cost = first.body.extensions.cost;
    expect(cost).toMatchObject({ requestedQueryCost: 101, actualQueryCost: 51 });
    // Charged 101 before it ran, given back 50 after: 69 left, not 19.
    expect(cost.throttleStatus?.currentlyAvailable).toBeGreaterThanOrEqual(69);
    expect(cost.throttleStatus?.currentlyAvailable).toBeLessThan(80);
    // So the next 51 points are there.
    expect((await post(refunded, { query: page25 })).status).toBe(200);
  });

  it('refuses a client that spent its budget with 429 and Retry-After, and not another client', async () => {
    const spender = await client('spender');
    expect((await post(spender, { query: page25 })).status).toBe(200);
    expect((await post(spender, { query: page25 })).status).toBe(200);
    const refused = await post(spender, { query: page25 });
    expect(refused.status).toBe(429);
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors).toEqual([
      {
        message: expect.stringMatching(
          /^This request costs 51 points and the budget holds \d+ now/,
        ),
        extensions: { code: 'RATE_LIMITED', status: 429 },
      },
    ]);
    // 51 points at 2 a second: at most 26 seconds away.
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(26);
    const cost: Cost = refused.body.extensions.cost;
    expect(cost.requestedQueryCost).toBe(51);
    expect(cost).not.toHaveProperty('actualQueryCost');
    expect(cost.throttleStatus?.currentlyAvailable).toBeLessThan(51);
    expect(refused.headers.get('ratelimit')).toBe(
      `"cost";r=${cost.throttleStatus?.currentlyAvailable};t=${Math.ceil((120 - (cost.throttleStatus?.currentlyAvailable ?? 0)) / 2)}`,
    );

    const other = await post(await client('bystander'), { query: page25 });
    expect(other.status).toBe(200);
  });

  it('charges a batch the sum of its operations before any runs', async () => {
    const batcher = await client('batcher');
    const before = app().database.statementCount();
    const refused = await post(batcher, [{ query: page25 }, { query: page25 }, { query: page25 }]);
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(refused.body.extensions.cost).toMatchObject({ requestedQueryCost: 153 });
    expect(app().database.statementCount()).toBe(before);
    // Nothing was taken: two of them fit.
    const two = await post(batcher, [{ query: page25 }, { query: page25 }]);
    expect(two.status).toBe(200);
    expect(two.body.map((result: Result) => result.extensions?.cost?.requestedQueryCost)).toEqual([
      51, 51,
    ]);
  });

  it('says so when one operation costs more than the whole budget', async () => {
    const query = '{ pets(first: 100) { edges { node { id } } } }';
    const refused = await post(await client('greedy'), { query });
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].message).toMatch(/201 points, more than the whole budget of 120/);
  });

  it('reports the cost of a refusal for cost, and charges nothing for it', async () => {
    const query =
      '{ pets(first: 100) { edges { node { category { pets(first: 100) { edges { node { id } } } } } } } }';
    const refused = await post(await client('too-complex'), { query });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(refused.body.extensions.cost).toEqual({
      requestedQueryCost: sdlEstimate({ query }),
      throttleStatus: { maximumAvailable: 120, currentlyAvailable: 120, restoreRate: 2 },
    });
    expect(refused.body.extensions.cost.requestedQueryCost).toBeGreaterThan(5000);
  });

  it('reports the cost of a partial result: what resolved, never more than the estimate', async () => {
    // Without orders:read each pet keeps its fields and gets an error for its orders.
    const query = '{ pets(first: 3) { edges { node { id orders { totalCount } } } } }';
    const partial = await post(await client('partial'), { query });
    expect(partial.status).toBe(200);
    expect(partial.body.errors).toHaveLength(3);
    const cost: Cost = partial.body.extensions.cost;
    expect(cost.requestedQueryCost).toBe(sdlEstimate({ query }));
    expect(cost.actualQueryCost).toBe(sdlActual(query, partial.body.data));
    expect(cost.actualQueryCost).toBeLessThan(cost.requestedQueryCost);
  });

  it('weighs a mutation 10, as its @cost says', async () => {
    const writer = withAuthorization(app(), app().authorization);
    const created = await post(writer, {
      query: 'mutation { createCategory(input: { name: "Weighed" }) { id name } }',
    });
    expect(created.status).toBe(200);
    expect(created.body.extensions.cost).toMatchObject({
      requestedQueryCost: 10,
      actualQueryCost: 10,
    });
  });
});

describeDb('the response cache and the cost budget', () => {
  const app = useTestApp({ RATE_LIMIT_COST_PER_MINUTE: '120', RESPONSE_CACHE_TTL_MS: '60000' });

  it('charges a public read the cache answers nothing, and reports its requested cost', async () => {
    const pet = await makePet(app());
    const read = () =>
      anonymous(app()).fetch(
        new Request(
          `http://petstore.test/graphql?query=${encodeURIComponent(`{ pet(id: "${pet.id}") { id name } }`)}`,
          { headers: { accept: 'application/graphql-response+json' } },
        ),
      );
    const miss = await read();
    const hit = await read();
    const missBody = await miss.json();
    const hitBody = await hit.json();
    expect(missBody.extensions.cost).toMatchObject({ requestedQueryCost: 1, actualQueryCost: 1 });
    expect(hitBody.data).toEqual(missBody.data);
    // What the document costs, as the cold request reported it; nothing executed.
    expect(hitBody.extensions).toEqual({
      cost: { requestedQueryCost: 1, throttleStatus: expect.any(Object) },
    });
    // Nothing more was taken (the bucket only refilled since).
    expect(hitBody.extensions.cost.throttleStatus.currentlyAvailable).toBeGreaterThanOrEqual(
      missBody.extensions.cost.throttleStatus.currentlyAvailable,
    );
    // The ETag covers the data, not the per-caller report.
    expect(hit.headers.get('etag')).toBe(miss.headers.get('etag'));
    expect(hit.headers.get('ratelimit')).toMatch(/^"cost";r=\d+;t=\d+$/);
  });
});

describeDb('the RateLimit-Policy and RateLimit fields', () => {
  const app = useTestApp({
    RATE_LIMIT_PER_MINUTE: '3',
    RATE_LIMIT_COST_PER_MINUTE: '1000',
    RESPONSE_CACHE_TTL_MS: '0',
  });
  const both = '"requests";q=3;w=60, "cost";q=1000;qu="cost-points";w=60';
  const graphql = (client: Client) => post(client, { query: '{ categories { id } }' });

  it('are on 200 and 429 of both edges: one policy per budget, cost points on /graphql only', async () => {
    const caller = withAuthorization(
      app(),
      `Bearer ${await app().token([], { subject: 'fields' })}`,
    );
    const ok = await rest(caller, 'GET', '/categories');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('ratelimit-policy')).toBe('"requests";q=3;w=60');
    expect(ok.headers.get('ratelimit')).toMatch(/^"requests";r=2;t=\d+$/);
    // The older fields stay for clients of the draft's earlier versions.
    expect(ok.headers.get('ratelimit-limit')).toBe('3');
    expect(ok.headers.get('ratelimit-remaining')).toBe('2');

    const okGraphql = await graphql(caller);
    expect(okGraphql.status).toBe(200);
    expect(okGraphql.headers.get('ratelimit-policy')).toBe(both);
    const cost: Cost = okGraphql.body.extensions.cost;
    expect(okGraphql.headers.get('ratelimit')).toMatch(
      new RegExp(
        `^"requests";r=1;t=\\d+, "cost";r=${cost.throttleStatus?.currentlyAvailable};t=\\d+$`,
      ),
    );

    expect((await rest(caller, 'GET', '/categories')).status).toBe(200);
    const limited = await rest(caller, 'GET', '/categories');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('ratelimit-policy')).toBe('"requests";q=3;w=60');
    expect(limited.headers.get('ratelimit')).toMatch(/^"requests";r=0;t=\d+$/);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    const limitedGraphql = await graphql(caller);
    expect(limitedGraphql.status).toBe(429);
    expect(limitedGraphql.headers.get('ratelimit-policy')).toBe(both);
    expect(limitedGraphql.headers.get('ratelimit')).toMatch(
      /^"requests";r=0;t=\d+, "cost";r=\d+;t=\d+$/,
    );
  });

  it('are on 401s, and a flood of invalid tokens is limited (by address)', async () => {
    // Anonymous callers and invalid tokens here all count as one address.
    const forged = withAuthorization(app(), 'Bearer not.a.token');
    const graphqlRefused = await graphql(forged);
    expect(graphqlRefused.status).toBe(401);
    expect(graphqlRefused.headers.get('ratelimit-policy')).toBe(both);
    expect(graphqlRefused.headers.get('ratelimit')).toMatch(
      /^"requests";r=[0-2];t=\d+, "cost";r=1000;t=0$/,
    );
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const refused = await rest(forged, 'GET', '/categories');
      statuses.push(refused.status);
      expect(refused.headers.get('ratelimit-policy')).toBe('"requests";q=3;w=60');
      expect(refused.headers.get('ratelimit')).toMatch(/^"requests";r=[0-2];t=\d+$/);
      if (refused.status === 429) expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    // At most 3 a minute: the flood is refused before its tokens are even looked at again.
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(2);
    expect(statuses.at(-1)).toBe(429);
  });
});

describeDb('the GraphiQL welcome text', () => {
  const app = useTestApp();

  it('says where a request shows its cost', async () => {
    const page = await app().fetch(
      new Request('http://petstore.test/graphql', { headers: { accept: 'text/html' } }),
    );
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('extensions.cost');
  });
});
