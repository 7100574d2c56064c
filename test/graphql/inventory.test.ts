import { expect, it } from 'vitest';
import { graphql as gql } from '../generated/index.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makePet, stockOf } from '../helpers/factories.js';
import { errorCodes, graphql } from '../helpers/graphql.js';

const Inventory = gql(`
  query Inventory($petId: ID!) { inventory(petId: $petId) { petId quantity status pet { id name } } }
`);

const Inventories = gql(`
  query Inventories($first: Int, $after: String) {
    inventories(first: $first, after: $after) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { node { petId quantity status } }
    }
  }
`);

const UpdateInventory = gql(`
  mutation UpdateInventory($petId: ID!, $quantity: Int!) {
    updateInventory(petId: $petId, input: { quantity: $quantity }) { petId quantity status }
  }
`);

describeDb('inventory over GraphQL', () => {
  const app = useTestApp();

  it('reads a pet inventory item with the pet status', async () => {
    const pet = await makePet(app(), { name: 'Kiwi', quantity: 7, status: 'pending' });
    const response = await graphql(app(), Inventory, { petId: String(pet.id) });
    expect(response.data?.inventory).toEqual({
      petId: String(pet.id),
      quantity: 7,
      status: 'pending',
      pet: { id: String(pet.id), name: 'Kiwi' },
    });
    const unknown = await graphql(app(), Inventory, { petId: '99999999' });
    expect(unknown.data).toEqual({ inventory: null });
  });

  it('lists inventory as a connection ordered by pet id', async () => {
    await makePet(app(), { quantity: 1 });
    await makePet(app(), { quantity: 2 });
    const response = await graphql(app(), Inventories, { first: 1 });
    const inventories = response.data?.inventories;
    expect(inventories?.edges).toHaveLength(1);
    expect(inventories?.totalCount).toBeGreaterThanOrEqual(2);
    expect(inventories?.pageInfo.hasNextPage).toBe(true);
    const next = await graphql(app(), Inventories, {
      first: 1,
      after: inventories?.pageInfo.endCursor ?? null,
    });
    const [a, b] = [inventories?.edges[0]?.node.petId, next.data?.inventories.edges[0]?.node.petId];
    expect(BigInt(b ?? 0)).toBeGreaterThan(BigInt(a ?? 0));
  });

  it('sets the stock; above 0 a sold pet becomes available', async () => {
    const pet = await makePet(app(), { status: 'sold', quantity: 0 });
    const response = await graphql(app(), UpdateInventory, { petId: String(pet.id), quantity: 5 });
    expect(response.data?.updateInventory).toEqual({
      petId: String(pet.id),
      quantity: 5,
      status: 'available',
    });
  });

  it('setting the stock to 0 changes no status, and a pending pet stays pending', async () => {
    const available = await makePet(app(), { quantity: 3 });
    await graphql(app(), UpdateInventory, { petId: String(available.id), quantity: 0 });
    expect(await stockOf(app(), available.id)).toEqual({ quantity: 0, status: 'available' });

    const pending = await makePet(app(), { status: 'pending' });
    await graphql(app(), UpdateInventory, { petId: String(pending.id), quantity: 9 });
    expect(await stockOf(app(), pending.id)).toEqual({ quantity: 9, status: 'pending' });
  });

  it('rejects an unknown pet and out-of-range stock', async () => {
    const unknown = await graphql(app(), UpdateInventory, { petId: '99999999', quantity: 1 });
    expect(errorCodes(unknown)).toEqual(['PET_NOT_FOUND']);
    expect(unknown.errors?.[0]?.extensions.status).toBe(404);

    const pet = await makePet(app());
    for (const quantity of [-1, 1_000_001]) {
      const response = await graphql(app(), UpdateInventory, { petId: String(pet.id), quantity });
      expect(errorCodes(response)).toEqual(['VALIDATION_FAILED']);
      expect(response.errors?.[0]?.message).toMatch(/quantity/);
    }
    expect((await stockOf(app(), pet.id)).quantity).toBe(0);
  });
});
