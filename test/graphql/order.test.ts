import { expect, it } from 'vitest';
import { graphql as gql } from '../generated/index.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeOrder, makePet, stockOf } from '../helpers/factories.js';
import { errorCodes, graphql } from '../helpers/graphql.js';

const PlaceOrder = gql(`
  mutation PlaceOrder($input: NewOrder!) {
    placeOrder(input: $input) { id petId quantity shipDate complete pet { status } }
  }
`);

const UpdateOrder = gql(`
  mutation UpdateOrder($id: ID!, $input: OrderUpdate!) {
    updateOrder(id: $id, input: $input) { id shipDate complete }
  }
`);

const CancelOrder = gql(`mutation CancelOrder($id: ID!) { cancelOrder(id: $id) }`);

const OrderById = gql(
  `query OrderById($id: ID!) { order(id: $id) { id petId quantity shipDate complete } }`,
);

const Orders = gql(`
  query Orders($petId: ID, $complete: Boolean, $first: Int) {
    orders(petId: $petId, complete: $complete, first: $first) {
      totalCount
      edges { node { id petId complete } }
    }
  }
`);

const PetOrders = gql(`
  query PetOrders($id: ID!, $first: Int, $after: String) {
    pet(id: $id) {
      orders(first: $first, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        edges { node { id quantity } }
      }
    }
  }
`);

describeDb('orders over GraphQL', () => {
  const app = useTestApp();

  it('places an order: stock goes down, shipDate round-trips, complete defaults to false', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    const response = await graphql(app(), PlaceOrder, {
      input: { petId: String(pet.id), quantity: 2, shipDate: '2026-12-24T10:00:00+02:00' },
    });
    expect(response.errors).toBeUndefined();
    expect(response.data?.placeOrder).toMatchObject({
      petId: String(pet.id),
      quantity: 2,
      shipDate: '2026-12-24T08:00:00.000Z',
      complete: false,
      pet: { status: 'available' },
    });
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 3, status: 'available' });
  });

  it('turns the pet sold when an order takes the last unit', async () => {
    const pet = await makePet(app(), { quantity: 2 });
    const response = await graphql(app(), PlaceOrder, {
      input: { petId: String(pet.id), quantity: 2 },
    });
    expect(response.data?.placeOrder.pet.status).toBe('sold');
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 0, status: 'sold' });
  });

  it('refuses orders the rules forbid, leaving stock untouched', async () => {
    const pending = await makePet(app(), { status: 'pending', quantity: 0 });
    const notAvailable = await graphql(app(), PlaceOrder, {
      input: { petId: String(pending.id), quantity: 1 },
    });
    // Status is checked before stock.
    expect(errorCodes(notAvailable)).toEqual(['PET_NOT_AVAILABLE']);
    expect(notAvailable.errors?.[0]?.extensions.status).toBe(409);

    const pet = await makePet(app(), { quantity: 1 });
    const insufficient = await graphql(app(), PlaceOrder, {
      input: { petId: String(pet.id), quantity: 2 },
    });
    expect(errorCodes(insufficient)).toEqual(['INSUFFICIENT_STOCK']);
    expect(insufficient.errors?.[0]?.extensions.status).toBe(409);
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 1, status: 'available' });

    const unknown = await graphql(app(), PlaceOrder, { input: { petId: '99999999', quantity: 1 } });
    expect(errorCodes(unknown)).toEqual(['UNKNOWN_PET']);
    expect(unknown.errors?.[0]?.extensions.status).toBe(422);
  });

  it('validates quantity and shipDate', async () => {
    const pet = await makePet(app(), { quantity: 50 });
    for (const quantity of [0, 10_001]) {
      const response = await graphql(app(), PlaceOrder, {
        input: { petId: String(pet.id), quantity },
      });
      expect(errorCodes(response)).toEqual(['VALIDATION_FAILED']);
    }
    const badDate = await graphql(app(), PlaceOrder, {
      input: { petId: String(pet.id), quantity: 1, shipDate: 'next tuesday' },
    });
    expect(badDate.status).toBe(400);
    expect(errorCodes(badDate)).toEqual(['VALIDATION_FAILED']);
    expect(badDate.errors?.[0]?.extensions.status).toBe(400);
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 50, status: 'available' });
  });

  it('reads orders by id, by pet and by completion', async () => {
    const pet = await makePet(app());
    const open = await makeOrder(app(), { petId: pet.id, quantity: 3 });
    const done = await makeOrder(app(), { petId: pet.id, complete: true });
    const byId = await graphql(app(), OrderById, { id: String(open.id) });
    expect(byId.data?.order).toEqual({
      id: String(open.id),
      petId: String(pet.id),
      quantity: 3,
      shipDate: null,
      complete: false,
    });
    expect((await graphql(app(), OrderById, { id: '99999999' })).data).toEqual({ order: null });

    const completed = await graphql(app(), Orders, { petId: String(pet.id), complete: true });
    expect(completed.data?.orders).toEqual({
      totalCount: 1,
      edges: [{ node: { id: String(done.id), petId: String(pet.id), complete: true } }],
    });
    const all = await graphql(app(), Orders, { petId: String(pet.id) });
    expect(all.data?.orders?.totalCount).toBe(2);
  });

  it('pages through a pet orders', async () => {
    const pet = await makePet(app());
    for (let i = 1; i <= 3; i++) await makeOrder(app(), { petId: pet.id, quantity: i });
    const page = await graphql(app(), PetOrders, { id: String(pet.id), first: 2 });
    const orders = page.data?.pet?.orders;
    expect(orders?.totalCount).toBe(3);
    expect(orders?.edges.map((edge) => edge.node.quantity)).toEqual([1, 2]);
    const rest = await graphql(app(), PetOrders, {
      id: String(pet.id),
      first: 2,
      after: orders?.pageInfo.endCursor ?? null,
    });
    expect(rest.data?.pet?.orders?.edges.map((edge) => edge.node.quantity)).toEqual([3]);
    expect(rest.data?.pet?.orders?.pageInfo.hasNextPage).toBe(false);
  });

  it('completes an order, and a complete order is final', async () => {
    const pet = await makePet(app());
    const order = await makeOrder(app(), { petId: pet.id });
    const id = String(order.id);
    const shipped = await graphql(app(), UpdateOrder, {
      id,
      input: { shipDate: '2027-01-05T09:30:00Z' },
    });
    expect(shipped.data?.updateOrder).toEqual({
      id,
      shipDate: '2027-01-05T09:30:00.000Z',
      complete: false,
    });
    const completed = await graphql(app(), UpdateOrder, { id, input: { complete: true } });
    expect(completed.data?.updateOrder.complete).toBe(true);

    const same = await graphql(app(), UpdateOrder, { id, input: { complete: true } });
    expect(same.errors).toBeUndefined();
    for (const input of [{ complete: false }, { shipDate: '2027-02-01T00:00:00Z' }]) {
      const response = await graphql(app(), UpdateOrder, { id, input });
      expect(errorCodes(response)).toEqual(['ORDER_ALREADY_COMPLETE']);
      expect(response.errors?.[0]?.extensions.status).toBe(409);
    }
    const unknown = await graphql(app(), UpdateOrder, {
      id: '99999999',
      input: { complete: true },
    });
    expect(errorCodes(unknown)).toEqual(['ORDER_NOT_FOUND']);
  });

  it('cancelling returns the units and makes a sold pet available again', async () => {
    const pet = await makePet(app(), { quantity: 1 });
    const placed = await graphql(app(), PlaceOrder, {
      input: { petId: String(pet.id), quantity: 1 },
    });
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 0, status: 'sold' });
    const id = placed.data?.placeOrder.id ?? '';
    const cancelled = await graphql(app(), CancelOrder, { id });
    expect(cancelled.data).toEqual({ cancelOrder: id });
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 1, status: 'available' });
    expect((await graphql(app(), OrderById, { id })).data).toEqual({ order: null });
  });

  it('cancelling keeps a pending pet pending, and refuses complete or unknown orders', async () => {
    const pending = await makePet(app(), { status: 'pending', quantity: 2 });
    const open = await makeOrder(app(), { petId: pending.id, quantity: 3 });
    await graphql(app(), CancelOrder, { id: String(open.id) });
    expect(await stockOf(app(), pending.id)).toEqual({ quantity: 5, status: 'pending' });

    const done = await makeOrder(app(), { petId: pending.id, complete: true });
    const refused = await graphql(app(), CancelOrder, { id: String(done.id) });
    expect(errorCodes(refused)).toEqual(['ORDER_ALREADY_COMPLETE']);
    expect(await stockOf(app(), pending.id)).toEqual({ quantity: 5, status: 'pending' });

    const unknown = await graphql(app(), CancelOrder, { id: '99999999' });
    expect(errorCodes(unknown)).toEqual(['ORDER_NOT_FOUND']);
    expect(unknown.errors?.[0]?.extensions.status).toBe(404);
  });
});
