import { expect, it } from 'vitest';
import { graphql as gql } from '../generated/index.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makePet, stockOf } from '../helpers/factories.js';
import { errorCodes, graphql } from '../helpers/graphql.js';

const PlaceOrder = gql(
  `mutation PlaceOneUnit($petId: ID!) { placeOrder(input: { petId: $petId, quantity: 1 }) { id } }`,
);

describeDb('placing orders concurrently', () => {
  const app = useTestApp();

  it('200 simultaneous orders against a stock of 50 sell exactly 50 units', async () => {
    const pet = await makePet(app(), { quantity: 50 });
    const responses = await Promise.all(
      Array.from({ length: 200 }, () => graphql(app(), PlaceOrder, { petId: String(pet.id) })),
    );
    const placed = responses.filter((response) => response.data?.placeOrder);
    const refused = responses.flatMap((response) => errorCodes(response));
    expect(placed).toHaveLength(50);
    expect(refused).toHaveLength(150);
    // Once the last unit is gone the pet is sold, so later orders see PET_NOT_AVAILABLE.
    expect(new Set(refused)).toEqual(new Set(['PET_NOT_AVAILABLE']));
    expect(await app().database.prisma.order.count({ where: { petId: pet.id } })).toBe(50);
    expect(await stockOf(app(), pet.id)).toEqual({ quantity: 0, status: 'sold' });
  });
});
