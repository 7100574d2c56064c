import { expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeCategory, makePet } from '../helpers/factories.js';
import { expectError, rest } from '../helpers/rest.js';

describeDb('REST categories', () => {
  const app = useTestApp();

  it('lists every category by id, omitting a missing description', async () => {
    const dogs = await makeCategory(app(), { name: 'Dogs', description: 'Loyal' });
    const cats = await makeCategory(app(), { name: 'Cats' });
    const response = await rest<{ id: number }[]>(app(), 'GET', '/categories');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-total-count')).toBeNull();
    const ids = response.body.map((category) => category.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(
      response.body.filter((c) => c.id === Number(dogs.id) || c.id === Number(cats.id)),
    ).toEqual([
      { id: Number(dogs.id), name: 'Dogs', description: 'Loyal' },
      { id: Number(cats.id), name: 'Cats' },
    ]);
  });

  it('creates a category: 201 with Location, trimmed name; id is ignored', async () => {
    const response = await rest<{ id: number }>(app(), 'POST', '/categories', {
      json: { id: 5, name: '  Reptiles ', description: 'Cold-blooded' },
    });
    expect(response.status).toBe(201);
    const { id } = response.body;
    expect(response.headers.get('location')).toBe(`/api/categories/${id}`);
    expect(response.body).toEqual({ id, name: 'Reptiles', description: 'Cold-blooded' });
    const read = await rest(app(), 'GET', `/categories/${id}`);
    expect(read.body).toEqual(response.body);
  });

  it('rejects a duplicate name, case-insensitively, with 409 CATEGORY_NAME_TAKEN', async () => {
    await makeCategory(app(), { name: 'Rodents' });
    expectError(
      await rest(app(), 'POST', '/categories', { json: { name: ' RODENTS ' } }),
      409,
      'CATEGORY_NAME_TAKEN',
      'A category named "RODENTS" already exists',
    );
  });

  it.each([
    [{}, 'name is required'],
    [{ name: 7 }, 'name must be a string'],
    [{ name: '' }, 'name must be 1-100 characters (after trimming spaces)'],
    [{ name: 'x', description: 3 }, 'description must be a string'],
    [{ name: 'x', description: null }, 'description must be a string'],
    [{ name: 'x', description: 'd'.repeat(501) }, 'description must be at most 500 characters'],
    [{ name: 'x', pets: [] }, 'Unknown property "pets"; allowed: name, description'],
  ])('rejects the body %o with VALIDATION_FAILED', async (json, message) => {
    expectError(
      await rest(app(), 'POST', '/categories', { json }),
      400,
      'VALIDATION_FAILED',
      message,
    );
  });

  it('reads a category; 404 CATEGORY_NOT_FOUND when unknown, 400 for a bad id', async () => {
    const category = await makeCategory(app(), { name: 'Fish' });
    expect((await rest(app(), 'GET', `/categories/${category.id}`)).body).toEqual({
      id: Number(category.id),
      name: 'Fish',
    });
    expectError(
      await rest(app(), 'GET', '/categories/123456789'),
      404,
      'CATEGORY_NOT_FOUND',
      'Category 123456789 does not exist',
    );
    expectError(
      await rest(app(), 'GET', '/categories/-5'),
      400,
      'VALIDATION_FAILED',
      'categoryId must be an integer id between 1 and 9223372036854775807',
    );
  });

  it('replaces a category; an omitted description is cleared', async () => {
    const category = await makeCategory(app(), { name: 'Birds', description: 'Feathered' });
    const response = await rest(app(), 'PUT', `/categories/${category.id}`, {
      json: { name: 'Songbirds' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: Number(category.id), name: 'Songbirds' });
  });

  it('fails to replace: unknown (404), name taken (409), bad id (400)', async () => {
    const taken = await makeCategory(app());
    const category = await makeCategory(app());
    expectError(
      await rest(app(), 'PUT', '/categories/99999999', { json: { name: 'Anything' } }),
      404,
      'CATEGORY_NOT_FOUND',
    );
    expectError(
      await rest(app(), 'PUT', `/categories/${category.id}`, { json: { name: taken.name } }),
      409,
      'CATEGORY_NAME_TAKEN',
    );
    expectError(
      await rest(app(), 'PUT', '/categories/zero', { json: { name: 'Anything' } }),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('deletes a category with 204; one with pets is 409 CATEGORY_IN_USE', async () => {
    const empty = await makeCategory(app());
    const response = await rest(app(), 'DELETE', `/categories/${empty.id}`);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expectError(await rest(app(), 'DELETE', `/categories/${empty.id}`), 404, 'CATEGORY_NOT_FOUND');

    const used = await makeCategory(app());
    await makePet(app(), { categoryId: used.id });
    expectError(
      await rest(app(), 'DELETE', `/categories/${used.id}`),
      409,
      'CATEGORY_IN_USE',
      `Category ${used.id} still has pets; move or delete them first`,
    );
    expectError(await rest(app(), 'DELETE', '/categories/0'), 400, 'VALIDATION_FAILED');
  });
});
