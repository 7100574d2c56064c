import { isObjectType } from 'graphql';
import { expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema/index.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeOrder, makePet } from '../helpers/factories.js';
import { graphqlRequest } from '../helpers/graphql.js';

/** The fields that declare a scope (`extensions.scope`, src/graphql/kit/scopes.ts). */
function declaredScopes(): Map<string, string> {
  const declared = new Map<string, string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const scope = field.extensions.scope;
      if (typeof scope === 'string') declared.set(`${type.name}.${field.name}`, scope);
    }
  }
  return declared;
}

describeDb('the scope each field declares is the one it enforces', () => {
  const app = useTestApp();

  it('declares a scope on every mutation, the orders and Pet.orders, and enforces exactly that one', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    const order = await makeOrder(app(), { petId: pet.id });
    const [petId, categoryId, orderId] = [pet.id, pet.categoryId, order.id].map(String);
    // One operation per field that needs a scope (subscriptions are checked in subscriptions.test.ts).
    const operations: Record<string, string> = {
      'Query.order': `{ order(id: "${orderId}") { id } }`,
      'Query.orders': '{ orders(first: 1) { totalCount } }',
      'Pet.orders': `{ pet(id: "${petId}") { orders(first: 1) { totalCount } } }`,
      'Mutation.createPet': `mutation { createPet(input: { name: "N", categoryId: "${categoryId}" }) { id } }`,
      'Mutation.updatePet': `mutation { updatePet(id: "${petId}", input: { name: "N", categoryId: "${categoryId}" }) { id } }`,
      'Mutation.deletePet': 'mutation { deletePet(id: "987654321") }',
      'Mutation.createCategory': 'mutation { createCategory(input: { name: "Scoped" }) { id } }',
      'Mutation.updateCategory': `mutation { updateCategory(id: "${categoryId}", input: { name: "Scoped 2" }) { id } }`,
      'Mutation.deleteCategory': 'mutation { deleteCategory(id: "987654321") }',
      'Mutation.placeOrder': `mutation { placeOrder(input: { petId: "${petId}", quantity: 1 }) { id } }`,
      'Mutation.updateOrder': `mutation { updateOrder(id: "${orderId}", input: { complete: false }) { id } }`,
      'Mutation.cancelOrder': 'mutation { cancelOrder(id: "987654321") }',
      'Mutation.updateInventory': `mutation { updateInventory(petId: "${petId}", input: { quantity: 3 }) { quantity } }`,
    };
    const declared = declaredScopes();
    const mutations = Object.keys(schema.getMutationType()?.getFields() ?? {});
    expect(
      [...declared.keys()].filter((field) => !field.startsWith('Subscription.')).sort(),
    ).toEqual(Object.keys(operations).sort());
    for (const field of mutations) expect(declared.has(`Mutation.${field}`), field).toBe(true);

    const codes = async (query: string, scopes: string[]) => {
      const authorization = `Bearer ${await app().token(scopes)}`;
      const response = await app().fetch(graphqlRequest({ query }, { authorization }));
      const body = (await response.json()) as {
        errors?: { message: string; extensions: { code: string } }[];
      };
      return (body.errors ?? []).map((error) => `${error.extensions.code}: ${error.message}`);
    };
    for (const [field, query] of Object.entries(operations)) {
      const scope = declared.get(field) as string;
      // Without it: FORBIDDEN, naming it; with it alone: no FORBIDDEN.
      expect(await codes(query, []), field).toEqual([
        expect.stringMatching(`^FORBIDDEN: .*${scope}`),
      ]);
      expect(
        (await codes(query, [scope])).filter((code) => code.startsWith('FORBIDDEN')),
        field,
      ).toEqual([]);
    }
  });
});
