import { expect, it } from 'vitest';
import { type Change, createMemoryChangeFeed } from '../../src/domain/changes.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeCategory, makePet } from '../helpers/factories.js';
import { graphqlRequest } from '../helpers/graphql.js';
import { rest } from '../helpers/rest.js';

const feed = createMemoryChangeFeed();
const heard: Change[] = [];
feed.subscribe((changes) => {
  heard.push(...changes);
});

describeDb('committed writes are reported, whichever edge made them', () => {
  const app = useTestApp({}, { changes: feed });

  it('reports a REST order and a GraphQL restock, and nothing for a refused order', async () => {
    const category = await makeCategory(app());
    const pet = await makePet(app(), { categoryId: category.id, quantity: 1 });
    heard.length = 0;

    const placed = await rest(app(), 'POST', '/store/orders', {
      json: { petId: Number(pet.id), quantity: 1 },
    });
    expect(placed.status).toBe(201);
    const orderId = BigInt((placed.body as { id: number }).id);
    expect(heard).toEqual([
      { entity: 'order', kind: 'created', id: orderId, petId: pet.id },
      { entity: 'inventory', kind: 'updated', petId: pet.id },
      { entity: 'pet', kind: 'updated', id: pet.id },
    ]);

    heard.length = 0;
    // Sold out: refused, rolled back, unreported.
    const refused = await rest(app(), 'POST', '/store/orders', {
      json: { petId: Number(pet.id), quantity: 1 },
    });
    expect(refused.status).toBe(409);
    expect(heard).toEqual([]);

    const restock = await app().fetch(
      graphqlRequest(
        {
          query: `mutation { updateInventory(petId: "${pet.id}", input: { quantity: 3 }) { quantity } }`,
        },
        { authorization: app().authorization },
      ),
    );
    expect(restock.status).toBe(200);
    expect(heard).toEqual([
      { entity: 'inventory', kind: 'updated', petId: pet.id },
      { entity: 'pet', kind: 'updated', id: pet.id },
    ]);
  });
});
