import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import type { Client } from '../helpers/client.js';
import { makeCategory, makeOrder, makePet } from '../helpers/factories.js';
import { graphqlRequest } from '../helpers/graphql.js';
import { sdlActual, sdlEstimate } from '../helpers/sdl-cost.js';

interface Body {
  data?: unknown;
  errors?: { message: string; path?: unknown[]; extensions: { code: string; status: number } }[];
  extensions?: { cost?: { requestedQueryCost: number; actualQueryCost?: number } };
}

async function post(app: Client, body: unknown, headers: Record<string, string> = {}) {
  const response = await app.fetch(graphqlRequest(body, headers));
  return { status: response.status, body: (await response.json()) as Body };
}

/** The query that made one anonymous request take seconds and hundreds of megabytes. */
const nestedPages = `categories { pets(first: $n) { edges { node { category { description
  pets(first: $n) { edges { cursor node { id name status categoryId
    inventory { petId quantity status } } } } } } } } }`;

const fullPage = `pets(first: 100) {
  totalCount
  pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  edges { cursor node { id name categoryId status
    category { id name description } inventory { petId quantity status } } } }`;

function expectTooComplex(result: { status: number; body: Body }) {
  expect(result.status).toBe(400);
  expect(result.body.data).toBeUndefined();
  expect(result.body.errors?.[0]?.extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', status: 400 });
  expect(result.body.errors?.[0]?.message).not.toMatch(/^Syntax Error/);
}

describeDb('the cost limit counts page sizes however they are spelled', () => {
  const app = useTestApp();

  beforeAll(async () => {
    const category = await makeCategory(app());
    for (let i = 0; i < 3; i++) await makePet(app(), { categoryId: category.id });
  });

  it('refuses nested pages whose size comes from a variable, before running anything', async () => {
    const before = app().database.statementCount();
    const result = await post(app(), {
      query: `query Nested($n: Int) { ${nestedPages} }`,
      variables: { n: 100 },
    });
    expectTooComplex(result);
    // At most the count of categories (the real bound of the unpaged list) was read.
    expect(app().database.statementCount() - before).toBeLessThanOrEqual(1);
  });

  it('prices one document anew for each page size, and alike each time the size is fixed', async () => {
    const query = 'query Page($n: Int) { pets(first: $n) { edges { node { id } } } }';
    const fixed = '{ pets(first: 2) { edges { node { id } } } }';
    const requested = async (body: unknown) =>
      (await post(app(), body)).body.extensions?.cost?.requestedQueryCost;
    const costs = [];
    for (const n of [1, 50, 1, 100]) costs.push(await requested({ query, variables: { n } }));
    expect(costs).toEqual([3, 101, 3, 201]);
    // A document whose cost depends on nothing a request sends: the same at every request.
    expect([await requested({ query: fixed }), await requested({ query: fixed })]).toEqual([5, 5]);
    // A name that is not the document's operation prices nothing (and is refused), then the
    // operation itself is priced as before.
    const named = { query: 'query P { pets(first: 2) { edges { node { id } } } }' };
    expect((await post(app(), { ...named, operationName: 'Other' })).status).toBe(400);
    expect(await requested({ ...named, operationName: 'P' })).toBe(5);
  });

  it('refuses the same document with 12 aliases', async () => {
    const aliased = Array.from({ length: 12 }, (_, i) => `a${i}: ${nestedPages}`).join('\n');
    expectTooComplex(
      await post(app(), { query: `query Nested($n: Int) { ${aliased} }`, variables: { n: 100 } }),
    );
  });

  it('refuses a batch of 10 such operations: a batch costs the sum of its operations', async () => {
    const operation = { query: `query Nested($n: Int) { ${nestedPages} }`, variables: { n: 100 } };
    const before = app().database.statementCount();
    expectTooComplex(
      await post(
        app(),
        Array.from({ length: 10 }, () => operation),
      ),
    );
    expect(app().database.statementCount() - before).toBeLessThanOrEqual(1);
  });

  it('refuses a batch whose operations fit one by one but not together', async () => {
    // 100 pets, each with a page of 20 of its category's pets: 4401 points, under 5000 alone.
    const operation = {
      query:
        '{ pets(first: 100) { edges { node { category { pets { edges { node { id } } } } } } } }',
    };
    expect((await post(app(), [operation])).status).toBe(200);
    expectTooComplex(await post(app(), [operation, operation]));
  });

  it('counts a variable default and an omitted variable like the value they stand for', async () => {
    const inner =
      'pets(first: $n) { edges { node { category { pets(first: $n) { edges { node { id } } } } } } }';
    expectTooComplex(await post(app(), { query: `query($n: Int = 100) { ${inner} }` }));
    // Without a value, `first` defaults to 20 pets: 20 x 20 nested pets fit.
    const defaulted = await post(app(), { query: `query($n: Int) { ${inner} }` });
    expect(defaulted.status).toBe(200);
    expect(defaulted.body.errors).toBeUndefined();
  });

  it('counts a page size hidden in a fragment', async () => {
    const result = await post(app(), {
      query: `query($n: Int) { pets(first: $n) { ...Deep } }
        fragment Deep on PetConnection { edges { node { category { pets(first: $n) { ...Deep2 } } } } }
        fragment Deep2 on PetConnection { edges { node { category { pets(first: $n) { edges { node { id } } } } } } }`,
      variables: { n: 100 },
    });
    expectTooComplex(result);
  });

  it('accepts one full 100-pet page with category, inventory and pageInfo, however first is spelled', async () => {
    const literal = await post(app(), { query: `{ ${fullPage} }` });
    expect(literal.status).toBe(200);
    expect(literal.body.errors).toBeUndefined();
    const variable = await post(app(), {
      query: `query($n: Int) { ${fullPage.replace('first: 100', 'first: $n')} }`,
      variables: { n: 100 },
    });
    expect(variable.status).toBe(200);
    expect(variable.body.errors).toBeUndefined();
  });

  it('refuses three nested full pages', async () => {
    const three =
      'pets(first: 100) { edges { node { category { pets(first: 100) { edges { node { category { pets(first: 100) { edges { node { id } } } } } } } } } } }';
    expectTooComplex(await post(app(), { query: `{ ${three} }` }));
  });

  /** Fragments that each spread the next `times` times, `levels` deep: `times ** levels` spreads. */
  function fanOut(times: number, levels: number, leaf: string): string {
    let document = 'query FanOut { ...F0 }\n';
    for (let level = 0; level < levels; level++)
      document += `fragment F${level} on Query { ${` ...F${level + 1}`.repeat(times)} }\n`;
    return `${document}fragment F${levels} on Query { ${leaf} }`;
  }

  it('prices a document of 27 million fragment spreads (5 KB, within every limit) as cheaply as a small one', async () => {
    // Walked spread by spread, one such request took about a second of CPU here (two over HTTP)
    // and was priced 0: twenty in a row outlast this test's 10 s. Each fragment is priced once,
    // and collected once per selection, as execution collects it.
    for (let i = 0; i < 20; i++) {
      const free = await post(app(), { query: fanOut(300, 3, '__typename') });
      expect(free.status).toBe(200);
      expect(free.body.data).toEqual({ __typename: 'Query' });
      expect(free.body.extensions?.cost?.requestedQueryCost).toBe(0);
    }
    // With a priced field at the bottom, every spread counts: refused before it runs.
    const priced = await post(app(), { query: fanOut(300, 3, 'pets(first: 1) { totalCount }') });
    expectTooComplex(priced);
    expect(priced.body.extensions?.cost?.requestedQueryCost).toBeGreaterThan(300 ** 3);
  }, 10_000);

  it('lets GraphiQL introspect the schema', async () => {
    const { getIntrospectionQuery } = await import('graphql');
    const result = await post(app(), { query: getIntrospectionQuery() });
    expect(result.status).toBe(200);
    expect(result.body.errors).toBeUndefined();
  });
});

describeDb('an unpaged list counts by its real size', () => {
  // `categories { id name description }` costs 1 a category (an object; its scalars are free).
  // The rows are made behind the app's back (no write evicts), so the response cache, which
  // answers before the cost rule, is off.
  const app = useTestApp({ GRAPHQL_MAX_COST: '7', RESPONSE_CACHE_TTL_MS: '0' });
  const query = '{ categories { id name description } }';

  it('accepts the list while it is small and refuses it once it has grown', async () => {
    for (let i = 0; i < 5; i++) await makeCategory(app());
    expect((await post(app(), { query })).status).toBe(200);
    for (let i = 0; i < 5; i++) await makeCategory(app());
    expectTooComplex(await post(app(), { query }));
  });
});

describeDb('the cap on resolved list items backs the cost rule up', () => {
  const app = useTestApp({ GRAPHQL_MAX_LIST_ITEMS: '5' });

  it('stops a list past the cap with QUERY_TOO_COMPLEX instead of building it', async () => {
    const category = await makeCategory(app());
    for (let i = 0; i < 6; i++) await makePet(app(), { categoryId: category.id });
    const ok = await post(app(), { query: '{ pets(first: 5) { edges { node { id } } } }' });
    expect(ok.body.errors).toBeUndefined();

    const result = await post(app(), { query: '{ pets(first: 6) { edges { node { id } } } }' });
    expect(result.body.data).toBeNull();
    expect(result.body.errors).toHaveLength(1);
    expect(result.body.errors?.[0]).toMatchObject({
      path: ['pets', 'edges'],
      extensions: { code: 'QUERY_TOO_COMPLEX', status: 400 },
    });
  });

  it('counts the operations of a batch together', async () => {
    const category = await makeCategory(app());
    for (let i = 0; i < 3; i++) await makePet(app(), { categoryId: category.id });
    const operation = {
      query: 'query($c: ID) { pets(first: 3, categoryId: $c) { edges { node { id } } } }',
      variables: { c: String(category.id) },
    };
    const results = (await post(app(), [operation, operation])).body as unknown as Body[];
    // The operations of a batch run side by side: whichever resolves its page last goes past the
    // cap (on PostgreSQL each reads on its own connection, so either may), never both nor neither.
    const codes = results.map((result) => result.errors?.[0]?.extensions.code ?? 'OK').sort();
    expect(codes).toEqual(['OK', 'QUERY_TOO_COMPLEX']);
    const answered = results.find((result) => result.errors === undefined);
    expect(answered?.data).toEqual({
      pets: { edges: [expect.anything(), expect.anything(), expect.anything()] },
    });
  });
});

/** Objects in a response: each weighs at least 1, so the cost rule bounds them. */
function countObjects(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + countObjects(item), 0);
  if (typeof value !== 'object' || value === null) return 0;
  return Object.values(value).reduce((sum: number, field) => sum + countObjects(field), 1);
}

/** How a page size is spelled in a generated document. */
type Spelling = { kind: 'literal' | 'variable'; size: number } | { kind: 'default' };

type Shape =
  | { field: 'scalars' }
  | { field: 'category' | 'inventory' | 'pet'; inner: Shape[] }
  | { field: 'pets' | 'orders'; first: Spelling; inner: Shape[] };

const spelling: fc.Arbitrary<Spelling> = fc.oneof(
  fc.record({ kind: fc.constantFrom('literal' as const, 'variable' as const), size: fc.nat(100) }),
  fc.constant({ kind: 'default' as const }),
);

/** Random nested documents over the relations of the schema, page sizes in every spelling. */
const petShapes = fc.letrec<{ pet: Shape[]; category: Shape[]; order: Shape[] }>((tie) => ({
  pet: fc.array(
    fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant({ field: 'scalars' } as Shape),
      fc.record({ field: fc.constant('category' as const), inner: tie('category') }),
      fc.constant({ field: 'inventory', inner: [] } as Shape),
      fc.record({ field: fc.constant('orders' as const), first: spelling, inner: tie('order') }),
    ),
    { minLength: 1, maxLength: 3 },
  ),
  category: fc.array(
    fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant({ field: 'scalars' } as Shape),
      fc.record({ field: fc.constant('pets' as const), first: spelling, inner: tie('pet') }),
    ),
    { minLength: 1, maxLength: 2 },
  ),
  order: fc.array(
    fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant({ field: 'scalars' } as Shape),
      fc.record({ field: fc.constant('pet' as const), inner: tie('pet') }),
    ),
    { minLength: 1, maxLength: 2 },
  ),
}));

const scalarsOf: Record<string, string> = {
  pet: 'id name status',
  category: 'id name',
  order: 'id quantity',
  inventory: 'quantity',
};

/**
 * Prints shapes; page sizes passed as variables are added to `variables`. A field that appears
 * twice in one selection gets an alias the second time: two `orders` with different arguments, or
 * two `category` whose selections do (their fields merge), would be an invalid document, refused
 * by validation before its cost is counted; and a field selected twice under one name is resolved
 * once, while the estimate counts it twice.
 */
function print(shapes: Shape[], type: string, variables: Record<string, number>): string {
  const seen = new Map<string, number>();
  const aliasOf = (field: string) => {
    const count = (seen.get(field) ?? 0) + 1;
    seen.set(field, count);
    return count > 1 ? `${field}${count}: ` : '';
  };
  return shapes
    .map((shape) => {
      if (shape.field === 'scalars') return scalarsOf[type];
      if (shape.field === 'inventory')
        return `${aliasOf('inventory')}inventory { ${scalarsOf.inventory} }`;
      if (shape.field === 'category')
        return `${aliasOf('category')}category { ${print(shape.inner, 'category', variables)} }`;
      if (shape.field === 'pet')
        return `${aliasOf('pet')}pet { ${print(shape.inner, 'pet', variables)} }`;
      if (!('first' in shape)) return '';
      const node = shape.field === 'pets' ? 'pet' : 'order';
      let first = '';
      if (shape.first.kind === 'literal') first = `(first: ${shape.first.size})`;
      if (shape.first.kind === 'variable') {
        const name = `v${Object.keys(variables).length}`;
        variables[name] = shape.first.size;
        first = `(first: $${name})`;
      }
      return `${aliasOf(shape.field)}${shape.field}${first} { totalCount edges { node { ${print(shape.inner, node, variables)} } } }`;
    })
    .join(' ');
}

describeDb('generated documents: the cost a client computes from the SDL, and what runs', () => {
  const maxCost = 400;
  const app = useTestApp({ GRAPHQL_MAX_COST: String(maxCost) });

  beforeAll(async () => {
    // Enough rows that pages fill up: 40 pets in 2 categories, 3 orders each for some.
    const categoryIds = [(await makeCategory(app())).id, (await makeCategory(app())).id];
    for (let i = 0; i < 40; i++) {
      const pet = await makePet(app(), { categoryId: categoryIds[i % 2] });
      if (i < 10) for (let j = 0; j < 3; j++) await makeOrder(app(), { petId: pet.id });
    }
  });

  it('reports the estimate a client computes from the published SDL, and never resolves more', async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(petShapes.pet, async (shapes) => {
        const variables: Record<string, number> = {};
        const selection = print(shapes, 'pet', variables);
        const definitions = Object.keys(variables).map((name) => `$${name}: Int`);
        const header = definitions.length > 0 ? `query(${definitions.join(', ')})` : 'query';
        const query = `${header} { pets(first: 10) { edges { node { ${selection} } } } }`;
        const result = await post(
          app(),
          { query, variables },
          // Pet.orders needs orders:read.
          { authorization: app().authorization },
        );
        const cost = result.body.extensions?.cost;
        if (result.status === 400) {
          const error = result.body.errors?.[0];
          expect(error?.extensions.code).toBe('QUERY_TOO_COMPLEX');
          expect(cost).not.toHaveProperty('actualQueryCost');
          // Refused by the cost rule: priced as the SDL says. By the depth or alias limit, which
          // run first: not priced at all.
          if (/costs \d+ points/.test(error?.message ?? '')) {
            expect(cost?.requestedQueryCost).toBe(sdlEstimate({ query, variables }));
            expect(cost?.requestedQueryCost).toBeGreaterThan(maxCost);
          } else {
            expect(cost?.requestedQueryCost).toBe(0);
          }
          return;
        }
        expect(cost?.requestedQueryCost).toBe(sdlEstimate({ query, variables }));
        accepted++;
        expect(result.body.errors).toBeUndefined();
        expect(cost?.actualQueryCost).toBe(sdlActual(query, result.body.data));
        expect(cost?.actualQueryCost).toBeLessThanOrEqual(cost?.requestedQueryCost ?? 0);
        // The data object itself is not a field: it weighs nothing.
        expect(countObjects(result.body.data) - 1).toBeLessThanOrEqual(cost?.actualQueryCost ?? 0);
      }),
      { numRuns: 60 },
    );
    expect(accepted).toBeGreaterThan(5);
  });
});
