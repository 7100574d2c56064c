import { expect, it } from 'vitest';
import { graphql as gql } from '../generated/index.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeCategory, makePet } from '../helpers/factories.js';
import { errorCodes, graphql } from '../helpers/graphql.js';

const CategoryById = gql(`
  query CategoryById($id: ID!, $status: PetStatus, $first: Int, $after: String) {
    category(id: $id) {
      id name description
      pets(first: $first, after: $after, status: $status) {
        totalCount
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        edges { cursor node { name status } }
      }
    }
  }
`);

const Categories = gql(`query Categories { categories { id name } }`);

const CreateCategory = gql(`
  mutation CreateCategory($input: NewCategory!) { createCategory(input: $input) { id name description } }
`);

const UpdateCategory = gql(`
  mutation UpdateCategory($id: ID!, $input: NewCategory!) {
    updateCategory(id: $id, input: $input) { id name description }
  }
`);

const DeleteCategory = gql(`mutation DeleteCategory($id: ID!) { deleteCategory(id: $id) }`);

describeDb('categories over GraphQL', () => {
  const app = useTestApp();

  it('creates a category with a trimmed name and reads it back', async () => {
    const created = await graphql(app(), CreateCategory, {
      input: { name: '  Hamsters ', description: 'Small and quick' },
    });
    expect(created.errors).toBeUndefined();
    const id = created.data?.createCategory.id ?? '';
    expect(created.data?.createCategory).toEqual({
      id,
      name: 'Hamsters',
      description: 'Small and quick',
    });

    const read = await graphql(app(), CategoryById, { id });
    expect(read.data?.category).toMatchObject({
      id,
      name: 'Hamsters',
      description: 'Small and quick',
    });
  });

  it('lists categories in id order', async () => {
    const a = await makeCategory(app());
    const b = await makeCategory(app());
    const response = await graphql(app(), Categories);
    const ids = response.data?.categories.map((category) => category.id) ?? [];
    expect(ids.indexOf(String(a.id))).toBeLessThan(ids.indexOf(String(b.id)));
    expect(ids).toEqual([...ids].sort((x, y) => Number(BigInt(x) - BigInt(y))));
  });

  it('rejects a duplicate name, whatever its case, with CATEGORY_NAME_TAKEN', async () => {
    await makeCategory(app(), { name: 'Ferrets' });
    const response = await graphql(app(), CreateCategory, { input: { name: ' FERRETS' } });
    expect(errorCodes(response)).toEqual(['CATEGORY_NAME_TAKEN']);
    expect(response.errors?.[0]?.extensions.status).toBe(409);
  });

  it('validates name and description lengths', async () => {
    for (const input of [
      { name: '   ' },
      { name: 'x'.repeat(101) },
      { name: 'Ok', description: 'd'.repeat(501) },
    ]) {
      const response = await graphql(app(), CreateCategory, { input });
      expect(errorCodes(response)).toEqual(['VALIDATION_FAILED']);
      expect(response.errors?.[0]?.message).toMatch(/name|description/);
    }
  });

  it('replaces name and description on update; a missing description is cleared', async () => {
    const category = await makeCategory(app(), { description: 'old' });
    const response = await graphql(app(), UpdateCategory, {
      id: String(category.id),
      input: { name: 'Renamed' },
    });
    expect(response.data?.updateCategory).toEqual({
      id: String(category.id),
      name: 'Renamed',
      description: null,
    });
  });

  it('answers CATEGORY_NOT_FOUND when updating or deleting an unknown category', async () => {
    const update = await graphql(app(), UpdateCategory, {
      id: '99999999',
      input: { name: 'Nope' },
    });
    expect(errorCodes(update)).toEqual(['CATEGORY_NOT_FOUND']);
    expect(update.errors?.[0]?.extensions.status).toBe(404);
    const remove = await graphql(app(), DeleteCategory, { id: '99999999' });
    expect(errorCodes(remove)).toEqual(['CATEGORY_NOT_FOUND']);
  });

  it('returns null for an unknown category', async () => {
    const response = await graphql(app(), CategoryById, { id: '99999999' });
    expect(response.data).toEqual({ category: null });
    expect(response.errors).toBeUndefined();
  });

  it('deletes an empty category and refuses one with pets (CATEGORY_IN_USE)', async () => {
    const empty = await makeCategory(app());
    const deleted = await graphql(app(), DeleteCategory, { id: String(empty.id) });
    expect(deleted.data).toEqual({ deleteCategory: String(empty.id) });

    const used = await makeCategory(app());
    await makePet(app(), { categoryId: used.id });
    const refused = await graphql(app(), DeleteCategory, { id: String(used.id) });
    expect(errorCodes(refused)).toEqual(['CATEGORY_IN_USE']);
    expect(refused.errors?.[0]?.extensions.status).toBe(409);
  });

  it('pages through its pets with a status filter and a total count', async () => {
    const category = await makeCategory(app());
    for (const status of ['available', 'sold', 'available', 'pending', 'available'] as const) {
      await makePet(app(), { categoryId: category.id, status, name: `${status} pet` });
    }
    const first = await graphql(app(), CategoryById, {
      id: String(category.id),
      status: 'available',
      first: 2,
    });
    const pets = first.data?.category?.pets;
    expect(pets?.totalCount).toBe(3);
    expect(pets?.edges.map((edge) => edge.node.status)).toEqual(['available', 'available']);
    expect(pets?.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });

    const second = await graphql(app(), CategoryById, {
      id: String(category.id),
      status: 'available',
      first: 2,
      after: pets?.pageInfo.endCursor ?? null,
    });
    expect(second.data?.category?.pets.edges).toHaveLength(1);
    expect(second.data?.category?.pets.pageInfo).toMatchObject({
      hasNextPage: false,
      hasPreviousPage: true,
    });
  });
});
