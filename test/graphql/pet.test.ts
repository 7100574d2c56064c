import { expect, it } from 'vitest';
import { graphql as gql } from '../generated/index.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeCategory, makeOrder, makePet } from '../helpers/factories.js';
import { errorCodes, graphql } from '../helpers/graphql.js';

const PetById = gql(`
  query PetById($id: ID!) {
    pet(id: $id) { id name categoryId status category { name } inventory { quantity status } }
  }
`);

const CreatePet = gql(`
  mutation CreatePet($input: NewPet!) {
    createPet(input: $input) { id name categoryId status inventory { quantity status } }
  }
`);

describeDb('pets over GraphQL', () => {
  const app = useTestApp();

  it('reads a pet with its category and inventory', async () => {
    const category = await makeCategory(app(), { name: 'Dogs' });
    const pet = await makePet(app(), { name: 'Rex', categoryId: category.id, quantity: 4 });
    const response = await graphql(app(), PetById, { id: String(pet.id) });
    expect(response.status).toBe(200);
    expect(response.data?.pet).toEqual({
      id: String(pet.id),
      name: 'Rex',
      categoryId: String(category.id),
      status: 'available',
      category: { name: 'Dogs' },
      inventory: { quantity: 4, status: 'available' },
    });
  });

  it('returns null for an unknown id and VALIDATION_FAILED for a malformed one', async () => {
    const unknown = await graphql(app(), PetById, { id: '987654321' });
    expect(unknown.data).toEqual({ pet: null });
    expect(unknown.errors).toBeUndefined();

    const malformed = await graphql(app(), PetById, { id: 'abc' });
    expect(errorCodes(malformed)).toEqual(['VALIDATION_FAILED']);
    expect(malformed.errors?.[0]?.extensions.status).toBe(400);
  });

  it('creates a pet, trimmed, available by default, with stock 0', async () => {
    const category = await makeCategory(app());
    const response = await graphql(app(), CreatePet, {
      input: { name: '  Bella  ', categoryId: String(category.id) },
    });
    expect(response.data?.createPet).toMatchObject({
      name: 'Bella',
      status: 'available',
      inventory: { quantity: 0, status: 'available' },
    });
  });

  it('rejects a pet in an unknown category with UNKNOWN_CATEGORY', async () => {
    const response = await graphql(app(), CreatePet, {
      input: { name: 'Ghost', categoryId: '424242' },
    });
    expect(response.status).toBe(200);
    expect(errorCodes(response)).toEqual(['UNKNOWN_CATEGORY']);
    expect(response.errors?.[0]?.extensions.status).toBe(422);
  });
});

const UpdatePet = gql(`
  mutation UpdatePet($id: ID!, $input: NewPet!) { updatePet(id: $id, input: $input) { id name categoryId status } }
`);

const DeletePet = gql(`mutation DeletePet($id: ID!) { deletePet(id: $id) }`);

const Pets = gql(`
  query Pets($first: Int, $after: String, $status: PetStatus, $categoryId: ID) {
    pets(first: $first, after: $after, status: $status, categoryId: $categoryId) {
      totalCount
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor node { id status } }
    }
  }
`);

describeDb('changing and listing pets over GraphQL', () => {
  const app = useTestApp();

  it('replaces a pet; without status it keeps the current one', async () => {
    const pet = await makePet(app(), { status: 'pending' });
    const other = await makeCategory(app());
    const response = await graphql(app(), UpdatePet, {
      id: String(pet.id),
      input: { name: 'Renamed', categoryId: String(other.id) },
    });
    expect(response.data?.updatePet).toEqual({
      id: String(pet.id),
      name: 'Renamed',
      categoryId: String(other.id),
      status: 'pending',
    });
    const sold = await graphql(app(), UpdatePet, {
      id: String(pet.id),
      input: { name: 'Renamed', categoryId: String(other.id), status: 'sold' },
    });
    expect(sold.data?.updatePet.status).toBe('sold');
  });

  it('answers PET_NOT_FOUND, UNKNOWN_CATEGORY and VALIDATION_FAILED on update', async () => {
    const pet = await makePet(app());
    const category = String(pet.categoryId);
    const cases = [
      {
        id: '99999999',
        input: { name: 'X', categoryId: category },
        code: 'PET_NOT_FOUND',
        status: 404,
      },
      {
        id: String(pet.id),
        input: { name: 'X', categoryId: '99999999' },
        code: 'UNKNOWN_CATEGORY',
        status: 422,
      },
      {
        id: String(pet.id),
        input: { name: ' ', categoryId: category },
        code: 'VALIDATION_FAILED',
        status: 400,
      },
    ];
    for (const { id, input, code, status } of cases) {
      const response = await graphql(app(), UpdatePet, { id, input });
      expect(errorCodes(response)).toEqual([code]);
      expect(response.errors?.[0]?.extensions.status).toBe(status);
    }
  });

  it('deletes a pet without orders, and refuses one with orders (PET_HAS_ORDERS)', async () => {
    const lonely = await makePet(app());
    expect((await graphql(app(), DeletePet, { id: String(lonely.id) })).data).toEqual({
      deletePet: String(lonely.id),
    });
    expect(await app().database.prisma.inventoryItem.count({ where: { petId: lonely.id } })).toBe(
      0,
    );

    const ordered = await makePet(app());
    await makeOrder(app(), { petId: ordered.id });
    const refused = await graphql(app(), DeletePet, { id: String(ordered.id) });
    expect(errorCodes(refused)).toEqual(['PET_HAS_ORDERS']);
    expect(refused.errors?.[0]?.extensions.status).toBe(409);

    const unknown = await graphql(app(), DeletePet, { id: String(lonely.id) });
    expect(errorCodes(unknown)).toEqual(['PET_NOT_FOUND']);
  });

  it('pages through pets by id with filters, total count and cursors', async () => {
    const category = await makeCategory(app());
    const pets = [];
    for (const status of ['available', 'sold', 'available', 'available'] as const) {
      pets.push(await makePet(app(), { categoryId: category.id, status }));
    }
    const filter = { categoryId: String(category.id), status: 'available' as const };
    const first = await graphql(app(), Pets, { ...filter, first: 2 });
    expect(first.data?.pets.totalCount).toBe(3);
    expect(first.data?.pets.edges.map((edge) => edge.node.id)).toEqual([
      String(pets[0]?.id),
      String(pets[2]?.id),
    ]);
    expect(first.data?.pets.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(first.data?.pets.pageInfo.endCursor).toBe(first.data?.pets.edges[1]?.cursor);

    const second = await graphql(app(), Pets, {
      ...filter,
      first: 2,
      after: first.data?.pets.pageInfo.endCursor,
    });
    expect(second.data?.pets.edges.map((edge) => edge.node.id)).toEqual([String(pets[3]?.id)]);
    expect(second.data?.pets.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });

    const byDefault = await graphql(app(), Pets, { categoryId: String(category.id) });
    expect(byDefault.data?.pets.edges).toHaveLength(4);
    const none = await graphql(app(), Pets, { ...filter, first: 0 });
    expect(none.data?.pets).toMatchObject({
      totalCount: 3,
      edges: [],
      pageInfo: { hasNextPage: true },
    });
  });
});
