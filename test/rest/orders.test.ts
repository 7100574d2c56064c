import { expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeOrder, makePet, stockOf } from '../helpers/factories.js';
import { expectError, rest } from '../helpers/rest.js';

describeDb('REST orders', () => {
  const app = useTestApp();

  it('places an order: 201, Location, stock taken; id and complete are ignored', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    const response = await rest<{ id: number }>(app(), 'POST', '/store/orders', {
      json: {
        id: 1,
        petId: Number(pet.id),
        quantity: 2,
        shipDate: '2026-12-01T10:00:00+02:00',
        complete: true,
      },
    });
    expect(response.status).toBe(201);
    const { id } = response.body;
    expect(response.headers.get('location')).toBe(`/api/store/orders/${id}`);
    expect(response.body).toEqual({
      id,
      petId: Number(pet.id),
      quantity: 2,
      shipDate: '2026-12-01T08:00:00.000Z',
      complete: false,
    });
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 3, status: 'available' });
    expect((await rest(app(), 'GET', `/store/orders/${id}`)).body).toEqual(response.body);
  });

  it('omits a missing shipDate', async () => {
    const pet = await makePet(app(), { quantity: 1 });
    const response = await rest<{ id: number }>(app(), 'POST', '/store/orders', {
      json: { petId: Number(pet.id), quantity: 1 },
    });
    expect(response.body).toEqual({
      id: response.body.id,
      petId: Number(pet.id),
      quantity: 1,
      complete: false,
    });
    expect(response.text).not.toContain('shipDate');
  });

  it('turns the pet sold when the order takes the last unit', async () => {
    const pet = await makePet(app(), { quantity: 2 });
    await rest(app(), 'POST', '/store/orders', { json: { petId: Number(pet.id), quantity: 2 } });
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 0, status: 'sold' });
    const stock = await rest(app(), 'GET', `/store/inventory/${pet.id}`);
    expect(stock.body).toEqual({ petId: Number(pet.id), quantity: 0, status: 'sold' });
  });

  it('refuses an order beyond stock (409), for a pet not available (409), for no pet (422)', async () => {
    const pet = await makePet(app(), { quantity: 1 });
    expectError(
      await rest(app(), 'POST', '/store/orders', { json: { petId: Number(pet.id), quantity: 2 } }),
      409,
      'INSUFFICIENT_STOCK',
      `Pet ${pet.id} has fewer than 2 units in stock`,
    );
    const pending = await makePet(app(), { quantity: 5, status: 'pending' });
    expectError(
      await rest(app(), 'POST', '/store/orders', {
        json: { petId: Number(pending.id), quantity: 1 },
      }),
      409,
      'PET_NOT_AVAILABLE',
      `Pet ${pending.id} is pending, not available`,
    );
    expectError(
      await rest(app(), 'POST', '/store/orders', { json: { petId: 999999999, quantity: 1 } }),
      422,
      'UNKNOWN_PET',
      'petId 999999999 names no existing pet',
    );
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 1, status: 'available' });
  });

  it.each([
    [{ quantity: 1 }, 'petId is required'],
    [{ petId: 1 }, 'quantity is required'],
    [{ petId: 1, quantity: 0 }, 'quantity must be an integer from 1 to 10000'],
    [{ petId: 1, quantity: 10001 }, 'quantity must be an integer from 1 to 10000'],
    [{ petId: 1, quantity: 1.5 }, 'quantity must be an integer from 1 to 10000'],
    [
      { petId: 1, quantity: 123456789012345678901234567890n },
      'quantity must be an integer from 1 to 10000',
    ],
    [{ petId: 1, quantity: '2' }, 'quantity must be an integer'],
    [{ petId: 'one', quantity: 1 }, 'petId must be an integer'],
    [{ petId: 1, quantity: 1, shipDate: 'tomorrow' }, /^shipDate must be an RFC 3339 date-time/],
    [{ petId: 1, quantity: 1, shipDate: '2026-12-01T10:00:00' }, /^shipDate must be an RFC 3339/],
    [{ petId: 1, quantity: 1, shipDate: 1700000000 }, 'shipDate must be a string'],
    [
      { petId: 1, quantity: 1, status: 'placed' },
      'Unknown property "status"; allowed: petId, quantity, shipDate',
    ],
  ])('rejects the body %o with VALIDATION_FAILED', async (json, message) => {
    expectError(
      await rest(app(), 'POST', '/store/orders', { json }),
      400,
      'VALIDATION_FAILED',
      message,
    );
  });

  it('lists orders by pet and completeness, paged, with X-Total-Count', async () => {
    const pet = await makePet(app(), { quantity: 10 });
    const orders: Awaited<ReturnType<typeof makeOrder>>[] = [];
    for (const complete of [false, true, false, false]) {
      orders.push(await makeOrder(app(), { petId: pet.id, complete }));
    }
    const body = (index: number) => {
      const order = orders[index];
      if (!order) throw new Error('no such order');
      return { id: Number(order.id), petId: Number(pet.id), quantity: 1, complete: order.complete };
    };
    const all = await rest(app(), 'GET', `/store/orders?petId=${pet.id}`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual([body(0), body(1), body(2), body(3)]);
    expect(all.headers.get('x-total-count')).toBe('4');

    const open = await rest(
      app(),
      'GET',
      `/store/orders?petId=${pet.id}&complete=false&limit=2&offset=1`,
    );
    expect(open.body).toEqual([body(2), body(3)]);
    expect(open.headers.get('x-total-count')).toBe('3');

    const done = await rest(app(), 'GET', `/store/orders?petId=${pet.id}&complete=true`);
    expect(done.body).toEqual([body(1)]);
  });

  it.each([
    ['complete=yes', 'complete must be true or false'],
    ['complete=1', 'complete must be true or false'],
    ['petId=-1', /^petId must be an integer id/],
    ['petId=1&petId=2', 'Query parameter petId must be given at most once'],
    ['limit=500', 'limit must be an integer from 1 to 100'],
    ['offset=-3', 'offset must be 0 or more'],
  ])('rejects the query %s with VALIDATION_FAILED', async (query, message) => {
    expectError(
      await rest(app(), 'GET', `/store/orders?${query}`),
      400,
      'VALIDATION_FAILED',
      message,
    );
  });

  it('reads an order; 404 ORDER_NOT_FOUND when unknown, 400 for a bad id', async () => {
    const pet = await makePet(app(), { quantity: 1 });
    const order = await makeOrder(app(), {
      petId: pet.id,
      shipDate: new Date('2027-01-02T03:04:05Z'),
    });
    expect((await rest(app(), 'GET', `/store/orders/${order.id}`)).body).toEqual({
      id: Number(order.id),
      petId: Number(pet.id),
      quantity: 1,
      shipDate: '2027-01-02T03:04:05.000Z',
      complete: false,
    });
    expectError(
      await rest(app(), 'GET', '/store/orders/55555555'),
      404,
      'ORDER_NOT_FOUND',
      'Order 55555555 does not exist',
    );
    expectError(
      await rest(app(), 'GET', '/store/orders/1x'),
      400,
      'VALIDATION_FAILED',
      'orderId must be an integer id between 1 and 9223372036854775807',
    );
  });

  it('updates the ship date, clears it with null, and completes an order', async () => {
    const pet = await makePet(app(), { quantity: 1 });
    const order = await makeOrder(app(), { petId: pet.id });
    const base = { id: Number(order.id), petId: Number(pet.id), quantity: 1 };
    const dated = await rest(app(), 'PATCH', `/store/orders/${order.id}`, {
      json: { shipDate: '2027-03-04T05:06:07Z' },
    });
    expect(dated.status).toBe(200);
    expect(dated.body).toEqual({ ...base, shipDate: '2027-03-04T05:06:07.000Z', complete: false });

    const cleared = await rest(app(), 'PATCH', `/store/orders/${order.id}`, {
      json: { shipDate: null },
    });
    expect(cleared.body).toEqual({ ...base, complete: false });

    const unchanged = await rest(app(), 'PATCH', `/store/orders/${order.id}`, { json: {} });
    expect(unchanged.body).toEqual({ ...base, complete: false });

    const done = await rest(app(), 'PATCH', `/store/orders/${order.id}`, {
      json: { complete: true },
    });
    expect(done.body).toEqual({ ...base, complete: true });
  });

  it('keeps a complete order final: 409 ORDER_ALREADY_COMPLETE', async () => {
    const pet = await makePet(app(), { quantity: 1 });
    const order = await makeOrder(app(), { petId: pet.id, complete: true });
    expectError(
      await rest(app(), 'PATCH', `/store/orders/${order.id}`, { json: { complete: false } }),
      409,
      'ORDER_ALREADY_COMPLETE',
      `Order ${order.id} is complete and cannot be changed`,
    );
    expectError(
      await rest(app(), 'PATCH', `/store/orders/${order.id}`, {
        json: { shipDate: '2027-01-01T00:00:00Z' },
      }),
      409,
      'ORDER_ALREADY_COMPLETE',
    );
    expectError(
      await rest(app(), 'DELETE', `/store/orders/${order.id}`),
      409,
      'ORDER_ALREADY_COMPLETE',
      `Order ${order.id} is complete and cannot be cancelled`,
    );
  });

  it.each([
    [{ complete: 'yes' }, 'complete must be true or false'],
    [{ complete: null }, 'complete must be true or false'],
    [{ shipDate: 5 }, 'shipDate must be a string'],
    [{ shipDate: '2027-13-01T00:00:00Z' }, /^shipDate must be an RFC 3339/],
    [{ quantity: 3 }, 'Unknown property "quantity"; allowed: shipDate, complete'],
  ])('rejects the update %o with VALIDATION_FAILED', async (json, message) => {
    const pet = await makePet(app(), { quantity: 1 });
    const order = await makeOrder(app(), { petId: pet.id });
    expectError(
      await rest(app(), 'PATCH', `/store/orders/${order.id}`, { json }),
      400,
      'VALIDATION_FAILED',
      message,
    );
  });

  it('fails to update an unknown order with 404', async () => {
    expectError(
      await rest(app(), 'PATCH', '/store/orders/4444444', { json: { complete: true } }),
      404,
      'ORDER_NOT_FOUND',
    );
  });

  it('cancels an order with 204: stock returns, a sold pet is available again', async () => {
    const pet = await makePet(app(), { quantity: 2 });
    const placed = await rest<{ id: number }>(app(), 'POST', '/store/orders', {
      json: { petId: Number(pet.id), quantity: 2 },
    });
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 0, status: 'sold' });
    const response = await rest(app(), 'DELETE', `/store/orders/${placed.body.id}`);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 2, status: 'available' });
    expectError(
      await rest(app(), 'DELETE', `/store/orders/${placed.body.id}`),
      404,
      'ORDER_NOT_FOUND',
    );
    expectError(await rest(app(), 'DELETE', '/store/orders/abc'), 400, 'VALIDATION_FAILED');
  });
});
