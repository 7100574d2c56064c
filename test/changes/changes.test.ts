import { beforeAll, expect, it } from 'vitest';
import { toRow } from '../../src/changes/event.js';
import type { Change } from '../../src/domain/changes.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeCategory, makePet } from '../helpers/factories.js';
import { graphqlRequest } from '../helpers/graphql.js';
import { rest } from '../helpers/rest.js';

describeDb('committed writes are reported, whichever edge made them', () => {
  const app = useTestApp();
  const heard: Change[] = [];
  beforeAll(() => {
    app().changes.subscribe((changes) => {
      heard.push(...changes);
    });
  });

  it('reports a pet change only when an order really changed the pet', async () => {
    const pet = await makePet(app(), { quantity: 2 });
    heard.length = 0;
    const order = async () =>
      rest(app(), 'POST', '/store/orders', { json: { petId: Number(pet.id), quantity: 1 } });
    const first = await order();
    expect(first.status).toBe(201);
    // One unit left: the pet is still available, so only the order and the stock changed.
    expect(heard.map((change) => change.entity)).toEqual(['order', 'inventory']);
    heard.length = 0;
    const last = await order();
    expect(last.status).toBe(201);
    expect(heard.map((change) => change.entity)).toEqual(['order', 'inventory', 'pet']);
    heard.length = 0;
    // Cancelling makes the sold pet available again; cancelling the other one changes no pet.
    const firstId = (first.body as { id: number }).id;
    const lastId = (last.body as { id: number }).id;
    expect((await rest(app(), 'DELETE', `/store/orders/${lastId}`)).status).toBe(204);
    expect(heard.map((change) => change.entity)).toEqual(['order', 'inventory', 'pet']);
    heard.length = 0;
    expect((await rest(app(), 'DELETE', `/store/orders/${firstId}`)).status).toBe(204);
    expect(heard.map((change) => change.entity)).toEqual(['order', 'inventory']);
  });

  it('reports a REST order and a GraphQL restock, and nothing for a refused order', async () => {
    const category = await makeCategory(app());
    const pet = await makePet(app(), { categoryId: category.id, quantity: 1 });
    heard.length = 0;

    const placed = await rest(app(), 'POST', '/store/orders', {
      json: { petId: Number(pet.id), quantity: 1 },
    });
    expect(placed.status).toBe(201);
    const orderId = BigInt((placed.body as { id: number }).id);
    expect(heard).toEqual([
      { entity: 'order', kind: 'created', id: orderId, petId: pet.id },
      { entity: 'inventory', kind: 'updated', petId: pet.id },
      { entity: 'pet', kind: 'updated', id: pet.id },
    ]);

    heard.length = 0;
    // Sold out: refused, rolled back, unreported.
    const refused = await rest(app(), 'POST', '/store/orders', {
      json: { petId: Number(pet.id), quantity: 1 },
    });
    expect(refused.status).toBe(409);
    expect(heard).toEqual([]);

    const restock = await app().fetch(
      graphqlRequest(
        {
          query: `mutation { updateInventory(petId: "${pet.id}", input: { quantity: 3 }) { quantity } }`,
        },
        { authorization: app().authorization },
      ),
    );
    expect(restock.status).toBe(200);
    expect(heard).toEqual([
      { entity: 'inventory', kind: 'updated', petId: pet.id },
      { entity: 'pet', kind: 'updated', id: pet.id },
    ]);
  });

  it('stores the events it reports, in their order, under the ids the delivery hands out', async () => {
    const pet = await makePet(app(), { quantity: 1 });
    heard.length = 0;
    const { delivery } = app().events;
    const head = delivery.head;
    const placed = await rest(app(), 'POST', '/store/orders', {
      json: { petId: Number(pet.id), quantity: 1 },
    });
    expect(placed.status).toBe(201);
    expect(heard.map((change) => change.entity)).toEqual(['order', 'inventory', 'pet']);
    const stored = await app().database.prisma.$queryRawUnsafe<Record<string, unknown>[]>(
      'SELECT "id", "entity", "kind", "entityId", "petId" FROM "ChangeEvent" ORDER BY "id" DESC LIMIT 3',
    );
    const rows = stored.reverse().map((row) => ({
      id: BigInt(row.id as bigint),
      entity: row.entity,
      kind: row.kind,
      entityId: BigInt(row.entityId as bigint),
      petId: row.petId == null ? null : BigInt(row.petId as bigint),
    }));
    expect(rows.map((row) => ({ ...row, id: undefined }))).toEqual(
      heard.map((change) => ({ ...toRow(change), id: undefined })),
    );
    // Delivered as offered, or else as read (an offer that does not follow the last event read).
    await delivery.refresh();
    const delivered = await delivery.after(head, 10);
    expect(delivered.map((event) => [event.id, event.change])).toEqual(
      rows.map((row, index) => [row.id, heard[index]]),
    );
  });
});
