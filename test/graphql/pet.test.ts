import { expect, it } from 'vitest';
import { graphql as gql } from '../generated/index.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeCategory, makePet } from '../helpers/factories.js';
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
