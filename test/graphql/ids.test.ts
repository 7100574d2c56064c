import { expect, it } from 'vitest';
import { graphql as gql } from '../generated/index.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeCategory } from '../helpers/factories.js';
import { errorCodes, graphql } from '../helpers/graphql.js';

const PetById = gql(
  `query PetByHugeId($id: ID!) { pet(id: $id) { id name categoryId inventory { petId } } }`,
);

describeDb('64-bit ids', () => {
  const app = useTestApp();

  it('round-trips an id above 2^53 exactly', async () => {
    const category = await makeCategory(app());
    const id = '9007199254740993'; // 2^53 + 1: a double would turn it into ...992
    await app().sql(
      `INSERT INTO "Pet" ("id", "name", "categoryId", "status") VALUES (${id}, 'Huge', ${category.id}, 'available')`,
    );
    await app().sql(`INSERT INTO "InventoryItem" ("petId", "quantity") VALUES (${id}, 1)`);
    const response = await graphql(app(), PetById, { id });
    expect(response.data?.pet).toEqual({
      id,
      name: 'Huge',
      categoryId: String(category.id),
      inventory: { petId: id },
    });
  });

  it('accepts the largest int64 and rejects anything outside 1..2^63-1', async () => {
    const largest = await graphql(app(), PetById, { id: '9223372036854775807' });
    expect(largest.data).toEqual({ pet: null });
    for (const id of ['0', '-1', '9223372036854775808', '1.5', '1e3', ' 7', '']) {
      const response = await graphql(app(), PetById, { id });
      expect(errorCodes(response), id).toEqual(['VALIDATION_FAILED']);
    }
  });
});
