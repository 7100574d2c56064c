import { beforeAll, expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { graphqlRequest } from '../helpers/graphql.js';
import { rest } from '../helpers/rest.js';

/**
 * Every id in every response, on every read and write path of both edges, is exact up to 2^63-1.
 * The rows carry ids a double cannot hold (a double turns ...993 into ...992, and anything near
 * 2^63 into 2^63), so a path that rounds answers an id that names no row.
 */

// On SQLite, new rows take the next ids: the second order placed gets 2^63 - 1, the largest.
const CATEGORY = '9223372036854775790';
const PET = '9223372036854775795';
const SMALL_PET = '9007199254740993'; // 2^53 + 1
const ORDER = '9223372036854775805';

/** Every id-like value in a response (keys id, petId, categoryId; `Location` paths), as text. */
function idsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) idsIn(item, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, field] of Object.entries(value)) {
      if (['id', 'petId', 'categoryId'].includes(key) && field !== null) found.push(String(field));
      else idsIn(field, found);
    }
  }
  return found;
}

describeDb('64-bit ids on every path', () => {
  const app = useTestApp();

  beforeAll(async () => {
    await app().sql(
      `INSERT INTO "Category" ("id", "name", "nameKey") VALUES (${CATEGORY}, 'Huge', 'huge')`,
    );
    for (const pet of [PET, SMALL_PET]) {
      await app().sql(
        `INSERT INTO "Pet" ("id", "name", "categoryId", "status") VALUES (${pet}, 'Huge', ${CATEGORY}, 'available')`,
      );
      await app().sql(`INSERT INTO "InventoryItem" ("petId", "quantity") VALUES (${pet}, 50)`);
    }
    await app().sql(
      `INSERT INTO "Order" ("id", "petId", "quantity", "complete") VALUES (${ORDER}, ${PET}, 1, false)`,
    );
  });

  /** The ids that exist now, read exactly (Prisma reads int64 columns as bigints). */
  async function existingIds(): Promise<Set<string>> {
    const { prisma } = app().database;
    const rows = [
      ...(await prisma.category.findMany({ select: { id: true } })),
      ...(await prisma.pet.findMany({ select: { id: true } })),
      ...(await prisma.order.findMany({ select: { id: true } })),
    ];
    return new Set(rows.map((row) => String(row.id)));
  }

  async function expectExactIds(label: string, body: unknown, expected: string[]) {
    const ids = idsIn(body);
    const existing = await existingIds();
    for (const id of ids) expect(existing.has(id), `${label}: ${id} names no row`).toBe(true);
    for (const id of expected) expect(ids, label).toContain(id);
  }

  const queries: [string, string, string[]][] = [
    [
      'pet with its relations',
      `{ pet(id: "${PET}") { id categoryId category { id } inventory { petId pet { id } }
         orders { edges { node { id petId pet { id } } } } } }`,
      [PET, CATEGORY, ORDER],
    ],
    ['pets', `{ pets(categoryId: "${CATEGORY}") { edges { node { id categoryId } } } }`, [PET]],
    [
      'Category.pets (a windowed page per category)',
      `{ category(id: "${CATEGORY}") { id pets { edges { node { id categoryId } } } } }`,
      [CATEGORY, PET, SMALL_PET],
    ],
    [
      'Category.pets filtered by status',
      `{ categories { id pets(status: available) { edges { node { id } } } } }`,
      [CATEGORY, PET, SMALL_PET],
    ],
    ['order', `{ order(id: "${ORDER}") { id petId pet { id categoryId } } }`, [ORDER, PET]],
    ['orders', `{ orders(petId: "${PET}") { edges { node { id petId } } } }`, [ORDER, PET]],
    [
      'Pet.orders (a windowed page per pet)',
      `{ pets(categoryId: "${CATEGORY}") { edges { node { orders { edges { node { id petId } } } } } } }`,
      [ORDER, PET],
    ],
    ['inventory', `{ inventory(petId: "${PET}") { petId pet { id } } }`, [PET]],
    ['inventories', '{ inventories(first: 100) { edges { node { petId } } } }', [PET, SMALL_PET]],
  ];

  it.each(queries)('GraphQL %s', async (label, query, expected) => {
    const response = await app().fetch(
      graphqlRequest({ query }, { authorization: app().authorization }),
    );
    const body = (await response.json()) as { data: unknown; errors?: unknown };
    expect(body.errors, label).toBeUndefined();
    await expectExactIds(label, body.data, expected);
  });

  it('GraphQL writes answer exact ids', async () => {
    const writes = [
      `mutation { createCategory(input: { name: "Huge two" }) { id } }`,
      `mutation { createPet(input: { name: "New", categoryId: "${CATEGORY}" }) { id categoryId } }`,
      `mutation { updatePet(id: "${PET}", input: { name: "Renamed", categoryId: "${CATEGORY}" }) { id categoryId } }`,
      `mutation { placeOrder(input: { petId: "${PET}", quantity: 1 }) { id petId pet { id } } }`,
      `mutation { updateOrder(id: "${ORDER}", input: { shipDate: "2027-01-01T00:00:00Z" }) { id petId } }`,
      `mutation { updateInventory(petId: "${SMALL_PET}", input: { quantity: 7 }) { petId pet { id } } }`,
    ];
    for (const query of writes) {
      const response = await app().fetch(
        graphqlRequest({ query }, { authorization: app().authorization }),
      );
      const body = (await response.json()) as { data: unknown; errors?: unknown };
      expect(body.errors, query).toBeUndefined();
      await expectExactIds(query, body.data, []);
    }
  });

  const reads: [string, string[]][] = [
    [`/pets?categoryId=${CATEGORY}`, [PET, SMALL_PET, CATEGORY]],
    [`/pets/${PET}`, [PET, CATEGORY]],
    ['/categories', [CATEGORY]],
    [`/categories/${CATEGORY}`, [CATEGORY]],
    [`/store/orders?petId=${PET}`, [ORDER, PET]],
    [`/store/orders/${ORDER}`, [ORDER, PET]],
    ['/store/inventory?limit=100', [PET, SMALL_PET]],
    [`/store/inventory/${PET}`, [PET]],
  ];

  it.each(reads)('REST GET %s', async (path, expected) => {
    const response = await rest(app(), 'GET', path);
    expect(response.status, path).toBe(200);
    await expectExactIds(path, response.body, expected);
  });

  it('REST writes answer exact ids and Locations', async () => {
    const writes: [string, string, unknown][] = [
      ['POST', '/categories', { name: 'Huge three' }],
      ['POST', '/pets', { name: 'Newer', categoryId: BigInt(CATEGORY) }],
      ['PUT', `/pets/${PET}`, { name: 'Again', categoryId: BigInt(CATEGORY) }],
      ['POST', '/store/orders', { petId: BigInt(PET), quantity: 1 }],
      ['PATCH', `/store/orders/${ORDER}`, { complete: true }],
      ['PUT', `/store/inventory/${SMALL_PET}`, { quantity: 9 }],
    ];
    for (const [method, path, json] of writes) {
      const response = await rest(app(), method, path, { json });
      expect(response.status, `${method} ${path}`).toBeLessThan(300);
      await expectExactIds(`${method} ${path}`, response.body, []);
      const location = response.headers.get('location');
      if (location) {
        const id = location.split('/').pop() as string;
        expect((await existingIds()).has(id), `Location ${location}`).toBe(true);
        expect(idsIn(response.body)).toContain(id);
      }
    }
  });
});
