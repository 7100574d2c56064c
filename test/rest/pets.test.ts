import { expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeCategory, makeOrder, makePet, stockOf } from '../helpers/factories.js';
import { expectError, rest } from '../helpers/rest.js';

describeDb('REST pets', () => {
  // GET /api/pets/{petId} answers 410 after its sunset: keep it far away so these tests hold.
  const app = useTestApp({ PET_BY_ID_SUNSET: '2999-12-31T00:00:00Z' });

  it('lists the pets of a category by id, paged, with X-Total-Count', async () => {
    const category = await makeCategory(app());
    const made: Awaited<ReturnType<typeof makePet>>[] = [];
    for (const name of ['Ann', 'Bob', 'Cid', 'Dot', 'Eve']) {
      made.push(await makePet(app(), { name, categoryId: category.id }));
    }
    const pet = (index: number) => {
      const row = made[index];
      if (!row) throw new Error('no such pet');
      return {
        id: Number(row.id),
        name: row.name,
        categoryId: Number(category.id),
        status: 'available',
      };
    };

    const first = await rest(app(), 'GET', `/pets?categoryId=${category.id}&limit=2`);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-total-count')).toBe('5');
    expect(first.body).toEqual([pet(0), pet(1)]);

    const last = await rest(app(), 'GET', `/pets?categoryId=${category.id}&limit=2&offset=4`);
    expect(last.body).toEqual([pet(4)]);
    expect(last.headers.get('x-total-count')).toBe('5');

    const beyond = await rest(app(), 'GET', `/pets?categoryId=${category.id}&offset=10`);
    expect(beyond.body).toEqual([]);
    expect(beyond.headers.get('x-total-count')).toBe('5');
  });

  it('pages 20 by default and 100 at most', async () => {
    const category = await makeCategory(app());
    for (let i = 0; i < 21; i++) await makePet(app(), { categoryId: category.id });
    const response = await rest<unknown[]>(app(), 'GET', `/pets?categoryId=${category.id}`);
    expect(response.body).toHaveLength(20);
    expect(response.headers.get('x-total-count')).toBe('21');
    const all = await rest<unknown[]>(app(), 'GET', `/pets?categoryId=${category.id}&limit=100`);
    expect(all.body).toHaveLength(21);
  });

  it('filters by status', async () => {
    const category = await makeCategory(app());
    await makePet(app(), { categoryId: category.id, status: 'available' });
    const sold = await makePet(app(), { categoryId: category.id, status: 'sold', name: 'Gone' });
    const response = await rest(app(), 'GET', `/pets?categoryId=${category.id}&status=sold`);
    expect(response.body).toEqual([
      { id: Number(sold.id), name: 'Gone', categoryId: Number(category.id), status: 'sold' },
    ]);
    expect(response.headers.get('x-total-count')).toBe('1');
  });

  it.each([
    ['limit=0', 'limit must be an integer from 1 to 100'],
    ['limit=101', 'limit must be an integer from 1 to 100'],
    ['limit=9223372036854775807', 'limit must be an integer from 1 to 100'],
    ['limit=abc', 'limit must be a whole number written in digits, not "abc"'],
    ['limit=1.5', 'limit must be a whole number written in digits, not "1.5"'],
    ['limit=', 'limit must be a whole number written in digits, not ""'],
    ['offset=-1', 'offset must be 0 or more'],
    ['offset=x', 'offset must be a whole number written in digits, not "x"'],
    ['offset=1e2', 'offset must be a whole number written in digits, not "1e2"'],
    ['offset=%201', 'offset must be a whole number written in digits, not " 1"'],
    ['offset=2147483648', 'offset must be at most 2147483647'],
    ['offset=9007199254740992', 'offset must be at most 2147483647'],
    ['offset=99999999999999999999999', 'offset must be at most 2147483647'],
    ['status=lost', 'status must be one of available, pending, sold'],
    ['status=AVAILABLE', 'status must be one of available, pending, sold'],
    ['categoryId=0', /^categoryId must be an integer id/],
    ['categoryId=abc', /^categoryId must be an integer id/],
    ['categoryId=9223372036854775808', /^categoryId must be an integer id/],
    ['limit=1&limit=2', 'Query parameter limit must be given at most once'],
  ])('rejects the query %s with VALIDATION_FAILED', async (query, message) => {
    expectError(await rest(app(), 'GET', `/pets?${query}`), 400, 'VALIDATION_FAILED', message);
  });

  it('ignores query parameters it does not declare', async () => {
    const category = await makeCategory(app());
    await makePet(app(), { categoryId: category.id });
    const response = await rest(app(), 'GET', `/pets?categoryId=${category.id}&_=1`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-total-count')).toBe('1');
  });

  it('creates a pet: 201, Location, trimmed name, available, stock 0; id is ignored', async () => {
    const category = await makeCategory(app());
    const response = await rest<{ id: number }>(app(), 'POST', '/pets', {
      json: { id: 777, name: '  Bella  ', categoryId: Number(category.id) },
    });
    expect(response.status).toBe(201);
    const id = response.body.id;
    expect(id).not.toBe(777);
    expect(response.headers.get('location')).toBe(`/api/pets/${id}`);
    expect(response.body).toEqual({
      id,
      name: 'Bella',
      categoryId: Number(category.id),
      status: 'available',
    });
    expect(await stockOf(app(), BigInt(id))).toEqual({ quantity: 0, status: 'available' });
  });

  it('creates a pet with a given status', async () => {
    const category = await makeCategory(app());
    const response = await rest(app(), 'POST', '/pets', {
      json: { name: 'Pip', categoryId: Number(category.id), status: 'pending' },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ name: 'Pip', status: 'pending' });
  });

  it('rejects a pet in an unknown category with 422 UNKNOWN_CATEGORY', async () => {
    const response = await rest(app(), 'POST', '/pets', {
      json: { name: 'Ghost', categoryId: 424242 },
    });
    expectError(response, 422, 'UNKNOWN_CATEGORY', 'categoryId 424242 names no existing category');
  });

  it.each([
    [{ categoryId: 1 }, 'name is required'],
    [{ name: 'Rex' }, 'categoryId is required'],
    [{ name: 5, categoryId: 1 }, 'name must be a string'],
    [{ name: null, categoryId: 1 }, 'name must be a string'],
    [{ name: 'Rex', categoryId: '1' }, 'categoryId must be an integer'],
    [{ name: 'Rex', categoryId: 1.5 }, /^categoryId must be an integer id/],
    [{ name: 'Rex', categoryId: -3 }, /^categoryId must be an integer id/],
    [{ name: 'Rex', categoryId: 0 }, /^categoryId must be an integer id/],
    [{ name: 'Rex', categoryId: 9223372036854775808n }, /^categoryId must be an integer id/],
    [
      { name: 'Rex', categoryId: 1, status: 'lost' },
      'status must be one of available, pending, sold',
    ],
    [
      { name: 'Rex', categoryId: 1, status: null },
      'status must be one of available, pending, sold',
    ],
    [{ name: '   ', categoryId: 1 }, 'name must be 1-100 characters (after trimming spaces)'],
    [
      { name: 'x'.repeat(101), categoryId: 1 },
      'name must be 1-100 characters (after trimming spaces)',
    ],
    [
      { name: 'Rex', categoryId: 1, tags: [] },
      'Unknown property "tags"; allowed: name, categoryId, status',
    ],
    [
      { name: 'Rex', categoryId: 1, photoUrls: [], category: {} },
      'Unknown properties "photoUrls", "category"; allowed: name, categoryId, status',
    ],
  ])('rejects the body %o with VALIDATION_FAILED', async (json, message) => {
    expectError(await rest(app(), 'POST', '/pets', { json }), 400, 'VALIDATION_FAILED', message);
  });

  it('names every invalid field at once', async () => {
    const response = await rest(app(), 'POST', '/pets', { json: { name: 1, categoryId: 'x' } });
    expectError(
      response,
      400,
      'VALIDATION_FAILED',
      'name must be a string; categoryId must be an integer',
    );
  });

  it('reads a pet (deprecated; its headers are tested in deprecation.test.ts)', async () => {
    const pet = await makePet(app(), { name: 'Rex' });
    const response = await rest(app(), 'GET', `/pets/${pet.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: Number(pet.id),
      name: 'Rex',
      categoryId: Number(pet.categoryId),
      status: 'available',
    });
  });

  it('reads concurrent pets by id with shared statements, and sees a write at once', async () => {
    const pets = [];
    for (let i = 0; i < 10; i++) pets.push(await makePet(app(), { name: `Shared ${i}` }));
    const before = app().database.statementCount();
    const responses = await Promise.all(
      pets.map((pet) => rest<{ name: string }>(app(), 'GET', `/pets/${pet.id}`)),
    );
    expect(responses.map((response) => response.body.name)).toEqual(pets.map((pet) => pet.name));
    // Ten requests, fewer statements than the ten they would cost one by one.
    expect(app().database.statementCount() - before).toBeLessThan(10);

    const pet = pets[0] as (typeof pets)[number];
    const renamed = await rest(app(), 'PUT', `/pets/${pet.id}`, {
      json: { name: 'Renamed', categoryId: Number(pet.categoryId) },
    });
    expect(renamed.status).toBe(200);
    expect((await rest<{ name: string }>(app(), 'GET', `/pets/${pet.id}`)).body.name).toBe(
      'Renamed',
    );
  });

  it('answers an unknown pet with 404 PET_NOT_FOUND and a bad id with 400', async () => {
    expectError(
      await rest(app(), 'GET', '/pets/987654321'),
      404,
      'PET_NOT_FOUND',
      'Pet 987654321 does not exist',
    );
    for (const id of ['0', '-1', 'abc', '1.5', '9223372036854775808', '1e3', '%20']) {
      expectError(
        await rest(app(), 'GET', `/pets/${id}`),
        400,
        'VALIDATION_FAILED',
        /^petId must be an integer id between 1 and 9223372036854775807$/,
      );
    }
  });

  it('replaces a pet; without status it keeps the current one', async () => {
    const pet = await makePet(app(), { status: 'pending' });
    const other = await makeCategory(app());
    const response = await rest(app(), 'PUT', `/pets/${pet.id}`, {
      json: { name: 'Renamed', categoryId: Number(other.id) },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: Number(pet.id),
      name: 'Renamed',
      categoryId: Number(other.id),
      status: 'pending',
    });
    const sold = await rest(app(), 'PUT', `/pets/${pet.id}`, {
      json: { id: 1, name: 'Renamed', categoryId: Number(other.id), status: 'sold' },
    });
    expect(sold.body).toMatchObject({ id: Number(pet.id), status: 'sold' });
  });

  it('fails to replace an unknown pet (404) or to move one to an unknown category (422)', async () => {
    const category = await makeCategory(app());
    expectError(
      await rest(app(), 'PUT', '/pets/987654321', {
        json: { name: 'X', categoryId: Number(category.id) },
      }),
      404,
      'PET_NOT_FOUND',
    );
    const pet = await makePet(app());
    expectError(
      await rest(app(), 'PUT', `/pets/${pet.id}`, { json: { name: 'X', categoryId: 999999 } }),
      422,
      'UNKNOWN_CATEGORY',
    );
    expectError(
      await rest(app(), 'PUT', '/pets/abc', {
        json: { name: 'X', categoryId: Number(category.id) },
      }),
      400,
      'VALIDATION_FAILED',
      /^petId/,
    );
    expectError(
      await rest(app(), 'PUT', `/pets/${pet.id}`, { json: { name: 'X' } }),
      400,
      'VALIDATION_FAILED',
      'categoryId is required',
    );
  });

  it('deletes a pet with 204 and its inventory; then it is gone', async () => {
    const pet = await makePet(app(), { quantity: 3 });
    const response = await rest(app(), 'DELETE', `/pets/${pet.id}`);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect(await app().database.prisma.inventoryItem.count({ where: { petId: pet.id } })).toBe(0);
    expectError(await rest(app(), 'DELETE', `/pets/${pet.id}`), 404, 'PET_NOT_FOUND');
    expectError(await rest(app(), 'DELETE', '/pets/x'), 400, 'VALIDATION_FAILED');
  });

  it('refuses to delete a pet that has orders with 409 PET_HAS_ORDERS', async () => {
    const pet = await makePet(app(), { quantity: 3 });
    await makeOrder(app(), { petId: pet.id });
    expectError(
      await rest(app(), 'DELETE', `/pets/${pet.id}`),
      409,
      'PET_HAS_ORDERS',
      `Pet ${pet.id} has orders and cannot be deleted`,
    );
  });

  it('writes and reads ids above 2^53 exactly', async () => {
    const categoryId = 9007199254740993n;
    // Near 2^63 but not at it: SQLite's autoincrement would have no id left for the next pet.
    const petId = 9223372036854775001n;
    await app().sql(
      `INSERT INTO "Category" ("id", "name", "nameKey") VALUES (${categoryId}, 'Huge', 'huge-${Date.now()}')`,
    );
    await app().sql(
      `INSERT INTO "Pet" ("id", "name", "categoryId", "status") VALUES (${petId}, 'Max', ${categoryId}, 'available')`,
    );
    await app().sql(`INSERT INTO "InventoryItem" ("petId", "quantity") VALUES (${petId}, 2)`);

    const read = await rest(app(), 'GET', `/pets/${petId}`);
    expect(read.text).toBe(
      '{"id":9223372036854775001,"name":"Max","categoryId":9007199254740993,"status":"available"}',
    );
    expect(read.body).toEqual({ id: petId, name: 'Max', categoryId, status: 'available' });

    const replaced = await rest(app(), 'PUT', `/pets/${petId}`, {
      json: { name: 'Max II', categoryId },
    });
    expect(replaced.text).toContain('"categoryId":9007199254740993');
    expect(replaced.body).toEqual({ id: petId, name: 'Max II', categoryId, status: 'available' });

    const created = await rest<{ id: number }>(app(), 'POST', '/pets', {
      json: { name: 'Kid', categoryId },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ categoryId });
    const listed = await rest(app(), 'GET', `/pets?categoryId=${categoryId}`);
    expect(listed.text).toContain('"id":9223372036854775001,');
  });
});
