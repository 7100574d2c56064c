import { beforeAll, expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import type { Client } from '../helpers/client.js';
import { makeCategory, makeOrder, makePet } from '../helpers/factories.js';
import { anonymous, graphqlRequest, withAuthorization } from '../helpers/graphql.js';

interface Result {
  data?: Record<string, unknown> | null;
  errors?: { path?: unknown[]; extensions: { code: string } }[];
}

async function post(app: Client, query: string, variables: Record<string, unknown> = {}) {
  const response = await app.fetch(
    graphqlRequest(
      { query, variables },
      app.authorization ? { authorization: app.authorization } : {},
    ),
  );
  return (await response.json()) as Result;
}

describeDb('reads through per-request loaders', () => {
  const app = useTestApp();
  const categoryIds: bigint[] = [];
  const petIds: bigint[] = [];

  /** Runs a query and returns its body and the SQL statements it cost. */
  async function measured(query: string, variables: Record<string, unknown> = {}) {
    const before = app().database.statementCount();
    const body = await post(app(), query, variables);
    expect(body.errors).toBeUndefined();
    return { body, statements: app().database.statementCount() - before };
  }

  beforeAll(async () => {
    // 3 categories; 120 pets spread over them; 2 orders on each of the first 100 pets.
    for (let i = 0; i < 3; i++) categoryIds.push((await makeCategory(app())).id);
    for (let i = 0; i < 120; i++) {
      const pet = await makePet(app(), { categoryId: categoryIds[i % 3], quantity: i });
      petIds.push(pet.id);
      if (i < 100) {
        await makeOrder(app(), { petId: pet.id, quantity: 1 });
        await makeOrder(app(), { petId: pet.id, quantity: 2 });
      }
    }
  });

  it('reads 20 aliased pets by id in one statement', async () => {
    const fields = petIds.slice(0, 20).map((id, i) => `p${i}: pet(id: "${id}") { id name }`);
    const { body, statements } = await measured(`{ ${fields.join(' ')} }`);
    expect(statements).toBe(1);
    expect(body.data?.p19).toEqual({ id: String(petIds[19]), name: expect.any(String) });
  });

  it('reads a 100-pet page with category and inventory in 3 statements', async () => {
    const { body, statements } = await measured(`{ pets(first: 100) {
      edges { node { id name status category { name } inventory { quantity status } } }
      pageInfo { hasNextPage endCursor } } }`);
    expect(statements).toBeLessThanOrEqual(3);
    const edges = (
      (body.data as Record<string, unknown>).pets as {
        edges: { node: { inventory: { quantity: number } } }[];
      }
    ).edges;
    expect(edges).toHaveLength(100);
    expect(edges[7]?.node.inventory.quantity).toBe(7);
  });

  it('reads 100 orders with their pet, category and inventory in at most 4 statements', async () => {
    const { body, statements } = await measured(`{ orders(first: 100) { edges { node {
      quantity pet { name category { name } inventory { quantity } } } } } }`);
    expect(statements).toBeLessThanOrEqual(4);
    expect(
      ((body.data as Record<string, unknown>).orders as { edges: unknown[] }).edges,
    ).toHaveLength(100);
  });

  it('pages nested connections per parent in one statement a level, flat as parents grow', async () => {
    const query = `query($first: Int) { pets(first: $first) { edges { node {
      orders(first: 1) { totalCount edges { node { quantity } } pageInfo { hasNextPage } } } } } }`;
    const few = await measured(query, { first: 5 });
    const many = await measured(query, { first: 100 });
    expect(many.statements).toBe(few.statements);
    expect(many.statements).toBeLessThanOrEqual(3);
    const node = (
      (many.body.data as Record<string, unknown>).pets as { edges: { node: unknown }[] }
    ).edges[99]?.node;
    expect(node).toEqual({
      orders: {
        totalCount: 2,
        edges: [{ node: { quantity: 1 } }],
        pageInfo: { hasNextPage: true },
      },
    });
  });

  it("gives every category its own page of pets, after the cursor, with each one's count", async () => {
    const { body, statements } = await measured(`{ categories { id
      pets(first: 2, status: available) { totalCount edges { cursor node { id categoryId } } } } }`);
    // Categories, their pages of pets, their counts; and the count of categories that the cost
    // limit reads (the list has no pages, so its real size is what it costs).
    expect(statements).toBe(4);
    const categories = body.data?.categories as {
      id: string;
      pets: { totalCount: number; edges: { node: { id: string; categoryId: string } }[] };
    }[];
    for (const [index, categoryId] of categoryIds.entries()) {
      const category = categories.find((c) => c.id === String(categoryId));
      expect(category?.pets.totalCount).toBe(40);
      // Pets were made round-robin: category `index` holds pets index, index + 3, ...
      expect(category?.pets.edges.map((edge) => edge.node.id)).toEqual([
        String(petIds[index]),
        String(petIds[index + 3]),
      ]);
    }
  });

  it('keeps orders from a caller without orders:read while another caller sees them', async () => {
    const query = `{ pet(id: "${petIds[0]}") { name orders { totalCount } } }`;
    const [hidden, shown] = await Promise.all([
      post(anonymous(app()), query),
      post(withAuthorization(app(), `Bearer ${await app().token(['orders:read'])}`), query),
    ]);
    expect(hidden.data?.pet).toEqual({ name: expect.any(String), orders: null });
    expect(hidden.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
    expect(shown.errors).toBeUndefined();
    expect(shown.data?.pet).toMatchObject({ orders: { totalCount: 2 } });
  });

  it('reads what an earlier mutation of the same document wrote', async () => {
    const pet = await makePet(app(), { categoryId: categoryIds[0], quantity: 1 });
    const body = await post(
      app(),
      `mutation { order: placeOrder(input: { petId: "${pet.id}", quantity: 1 }) { pet { status } }
        restock: updateInventory(petId: "${pet.id}", input: { quantity: 5 }) { status pet { status } } }`,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data).toEqual({
      order: { pet: { status: 'sold' } },
      restock: { status: 'available', pet: { status: 'available' } },
    });
  });

  it('coalesces the by-id reads of concurrent requests, and caches nothing between requests', async () => {
    const ids = petIds.slice(20, 30);
    const before = app().database.statementCount();
    const bodies = await Promise.all(
      ids.map((id) => post(anonymous(app()), `{ pet(id: "${id}") { id category { id } } }`)),
    );
    expect(
      bodies.map((body) => ((body.data as Record<string, unknown>).pet as { id: string }).id),
    ).toEqual(ids.map(String));
    // Ten requests, far fewer statements than the 20 they would cost one by one.
    expect(app().database.statementCount() - before).toBeLessThan(10);

    const renamed = await post(
      app(),
      `mutation { updatePet(id: "${ids[0]}", input: { name: "Renamed", categoryId: "${categoryIds[0]}" }) { name } }`,
    );
    expect(renamed.errors).toBeUndefined();
    const read = await post(anonymous(app()), `{ pet(id: "${ids[0]}") { name } }`);
    expect(read.data?.pet).toEqual({ name: 'Renamed' });
  });
});
