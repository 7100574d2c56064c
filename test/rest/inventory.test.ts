import { expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makePet, stockOf } from '../helpers/factories.js';
import { expectError, rest } from '../helpers/rest.js';

describeDb('REST inventory', () => {
  const app = useTestApp();

  it('lists the stock of every pet by pet id, paged, with X-Total-Count', async () => {
    const pets = [];
    for (const [quantity, status] of [
      [4, 'available'],
      [0, 'sold'],
      [7, 'pending'],
    ] as const) {
      pets.push(await makePet(app(), { quantity, status }));
    }
    const total = await app().database.prisma.inventoryItem.count();
    const all = await rest<{ petId: number }[]>(app(), 'GET', '/store/inventory?limit=100');
    expect(all.status).toBe(200);
    expect(all.headers.get('x-total-count')).toBe(String(total));
    const ids = all.body.map((item) => item.petId);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(all.body.slice(-3)).toEqual([
      { petId: Number(pets[0]?.id), quantity: 4, status: 'available' },
      { petId: Number(pets[1]?.id), quantity: 0, status: 'sold' },
      { petId: Number(pets[2]?.id), quantity: 7, status: 'pending' },
    ]);

    const page = await rest(app(), 'GET', `/store/inventory?limit=1&offset=${total - 2}`);
    expect(page.body).toEqual([{ petId: Number(pets[1]?.id), quantity: 0, status: 'sold' }]);
    expect(page.headers.get('x-total-count')).toBe(String(total));
  });

  it('rejects bad paging with VALIDATION_FAILED', async () => {
    expectError(
      await rest(app(), 'GET', '/store/inventory?limit=0'),
      400,
      'VALIDATION_FAILED',
      'limit must be an integer from 1 to 100',
    );
    expectError(
      await rest(app(), 'GET', '/store/inventory?offset=1e3'),
      400,
      'VALIDATION_FAILED',
      'offset must be a whole number written in digits, not "1e3"',
    );
  });

  it("reads a pet's stock; 404 PET_NOT_FOUND when unknown, 400 for a bad id", async () => {
    const pet = await makePet(app(), { quantity: 9 });
    expect((await rest(app(), 'GET', `/store/inventory/${pet.id}`)).body).toEqual({
      petId: Number(pet.id),
      quantity: 9,
      status: 'available',
    });
    expectError(
      await rest(app(), 'GET', '/store/inventory/8888888'),
      404,
      'PET_NOT_FOUND',
      'Pet 8888888 does not exist',
    );
    expectError(
      await rest(app(), 'GET', '/store/inventory/-8'),
      400,
      'VALIDATION_FAILED',
      /^petId must be/,
    );
  });

  it('sets the stock (beta): above 0 makes a sold pet available, 0 changes no status', async () => {
    const pet = await makePet(app(), { quantity: 0, status: 'sold' });
    const zero = await rest(app(), 'PUT', `/store/inventory/${pet.id}`, { json: { quantity: 0 } });
    expect(zero.status).toBe(200);
    expect(zero.body).toEqual({ petId: Number(pet.id), quantity: 0, status: 'sold' });

    const restocked = await rest(app(), 'PUT', `/store/inventory/${pet.id}`, {
      json: { id: 3, quantity: 12 },
    });
    expect(restocked.body).toEqual({ petId: Number(pet.id), quantity: 12, status: 'available' });
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 12, status: 'available' });

    const pending = await makePet(app(), { quantity: 0, status: 'pending' });
    const kept = await rest(app(), 'PUT', `/store/inventory/${pending.id}`, {
      json: { quantity: 3 },
    });
    expect(kept.body).toEqual({ petId: Number(pending.id), quantity: 3, status: 'pending' });
  });

  it.each([
    [{}, 'quantity is required'],
    [{ quantity: -1 }, 'quantity must be an integer from 0 to 1000000'],
    [{ quantity: 1000001 }, 'quantity must be an integer from 0 to 1000000'],
    [{ quantity: 2.5 }, 'quantity must be an integer from 0 to 1000000'],
    [{ quantity: '5' }, 'quantity must be an integer'],
    [{ quantity: 5, status: 'sold' }, 'Unknown property "status"; allowed: quantity'],
  ])('rejects the body %o with VALIDATION_FAILED', async (json, message) => {
    const pet = await makePet(app());
    expectError(
      await rest(app(), 'PUT', `/store/inventory/${pet.id}`, { json }),
      400,
      'VALIDATION_FAILED',
      message,
    );
  });

  it('fails to set the stock of an unknown pet with 404', async () => {
    expectError(
      await rest(app(), 'PUT', '/store/inventory/7777777', { json: { quantity: 1 } }),
      404,
      'PET_NOT_FOUND',
    );
  });
});
