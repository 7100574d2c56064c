import { expect, it } from 'vitest';
import { graphql as gql } from '../generated/index.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeCategory, makeOrder, makePet } from '../helpers/factories.js';
import { graphql } from '../helpers/graphql.js';

const NestedPets = gql(`
  query NestedPets($first: Int!, $categoryId: ID!) {
    pets(first: $first, categoryId: $categoryId) {
      edges { node { category { name } inventory { quantity } orders(first: 3) { totalCount } } }
    }
  }
`);

describeDb('batching nested relations', () => {
  const app = useTestApp();

  it('uses the same, small number of SQL statements for 10 and 100 pets', async () => {
    const category = await makeCategory(app());
    for (let i = 0; i < 100; i++) {
      const pet = await makePet(app(), { categoryId: category.id, quantity: i });
      if (i % 3 === 0) await makeOrder(app(), { petId: pet.id });
    }
    const statementsFor = async (first: number) => {
      const before = app().database.statementCount();
      const response = await graphql(app(), NestedPets, { first, categoryId: String(category.id) });
      expect(response.data?.pets.edges).toHaveLength(first);
      expect(response.data?.pets.edges[0]?.node.orders?.totalCount).toBe(1);
      return app().database.statementCount() - before;
    };
    const ten = await statementsFor(10);
    const hundred = await statementsFor(100);
    expect(hundred).toBe(ten);
    expect(hundred).toBeLessThanOrEqual(5);
  });
});
