import { expect, it } from 'vitest';
import { graphql as gql } from '../generated/index.js';
import { describeDb, type TestApp, useTestApp } from '../helpers/app.js';
import { makeCategory, makeOrder, makePet } from '../helpers/factories.js';
import { graphql } from '../helpers/graphql.js';
import { type RestResponse, rest } from '../helpers/rest.js';

const PlaceOrder = gql(`
  mutation RestParityPlaceOrder($input: NewOrder!) { placeOrder(input: $input) { id } }
`);
const CreatePet = gql(`
  mutation RestParityCreatePet($input: NewPet!) { createPet(input: $input) { id } }
`);
const DeleteCategory = gql(`
  mutation RestParityDeleteCategory($id: ID!) { deleteCategory(id: $id) }
`);
const CancelOrder = gql(`
  mutation RestParityCancelOrder($id: ID!) { cancelOrder(id: $id) }
`);
const UpdateInventory = gql(`
  mutation RestParityUpdateInventory($petId: ID!, $input: InventoryUpdate!) {
    updateInventory(petId: $petId, input: $input) { quantity }
  }
`);

type Failure = { code: string; status: number; message: string };

function restFailure(response: RestResponse): Failure & { http: number } {
  const body = response.body as Failure;
  return { code: body.code, status: body.status, message: body.message, http: response.status };
}

async function graphqlFailure(
  request: Promise<{
    errors?: { message: string; extensions: { code: string; status: number } }[];
  }>,
): Promise<Failure> {
  const { errors } = await request;
  expect(errors).toHaveLength(1);
  const [error] = errors ?? [];
  return {
    code: error?.extensions.code ?? '',
    status: error?.extensions.status ?? 0,
    message: error?.message ?? '',
  };
}

/** Each failure made twice, once per edge, from the same starting rows. */
const scenarios: {
  name: string;
  code: string;
  status: number;
  run(app: TestApp): Promise<[RestResponse, Promise<Failure>]>;
}[] = [
  {
    name: 'an order beyond stock',
    code: 'INSUFFICIENT_STOCK',
    status: 409,
    async run(app) {
      const pet = await makePet(app, { quantity: 2 });
      return [
        await rest(app, 'POST', '/store/orders', { json: { petId: pet.id, quantity: 3 } }),
        graphqlFailure(graphql(app, PlaceOrder, { input: { petId: String(pet.id), quantity: 3 } })),
      ];
    },
  },
  {
    name: 'an order for a pet that is not available',
    code: 'PET_NOT_AVAILABLE',
    status: 409,
    async run(app) {
      const pet = await makePet(app, { quantity: 2, status: 'pending' });
      return [
        await rest(app, 'POST', '/store/orders', { json: { petId: pet.id, quantity: 1 } }),
        graphqlFailure(graphql(app, PlaceOrder, { input: { petId: String(pet.id), quantity: 1 } })),
      ];
    },
  },
  {
    name: 'an order for no pet',
    code: 'UNKNOWN_PET',
    status: 422,
    async run(app) {
      return [
        await rest(app, 'POST', '/store/orders', { json: { petId: 31337, quantity: 1 } }),
        graphqlFailure(graphql(app, PlaceOrder, { input: { petId: '31337', quantity: 1 } })),
      ];
    },
  },
  {
    name: 'a pet in an unknown category',
    code: 'UNKNOWN_CATEGORY',
    status: 422,
    async run(app) {
      return [
        await rest(app, 'POST', '/pets', { json: { name: 'Ghost', categoryId: 4242 } }),
        graphqlFailure(graphql(app, CreatePet, { input: { name: 'Ghost', categoryId: '4242' } })),
      ];
    },
  },
  {
    name: 'deleting a category that has pets',
    code: 'CATEGORY_IN_USE',
    status: 409,
    async run(app) {
      const category = await makeCategory(app);
      await makePet(app, { categoryId: category.id });
      return [
        await rest(app, 'DELETE', `/categories/${category.id}`),
        graphqlFailure(graphql(app, DeleteCategory, { id: String(category.id) })),
      ];
    },
  },
  {
    name: 'cancelling a complete order',
    code: 'ORDER_ALREADY_COMPLETE',
    status: 409,
    async run(app) {
      const pet = await makePet(app, { quantity: 1 });
      const order = await makeOrder(app, { petId: pet.id, complete: true });
      return [
        await rest(app, 'DELETE', `/store/orders/${order.id}`),
        graphqlFailure(graphql(app, CancelOrder, { id: String(order.id) })),
      ];
    },
  },
  {
    name: 'stock out of range',
    code: 'VALIDATION_FAILED',
    status: 400,
    async run(app) {
      const pet = await makePet(app);
      return [
        await rest(app, 'PUT', `/store/inventory/${pet.id}`, { json: { quantity: 1_000_001 } }),
        graphqlFailure(
          graphql(app, UpdateInventory, { petId: String(pet.id), input: { quantity: 1_000_001 } }),
        ),
      ];
    },
  },
  {
    name: 'setting the stock of no pet',
    code: 'PET_NOT_FOUND',
    status: 404,
    async run(app) {
      return [
        await rest(app, 'PUT', '/store/inventory/626262', { json: { quantity: 1 } }),
        graphqlFailure(graphql(app, UpdateInventory, { petId: '626262', input: { quantity: 1 } })),
      ];
    },
  },
];

describeDb('REST and GraphQL report the same failure the same way', () => {
  const app = useTestApp();

  it.each(scenarios)('$name: $code $status', async ({ code, status, run }) => {
    const [restResponse, graphqlResult] = await run(app());
    const overRest = restFailure(restResponse);
    const overGraphql = await graphqlResult;
    expect(overRest).toEqual({ code, status, http: status, message: overGraphql.message });
    expect(overGraphql).toEqual({ code, status, message: overRest.message });
  });
});
